import type { AnswerRequest, AnswerSource } from '@kbqa/core';

/** Two passages of the Fastify docs, as retrieval hands them to a model-backed generator. */
export const sources: AnswerSource[] = [
  {
    n: 1,
    title: 'Plugins',
    link: 'https://fastify.dev/docs/latest/Reference/Plugins/',
    content: 'Use the `register` API to add one or more plugins.',
    score: 0.9,
  },
  {
    n: 2,
    title: 'Reply',
    link: 'https://fastify.dev/docs/latest/Reference/Reply/',
    content: '`.code(statusCode)` - Sets the status code.',
    score: 0.7,
  },
];

/** A question about plugins with those sources, no history; `overrides` change any part. */
export function request(overrides: Partial<AnswerRequest> = {}): AnswerRequest {
  return {
    question: 'How do I add a plugin?',
    sources,
    history: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every piece a generator streams, in order. */
export async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of iterable) pieces.push(piece);
  return pieces;
}

import type { AnswerRequest, AnswerSource } from '@kbqa/core';
import {
  ExtractiveAnswerGenerator,
  type ExtractiveAnswerGeneratorOptions,
} from '../src/extractive-answer.generator';
import { readDoc, section } from './corpus';

/** What the extractive generator's specs share: sources, requests and the answer as one string. */

export function source(n: number, title: string, content: string, score = 0.8): AnswerSource {
  return { n, title, content, score, link: `https://tidepool.example/docs/${n}` };
}

/** A source with its own link path (the topic's own page is told by its path). */
export function page(n: number, title: string, link: string, content: string): AnswerSource {
  return { n, title, content, score: 0.5, link: `https://docs.example/${link}` };
}

export function request(
  question: string,
  sources: AnswerSource[],
  signal: AbortSignal = new AbortController().signal,
): AnswerRequest {
  return { question, sources, history: [], signal };
}

export async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of iterable) pieces.push(piece);
  return pieces;
}

/**
 * The hand-set score, for specs of what its factors do (the learned scorer weighs the same
 * features as the development sets taught it, not as a spec's wording would).
 */
export const HAND = { scorer: 'hand' } as const;

export async function answer(
  question: string,
  sources: AnswerSource[],
  options: ExtractiveAnswerGeneratorOptions = {},
): Promise<string> {
  return (await collect(new ExtractiveAnswerGenerator(options).generate(request(question, sources)))).join(
    '',
  );
}

/** The answer to a request that carries `unknownWords` (undefined: not looked up). */
export async function answerKnowing(
  question: string,
  sources: AnswerSource[],
  unknownWords: string[] | undefined,
  generator = new ExtractiveAnswerGenerator(),
): Promise<string> {
  return (await collect(generator.generate({ ...request(question, sources), unknownWords }))).join('');
}

// Sections of the repository's docs corpus (fixtures/docs-corpus), each holding a known answer.
export const plugins = (): string => section('reference/plugins.md', 'Plugin options');
export const scope = (): string => readDoc('reference/plugins.md').split('## Plugin options')[0] ?? '';
export const reply = (): string => section('reference/reply.md', 'Introduction');
export const alternatives = (): string => section('reference/middleware.md', 'Middleware alternatives');
export const firstServer = (): string => section('guides/getting-started.md', 'Your first server');

/** Every citation marker in a text. */
export function citations(text: string): number[] {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

import { KbqaError, type AnswerGenerator, type AnswerRequest, type AnswerSource } from '@kbqa/core';
import { ExtractiveAnswerGenerator } from './extractive-answer.generator';
import { fitSources, LocalAnswerGenerator, type LocalChatModel } from './local-answer.generator';
import { DEFAULT_SYSTEM_PROMPT, type ChatMessage } from './openai.prompts';

const sources: AnswerSource[] = [
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

function request(overrides: Partial<AnswerRequest> = {}): AnswerRequest {
  return {
    question: 'How do I add a plugin?',
    sources,
    history: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of iterable) pieces.push(piece);
  return pieces;
}

/** A model that replies with fixed pieces and records what it was asked. */
class FakeLocalModel implements LocalChatModel {
  readonly calls: Array<{ messages: ChatMessage[]; maxTokens?: number }> = [];
  disposed = false;
  constructor(private readonly reply: string[]) {}
  countTokens(text: string): number {
    return Math.ceil(text.length / 4);
  }
  async *generate(
    messages: ChatMessage[],
    options: { signal?: AbortSignal; maxTokens?: number },
  ): AsyncGenerator<string, void, undefined> {
    this.calls.push({ messages, maxTokens: options.maxTokens });
    for (const piece of this.reply) {
      await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) throw new KbqaError('ABORTED', 'aborted');
      yield piece;
    }
  }
  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}

function generator(
  model: LocalChatModel | Error,
  fallback: AnswerGenerator = new ExtractiveAnswerGenerator(),
) {
  const errors: unknown[] = [];
  const local = new LocalAnswerGenerator({
    modelName: 'tiny',
    loadModel: () => (model instanceof Error ? Promise.reject(model) : Promise.resolve(model)),
    fallback,
    onLoadError: (error) => errors.push(error),
    maxTokens: 64,
  });
  return { local, errors };
}

describe(LocalAnswerGenerator.name, () => {
  it('sends the same prompt as the OpenAI-compatible path and streams the reply', async () => {
    const model = new FakeLocalModel(['Call ', '`register` ', '[1].']);
    const { local } = generator(model);
    expect(await collect(local.generate(request()))).toEqual(['Call', ' `register`', ' [1].']);
    const messages = model.calls[0]?.messages ?? [];
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toContain(DEFAULT_SYSTEM_PROMPT);
    expect(messages[0]?.content).toContain(
      '[1] Plugins — https://fastify.dev/docs/latest/Reference/Plugins/',
    );
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'How do I add a plugin?' });
    expect(model.calls[0]?.maxTokens).toBe(64);
    expect(local.status()).toEqual({ model: 'tiny', state: 'ready' });
  });

  it('uses the project prompt in place of the default one', async () => {
    const model = new FakeLocalModel(['ok']);
    const { local } = generator(model);
    await collect(local.generate(request({ systemPrompt: 'You are Acme support.' })));
    expect(model.calls[0]?.messages[0]?.content).toMatch(/^You are Acme support\./);
  });

  it('drops citation markers for sources it was not given', async () => {
    const { local } = generator(new FakeLocalModel(['Plugins [1][7] ', 'and [3].']));
    expect((await collect(local.generate(request()))).join('')).toBe('Plugins [1] and.');
  });

  it('tells the model that no source matched when there are none', async () => {
    const model = new FakeLocalModel(['The documentation does not cover it.']);
    const { local } = generator(model);
    await collect(local.generate(request({ sources: [] })));
    expect(model.calls[0]?.messages[0]?.content).toContain('none matched this question');
  });

  it('throws ABORTED when the signal aborts during the answer', async () => {
    const controller = new AbortController();
    const { local } = generator(new FakeLocalModel(['a ', 'b ', 'c ', 'd']));
    const pieces: string[] = [];
    await expect(
      (async () => {
        for await (const piece of local.generate(request({ signal: controller.signal }))) {
          pieces.push(piece);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(pieces).toHaveLength(1);
  });

  it('answers with the fallback, reports the error once and says why in its status when loading fails', async () => {
    const { local, errors } = generator(new Error('Model file /m/x.gguf is not a GGUF model file'));
    const first = (await collect(local.generate(request()))).join('');
    const second = (await collect(local.generate(request()))).join('');
    expect(first).toMatch(/register/);
    expect(second).toBe(first);
    expect(errors).toHaveLength(1);
    expect(local.status()).toEqual({
      model: 'tiny',
      state: 'unavailable',
      detail: 'Model file /m/x.gguf is not a GGUF model file',
    });
  });

  it('disposes the model it loaded', async () => {
    const model = new FakeLocalModel(['ok']);
    const { local } = generator(model);
    await local.warm();
    await local.dispose();
    expect(model.disposed).toBe(true);
    expect(local.status().state).toBe('not-loaded');
  });
});

describe(fitSources.name, () => {
  const count = (text: string) => text.split(/\s+/).length;
  const source = (n: number, words: number): AnswerSource => ({
    n,
    title: `S${n}`,
    link: '',
    content: Array.from({ length: words }, (_, i) => `w${i}`).join(' '),
    score: 1,
  });

  it('keeps whole sources while they fit and cuts the first that does not', () => {
    const fitted = fitSources([source(1, 50), source(2, 50), source(3, 50)], 100, count);
    expect(fitted.map((s) => s.n)).toEqual([1, 2]);
    expect(fitted[0]?.content).toBe(source(1, 50).content);
    expect(fitted[1]?.content.endsWith('…')).toBe(true);
    expect(count(fitted[1]?.content ?? '')).toBeLessThan(50);
  });

  it('always gives the first source, cut to the budget', () => {
    const fitted = fitSources([source(1, 500)], 100, count);
    expect(fitted).toHaveLength(1);
    expect(count(fitted[0]?.content ?? '')).toBeLessThanOrEqual(100);
  });
});

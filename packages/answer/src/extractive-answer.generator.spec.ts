import { KbqaError, type AnswerSource } from '@kbqa/core';
import {
  source,
  page,
  request,
  collect,
  answer,
  citations,
  plugins,
  scope,
  reply,
  alternatives,
  firstServer,
  HAND,
} from '../test/extractive';
import { readDoc } from '../test/corpus';
import { ExtractiveAnswerGenerator, NOT_COVERED_ANSWER, SEE_ALSO } from './extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('with a curated (taught) answer first', () => {
    const taught = (content: string): AnswerSource => ({
      ...source(1, 'How do I reset my password?', content, 1),
      curated: true,
    });

    it('answers with the taught answer verbatim, cited, and nothing else', async () => {
      const text = await answer('how can I reset my password', [
        taught('Open Settings > Security and click Reset password.'),
        source(2, 'Reply', reply()),
      ]);
      expect(text).toBe('Open Settings > Security and click Reset password. [1]');
    });

    it('cites a taught answer ending in a code block on a line of its own', async () => {
      const content = 'Run:\n\n```sh\nkbqa reset\n```';
      expect(await answer('reset password', [taught(content)])).toBe(`${content}\n\n[1]`);
    });

    it('ignores a curated flag on a source that is not first', async () => {
      const text = await answer('What does register create by default?', [
        source(7, 'Plugins', scope()),
        { ...source(8, 'Taught', 'Something else entirely.'), curated: true },
      ]);
      expect(text).not.toContain('Something else entirely');
    });
  });

  it('answers with the sentence that answers the question, cited with the source number', async () => {
    const text = await answer('What does register create by default?', [
      source(4, 'Reply', reply()),
      source(7, 'Plugins', scope()),
      source(9, 'Middleware', alternatives()),
    ]);
    expect(text).toContain('By default, `register` creates an _isolated context_ for the plugin');
    expect(text).toMatch(/_isolated context_[^[]*\[7\]/);
    expect(new Set(citations(text))).toEqual(new Set([7]));
  });

  it('prefers the sentence that answers among related ones', async () => {
    const text = await answer(
      'How do I set the status code of a reply?',
      [source(1, 'Getting started', firstServer()), source(2, 'Reply', reply())],
      HAND,
    );
    const firstSentence = text.split('\n')[0] ?? '';
    expect(firstSentence.startsWith('`.status(code)` - Sets the status code [2].')).toBe(true);
  });

  it('cites each sentence with the number of the source it comes from', async () => {
    const sources = [source(2, 'Middleware', alternatives()), source(5, 'Reply', reply())];
    const cors = await answer('Which plugin replaces the cors middleware?', sources);
    expect(cors).toContain('`@tidepool/cors` replaces the `cors` middleware');
    expect(new Set(citations(cors))).toEqual(new Set([2]));
    const status = await answer('How do I set the status code of a reply?', sources, HAND);
    expect(status).toContain('`.status(code)` - Sets the status code [5].');
    expect(new Set(citations(status))).toEqual(new Set([5]));
  });

  it('keeps code identifiers and fenced code blocks intact', async () => {
    const content = plugins();
    const text = await answer('How do I register a plugin with options using app.register?', [
      source(1, 'Plugins', content),
    ]);
    expect(text).toContain('`app.register`');
    const blocks = text.match(/```[\s\S]*?```/g) ?? [];
    expect(blocks).toHaveLength(1);
    for (const block of blocks) expect(content).toContain(block);
    expect(text).not.toMatch(/app\. register|parent\. db/);
  });

  it('quotes no code block when the question does not ask how', async () => {
    const text = await answer('What options does app.register support?', [source(1, 'Plugins', plugins())]);
    expect(text).not.toContain('```');
    expect(citations(text).length).toBeGreaterThan(0);
  });

  it('says the documentation does not cover the question when there are no sources', async () => {
    expect(await answer('How do I register a plugin?', [])).toBe(NOT_COVERED_ANSWER);
  });

  it('says the documentation does not cover an unrelated question instead of quoting unrelated text', async () => {
    const sources = [
      source(1, 'Plugins', plugins()),
      source(2, 'Reply', reply()),
      source(3, 'Getting started', firstServer()),
    ];
    expect(await answer('What is a good pizza dough recipe?', sources)).toBe(NOT_COVERED_ANSWER);
    expect(await answer('How long should I bake bread in a server oven?', sources)).toBe(NOT_COVERED_ANSWER);
  });

  describe('selectUnits', () => {
    it('returns every scored unit and those the answer quotes', () => {
      const generator = new ExtractiveAnswerGenerator();
      const sources = [source(4, 'Reply', reply()), source(7, 'Plugins', scope())];
      const question = 'What does register create by default?';
      const selection = generator.selectUnits(question, sources);
      const text = generator
        .compose(question, sources)
        .join('')
        .replace(/ \[\d+\]/g, '');
      expect(selection?.candidates.map((c) => c.sourceIndex)).toEqual(
        [...(selection?.candidates ?? [])].map((c) => c.sourceIndex).sort((a, b) => a - b),
      );
      expect(selection?.chosen.length).toBeGreaterThan(0);
      for (const c of selection?.chosen ?? []) {
        expect(selection?.candidates).toContain(c);
        expect(text).toContain(c.unit.text);
      }
    });

    it('quotes nothing when a gate says the question is not covered, and is undefined without units', () => {
      const generator = new ExtractiveAnswerGenerator();
      const sources = [source(1, 'Plugins', plugins()), source(2, 'Reply', reply())];
      // Two words no page has: the documentation lacks the topic (namesWhatDocsLack).
      const selection = generator.selectUnits(
        'How do I register a plugin with cron at midnight?',
        sources,
        undefined,
        ['cron', 'midnight'],
      );
      expect(selection?.candidates.length ?? 0).toBeGreaterThan(0);
      expect(selection?.chosen).toEqual([]);
      expect(generator.selectUnits('How do I register a plugin?', [])).toBeUndefined();
    });
  });

  it('streams the answer in several pieces', async () => {
    const generator = new ExtractiveAnswerGenerator();
    const pieces = await collect(
      generator.generate(request('What does the reply object expose?', [source(1, 'Reply', reply())])),
    );
    expect(pieces.length).toBeGreaterThan(1);
  });

  it('stops with an ABORTED error when the signal aborts between pieces', async () => {
    const controller = new AbortController();
    const generator = new ExtractiveAnswerGenerator();
    const iterator = generator
      .generate(
        request('What does the reply object expose?', [source(1, 'Reply', reply())], controller.signal),
      )
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const generator = new ExtractiveAnswerGenerator();
    await expect(
      collect(generator.generate(request('What is Fastify?', [], controller.signal))),
    ).rejects.toBeInstanceOf(KbqaError);
  });

  it('answers "not covered" and lists the closest pages when the best passage covers little of the question', async () => {
    // Every word of the question is somewhere in the sources, but no one passage has much of it.
    const text = await answer('How do I rotate encryption keys?', [
      page(1, 'Security', 'security', 'Encryption is handled by the platform.'),
      page(2, 'Vault', 'vault', 'Keys are stored in the vault.'),
      page(3, 'Logs', 'logs', 'Log files rotate daily.'),
      page(4, 'Logs', 'logs', 'Old log files are deleted.'),
    ]);
    expect(text).toBe(
      `${NOT_COVERED_ANSWER}\n\n${SEE_ALSO} [Security](https://docs.example/security), ` +
        '[Vault](https://docs.example/vault), [Logs](https://docs.example/logs).',
    );
  });

  describe('scoredUnits', () => {
    const content = [
      '## `bodyLimit`',
      '',
      'Defines the maximum payload, in bytes, the server is allowed to accept.',
      '',
      '```js',
      'const app = tidepool({ bodyLimit: 1048576 })',
      '```',
      '',
      '## Logging',
      '',
      'Logging is off by default.',
    ].join('\n');

    it('lists every unit of the sources in order, with the score the rules pick from', () => {
      const units = new ExtractiveAnswerGenerator().scoredUnits('What does bodyLimit limit?', [
        source(3, 'Server', content, 0.6),
      ]);
      expect(units.map((u) => [u.kind, u.heading, u.sourceIndex])).toEqual([
        ['sentence', '`bodyLimit`', 0],
        ['code', '`bodyLimit`', 0],
        ['sentence', 'Logging', 0],
      ]);
      const [limit, code, logging] = units;
      expect(limit?.namesAskedId).toBe(false);
      expect(code?.namesAskedId).toBe(true);
      expect(limit?.headingOverlap).toBeGreaterThan(0);
      expect(logging?.headingOverlap).toBe(0);
      expect(logging?.bodyMatched).toBe(false);
      expect(limit?.score).toBeGreaterThan(logging?.score ?? Infinity);
      expect(units.every((u) => u.sourceScore === 0.6)).toBe(true);
    });

    it('is empty when nothing in the sources matches the question', () => {
      expect(
        new ExtractiveAnswerGenerator().scoredUnits('pizza dough recipe', [source(1, 'Server', content)]),
      ).toEqual([]);
    });
  });

  describe('summarize', () => {
    it('stays within maxChars and keeps sentences in document order', async () => {
      const text = readDoc('guides/getting-started.md');
      const summary = await new ExtractiveAnswerGenerator().summarize(
        text,
        400,
        new AbortController().signal,
      );
      expect(summary.length).toBeGreaterThan(50);
      expect(summary.length).toBeLessThanOrEqual(400);
      expect(summary).not.toContain('```');
    });

    it('cuts the best sentence when no sentence fits', async () => {
      const summary = await new ExtractiveAnswerGenerator().summarize(
        'Fastify is a web framework highly focused on providing the best developer experience.',
        30,
        new AbortController().signal,
      );
      expect(summary.length).toBeLessThanOrEqual(30);
      expect(summary.endsWith('…')).toBe(true);
    });
  });

  describe('condenseQuestion', () => {
    const signal = new AbortController().signal;
    const history = [{ prompt: 'How do I use fastify.register with plugins?', response: 'Call it [1].' }];

    it('prepends key terms of the last prompt to a short follow-up', async () => {
      const condensed = await new ExtractiveAnswerGenerator().condenseQuestion(
        'what about its options?',
        history,
        signal,
      );
      expect(condensed).toBe('fastify.register plugins: what about its options?');
    });

    it('keeps a standalone question and any question without history as they are', async () => {
      const generator = new ExtractiveAnswerGenerator();
      const standalone = 'How do I add a hook that runs before every request handler?';
      expect(await generator.condenseQuestion(standalone, history, signal)).toBe(standalone);
      expect(await generator.condenseQuestion('and in v5?', [], signal)).toBe('and in v5?');
      expect(await generator.condenseQuestion('and in v5?', history, signal)).toBe(
        'fastify.register plugins: and in v5?',
      );
    });
  });
});

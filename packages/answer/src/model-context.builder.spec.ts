import type { AnswerSource } from '@kbqa/core';
import {
  buildModelContext,
  contextSources,
  estimateTokens,
  type ModelContext,
} from './model-context.builder';
import { sourceHeader } from './openai.prompts';

const source = (
  n: number,
  title: string,
  content: string,
  extra: Partial<AnswerSource> = {},
): AnswerSource => ({
  n,
  title,
  link: `https://docs.example.com/${title.toLowerCase().replace(/\s+/g, '-')}`,
  content,
  score: 1 - n / 10,
  ...extra,
});

const filler = (topic: string, count: number): string =>
  Array.from(
    { length: count },
    (_, i) => `The ${topic} guide covers part ${i + 1} of the walkthrough in plenty of detail for readers.`,
  ).join(' ');

const SERVER = source(
  1,
  'Server',
  [
    '## Server options',
    '',
    filler('server', 4),
    '',
    '### `bodyLimit`',
    '',
    'Defines the maximum payload, in bytes, the server is allowed to accept. Default: `1048576` (1MiB).',
    '',
    filler('limits', 3),
  ].join('\n'),
);

const LOGGING = source(
  2,
  'Logging',
  [
    '## Logging',
    '',
    filler('logging', 3),
    '',
    'The logger can redact secrets from what it writes:',
    '',
    '- `redact` - a list of paths whose values are replaced by `[Redacted]`.',
    '- `level` - the lowest level written.',
  ].join('\n'),
);

const text = (context: ModelContext): string => context.passages.map((p) => p.text).join('\n\n');

describe(buildModelContext.name, () => {
  it('puts the sentence that answers the question in a context too small for the whole chunks', () => {
    const sources = [LOGGING, SERVER];
    const context = buildModelContext(
      { question: 'What is the maximum payload size the server accepts?', sources },
      { budgetTokens: 60 },
    );
    expect(text(context)).toContain('Defines the maximum payload, in bytes');
    expect(context.tokens).toBeLessThanOrEqual(60);
    expect(estimateTokens(sources.map((s) => s.content).join('\n'))).toBeGreaterThan(200);
  });

  it('counts the passages with their source lines and stays within the budget', () => {
    const sources = [SERVER, LOGGING];
    for (const budgetTokens of [40, 120, 400]) {
      const context = buildModelContext(
        { question: 'How do I limit the body size?', sources },
        { budgetTokens },
      );
      const counted = context.passages.reduce((sum, p) => {
        const header = sourceHeader(sources[p.sourceIndex] as AnswerSource);
        return sum + estimateTokens(`${header}\n${p.text}\n\n`);
      }, 0);
      expect(context.tokens).toBe(counted);
      expect(context.tokens).toBeLessThanOrEqual(budgetTokens);
    }
  });

  it('keeps the index of the source each passage comes from, in the sources order', () => {
    const sources = [SERVER, LOGGING];
    const context = buildModelContext(
      { question: 'How do I redact secrets from the logger and limit the payload?', sources },
      { budgetTokens: 400 },
    );
    expect(context.passages.map((p) => p.sourceIndex)).toEqual([0, 1]);
    expect(context.passages[1]?.text).toContain('`redact`');
  });

  it('shows the units of a source in document order under their heading, "…" where some were left out', () => {
    const context = buildModelContext(
      { question: 'Which part 3 of the server walkthrough covers the maximum payload?', sources: [SERVER] },
      { budgetTokens: 100 },
    );
    expect(context.passages[0]?.text.split('\n')).toEqual([
      '## Server options',
      'The server guide covers part 3 of the walkthrough in plenty of detail for readers.',
      '## `bodyLimit`',
      'Defines the maximum payload, in bytes, the server is allowed to accept. Default: `1048576` (1MiB).',
      '…',
      'The limits guide covers part 3 of the walkthrough in plenty of detail for readers.',
    ]);
    const whole = buildModelContext(
      { question: 'What is the maximum payload?', sources: [SERVER] },
      { budgetTokens: 10_000 },
    );
    expect(whole.passages[0]?.text).not.toContain('…');
    expect(whole.passages[0]?.text).toContain(
      'part 2 of the walkthrough in plenty of detail for readers. The server',
    );
  });

  it('brings the sentence introducing a list with the item it picks, when both fit', () => {
    const shutdown = source(
      1,
      'Server',
      [
        '## Shutdown',
        '',
        filler('shutdown', 3),
        '',
        'Connection draining depends on the `forceCloseConnections` option:',
        '',
        '- `true` - every connection is closed at once.',
        '- `"idle"` - idle keep-alive sockets are destroyed right away.',
        '- `false` - connections are left to end.',
      ].join('\n'),
    );
    const input = { question: 'What happens to idle keep-alive sockets?', sources: [shutdown] };
    expect(buildModelContext(input, { budgetTokens: 50 }).passages[0]?.text).toBe(
      [
        '## Shutdown',
        'Connection draining depends on the `forceCloseConnections` option:',
        '…',
        '- `"idle"` - idle keep-alive sockets are destroyed right away.',
      ].join('\n'),
    );
    const alone = buildModelContext(input, { budgetTokens: 50, disabled: ['neighbours'] });
    expect(alone.passages[0]?.text).not.toContain('forceCloseConnections');
  });

  it('leaves out a unit that does not fit and fills the room with shorter ones', () => {
    const code = ['```js', ...Array.from({ length: 30 }, (_, i) => `fastify.register(plugin${i})`), '```'];
    const plugins = source(
      1,
      'Plugins',
      [
        '## Plugins',
        '',
        'Register plugins with `register`:',
        '',
        ...code,
        '',
        'Plugins can register plugins.',
      ].join('\n'),
    );
    const context = buildModelContext(
      { question: 'How do I register plugins?', sources: [plugins] },
      // By score alone, the block comes first: it is tried, and left out.
      { budgetTokens: 50, disabled: ['density'] },
    );
    expect(text(context)).not.toContain('```');
    expect(text(context)).toContain('Plugins can register plugins.');
  });

  it('gives a curated answer first and whole', () => {
    const curated = source(1, 'How big may a body be?', 'Up to 1 MiB unless `bodyLimit` says otherwise.', {
      curated: true,
    });
    const context = buildModelContext(
      { question: 'How big may a body be?', sources: [curated, SERVER] },
      { budgetTokens: 60 },
    );
    expect(context.passages[0]).toEqual({
      sourceIndex: 0,
      text: 'Up to 1 MiB unless `bodyLimit` says otherwise.',
    });
  });

  it('gives the openings of the sources when no unit matches the question', () => {
    const context = buildModelContext(
      { question: 'pizza dough recipe', sources: [SERVER, LOGGING] },
      { budgetTokens: 40 },
    );
    expect(context.passages[0]?.sourceIndex).toBe(0);
    expect(context.passages[0]?.text.startsWith('## Server options\nThe server guide covers part 1')).toBe(
      true,
    );
  });

  it('gives nothing when there are no sources or no room', () => {
    expect(buildModelContext({ question: 'What is bodyLimit?', sources: [] }, { budgetTokens: 500 })).toEqual(
      {
        passages: [],
        tokens: 0,
      },
    );
    expect(
      buildModelContext({ question: 'What is bodyLimit?', sources: [SERVER] }, { budgetTokens: 5 }).passages,
    ).toEqual([]);
  });
});

describe(estimateTokens.name, () => {
  it('counts four characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });
});

describe(contextSources.name, () => {
  it('keeps the numbers of the sources with a passage, their content replaced by it', () => {
    const sources = [SERVER, LOGGING];
    const out = contextSources(sources, { passages: [{ sourceIndex: 1, text: 'Only this.' }], tokens: 3 });
    expect(out).toEqual([{ ...LOGGING, content: 'Only this.' }]);
  });
});

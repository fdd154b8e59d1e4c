import { extractiveSummary } from './summary';

describe(extractiveSummary.name, () => {
  const text = [
    '# Rate limiting',
    'Rate limiting protects the server from clients that send too many requests.',
    'A limit is counted per client key within a time window, and the window slides.',
    '```js\nlimit({ max: 100 }) // rate limiting rate limiting rate limiting\n```',
    '## Storage',
    'Counters for rate limiting live in memory unless a shared store is configured.',
    '- Redis keeps counters for rate limiting across instances.',
    '- The lunch menu changes every week.',
  ].join('\n\n');

  it('keeps the best sentences whole and in document order', () => {
    const summary = extractiveSummary(text, 200);
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary.startsWith('Rate limiting protects the server')).toBe(true);
    const parts = summary.split(/(?<=\.) /);
    const positions = parts.map((p) => text.indexOf(p));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('leaves out sentences about something else', () => {
    const summary = extractiveSummary(text, 300);
    expect(summary).toContain('Redis keeps counters');
    expect(summary).not.toContain('lunch');
  });

  it('skips code blocks and reduces links to their text', () => {
    const summary = extractiveSummary(
      'Use `limit` with [the docs](https://x.test).\n\n```\ncode();\n```',
      500,
    );
    expect(summary).toBe('Use `limit` with the docs.');
  });

  it('takes everything when it all fits', () => {
    expect(extractiveSummary('One thing. Two things.', 100)).toBe('One thing. Two things.');
  });

  it('cuts a single sentence longer than maxChars at a word boundary and marks the cut', () => {
    const summary = extractiveSummary('alpha beta gamma delta epsilon zeta eta theta', 20);
    expect(summary).toBe('alpha beta gamma…');
  });

  it('returns an empty summary for text without prose or a non-positive maxChars', () => {
    expect(extractiveSummary('', 100)).toBe('');
    expect(extractiveSummary('```\nonly code\n```', 100)).toBe('');
    expect(extractiveSummary('Some text.', 0)).toBe('');
    expect(extractiveSummary('Some text.', Number.NaN)).toBe('');
  });

  it('stays linear on a large document', () => {
    const big = 'Caching makes pages fast. Entries expire after a while. '.repeat(40_000);
    const summary = extractiveSummary(big, 600);
    expect(summary.length).toBeGreaterThan(0);
    expect(summary.length).toBeLessThanOrEqual(600);
  });

  it('stays linear on unclosed link and code syntax', () => {
    const hostile = `${'[a]('.repeat(20_000)} ${'`x '.repeat(20_000)}. Done here now.`;
    expect(extractiveSummary(hostile, 50)).toBe('Done here now.');
  });
});

import { describe, expect, it } from '@jest/globals';
import { announces, endsMidThought, guardPieces, hasCalloutMarkup, lintAnswer } from './answer-hygiene';

const rules = (text: string, citable?: Set<number>) => lintAnswer(text, citable).map((v) => v.rule);

describe('lintAnswer', () => {
  it('passes a clean answer with a code block its introduction announces', () => {
    const text =
      'Register the plugin before the routes [1]. Write it like this [1]:\n\n```js\napp.use(x)\n```';
    expect(rules(text, new Set([1]))).toEqual([]);
  });

  it('flags a sentence that announces a block which does not follow', () => {
    expect(rules('Cache entries are stored using the following construction [2].')).toEqual([
      'announces-unshown',
    ]);
    expect(rules('The steps are as follows [1]. Then restart the server [1].')).toEqual([
      'announces-unshown',
    ]);
    expect(rules('Here is a minimal setup [3].')).toEqual(['announces-unshown']);
  });

  it('accepts an announcing sentence when a list follows it', () => {
    expect(rules('Three flags are accepted:\n\n- `a`\n- `b`\n- `c`')).toEqual([]);
  });

  it('flags a list introduction whose list was dropped', () => {
    expect(rules('Pipes make it possible to [1].')).toEqual(['mid-thought']);
    expect(rules('Supported stores include, for instance, ones such as [4].')).toEqual(['mid-thought']);
  });

  it('keeps sentences that end on a particle, a modal or a code span', () => {
    expect(rules('Turn compression on [1]. It runs as it should [1]. Set `level: 9` [2].')).toEqual([]);
  });

  it('flags callout markup copied as text', () => {
    expect(rules('warning **Warning** Never expose the admin port [1].')).toEqual(['callout-markup']);
    expect(rules('::: tip Handy\nUse the CLI [1].\n:::')).toContain('callout-markup');
    expect(rules('> [!NOTE]\n> Read this first [1].')).toContain('callout-markup');
  });

  it('flags a repeated sentence whatever its citation', () => {
    expect(rules('Tokens expire after an hour [1]. Tokens expire after an hour [3].')).toEqual([
      'repeated-sentence',
    ]);
  });

  it('flags citations that name no listed source, but not markdown links', () => {
    const citable = new Set([1, 2]);
    expect(rules('Timeouts are in seconds [1]. Retries back off [5].', citable)).toEqual([
      'dangling-citation',
    ]);
    expect(rules('See [Routing](https://example.test/r) for more on paths [2].', citable)).toEqual([]);
    expect(rules('Both apply [1, 7].', citable)).toEqual(['dangling-citation']);
  });

  it('ignores what stands inside code blocks', () => {
    expect(rules('Run it [1].\n\n```md\n::: tip\nsee the following:\n:::\n```', new Set([1]))).toEqual([]);
  });
});

describe('hygiene predicates', () => {
  it('tells announcing sentences from ordinary ones', () => {
    expect(announces('Configure it as shown below [1].')).toBe(true);
    expect(announces('The next example handles errors:')).toBe(true);
    expect(announces('The following headers are always sent: Date and Server [1].')).toBe(false);
    expect(announces('Values below 10 are rejected [1].')).toBe(false);
  });

  it('tells sentences cut mid-thought from complete ones', () => {
    expect(endsMidThought('You can pass either [2].')).toBe(true);
    expect(endsMidThought('This is handled by the router [2].')).toBe(false);
    expect(endsMidThought('The address the socket is bound and listening to [1].')).toBe(false);
    expect(endsMidThought('Rename `oldName` to `newName` with [1].')).toBe(true);
  });

  it('recognises admonition markup of several generators', () => {
    expect(hasCalloutMarkup('!!! note "Heads up"')).toBe(true);
    expect(hasCalloutMarkup('{% hint style="info" %}')).toBe(true);
    expect(hasCalloutMarkup('.. warning:: do not')).toBe(true);
    expect(hasCalloutMarkup('A note about warnings and hints.')).toBe(false);
  });
});

describe('guardPieces', () => {
  const citable = new Set([1, 2]);

  it('drops a sentence announcing a block that is not shown, and fixes the next separator', () => {
    const pieces = [
      'Workers are set up using the following construction [2].',
      ' They restart on crash [2].',
    ];
    expect(guardPieces(pieces, citable)).toEqual(['They restart on crash [2].']);
  });

  it('keeps an introduction followed by its code block', () => {
    const pieces = ['Start it like so [1]:', '\n\n```sh\nnpm start\n```'];
    expect(guardPieces(pieces, citable)).toEqual(pieces);
  });

  it('drops cut sentences, markup and repeats, and removes dangling markers', () => {
    const pieces = [
      'Limits apply per key [1].',
      ' They make it possible to [1].',
      '\n\ninfo **Hint** Keys rotate daily [2].',
      ' Limits apply per key [2].',
      '\n\nQuotas reset at midnight [9].',
    ];
    expect(guardPieces(pieces, citable)).toEqual([
      'Limits apply per key [1].',
      '\n\nQuotas reset at midnight.',
    ]);
  });
});

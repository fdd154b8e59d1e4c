import { describe, expect, it } from '@jest/globals';
import { flattenCallouts } from './callouts';
import { extractContent, type ExtractOptions } from './extract';

const URL_ = 'https://docs.example.com/guide/pools';

/** A page whose main content is `box` between two paragraphs. */
const page = (box: string): string =>
  `<!doctype html><html lang="en"><head><title>Pools | Example Docs</title></head><body>` +
  `<nav><a href="/">Home</a></nav><main><h1>Pools</h1>` +
  `<p>A pool keeps database connections open between requests, so each request skips the handshake.</p>` +
  box +
  `<p>The pool grows up to its limit and shrinks again when the traffic goes down at night.</p>` +
  `</main></body></html>`;

const OPTIONS: [string, ExtractOptions][] = [
  ['semantic, linkedom', {}],
  ['readability, linkedom', { strategy: 'readability' }],
  ['semantic, jsdom', { dom: 'jsdom' }],
];

/** The markdown of the page, for every strategy and DOM: all of them must agree. */
function markdownOf(box: string): string {
  const results = OPTIONS.map(([, options]) => extractContent(page(box), URL_, options).markdown);
  for (const [i, [name]] of OPTIONS.entries()) expect([name, results[i]]).toEqual([name, results[0]]);
  return results[0] ?? '';
}

/** What the page reads as around the box, given the box's markdown. */
const around = (...blocks: string[]): string =>
  [
    '# Pools',
    'A pool keeps database connections open between requests, so each request skips the handshake.',
    ...blocks,
    'The pool grows up to its limit and shrinks again when the traffic goes down at night.',
  ].join('\n\n');

describe(flattenCallouts.name, () => {
  it('drops the heading and icon of a Docusaurus admonition with a kind-only title', () => {
    const box =
      '<div class="theme-admonition theme-admonition-warning admonition_x1 alert alert--warning">' +
      '<div class="admonitionHeading_Ab3"><span class="admonitionIcon_Q9"><svg viewBox="0 0 1 1"><path d="M0"/></svg></span>warning</div>' +
      '<div class="admonitionContent_Zz"><p>Close the pool before the process exits.</p></div></div>';
    expect(markdownOf(box)).toBe(around('Close the pool before the process exits.'));
  });

  it('keeps a custom Docusaurus title as a paragraph, also in the older markup with an h5', () => {
    const current =
      '<div class="theme-admonition theme-admonition-tip admonition_x1">' +
      '<div class="admonitionHeading_Ab3"><span class="admonitionIcon_Q9">💡</span>Sizing the pool</div>' +
      '<div class="admonitionContent_Zz"><p>Start with twice the number of cores.</p></div></div>';
    const older =
      '<div class="admonition admonition-tip alert alert--success">' +
      '<div class="admonition-heading"><h5><span class="admonition-icon"></span>Sizing the pool</h5></div>' +
      '<div class="admonition-content"><p>Start with twice the number of cores.</p></div></div>';
    const expected = around('Sizing the pool', 'Start with twice the number of cores.');
    expect(markdownOf(current)).toBe(expected);
    expect(markdownOf(older)).toBe(expected);
  });

  it('drops the title of MkDocs admonitions and collapsible blocks unless it is custom', () => {
    const box =
      '<div class="admonition note"><p class="admonition-title">Note</p><p>Idle clients are released after a minute.</p></div>' +
      '<details class="warning"><summary>Long transactions</summary><p>They hold a client until they end.</p></details>';
    expect(markdownOf(box)).toBe(
      around(
        'Idle clients are released after a minute.',
        'Long transactions',
        'They hold a client until they end.',
      ),
    );
  });

  it('drops the title of VitePress custom blocks and details unless it is custom', () => {
    const box =
      '<div class="danger custom-block"><p class="custom-block-title">DANGER</p><p>Never share a client between threads.</p></div>' +
      '<div class="tip custom-block"><p class="custom-block-title">Reading the stats</p><p>The stats list busy and idle clients.</p></div>' +
      '<details class="details custom-block"><summary>Details</summary><p>Stats are sampled each second.</p></details>';
    expect(markdownOf(box)).toBe(
      around(
        'Never share a client between threads.',
        'Reading the stats',
        'The stats list busy and idle clients.',
        'Stats are sampled each second.',
      ),
    );
  });

  it('drops the icon of GitBook hints', () => {
    const box =
      '<div class="hint hint-info" data-hint="info"><span class="hint-icon">ℹ️</span>' +
      '<div class="hint-content"><p>Pools are per process, not per machine.</p></div></div>';
    expect(markdownOf(box)).toBe(around('Pools are per process, not per machine.'));
  });

  it('drops the title of Sphinx admonitions and keeps a generic admonition title', () => {
    const box =
      '<div class="admonition warning"><p class="admonition-title">Warning</p><p>Old drivers leak clients.</p></div>' +
      '<div class="admonition admonition-upgrading"><p class="admonition-title">Upgrading from 1.x</p><p>Rename the option.</p></div>';
    expect(markdownOf(box)).toBe(
      around('Old drivers leak clients.', 'Upgrading from 1.x', 'Rename the option.'),
    );
  });

  it('drops the title of GitHub markdown alerts', () => {
    const box =
      '<div class="markdown-alert markdown-alert-important" dir="auto"><p class="markdown-alert-title" dir="auto">' +
      '<svg class="octicon octicon-report" viewBox="0 0 16 16"><path d="M0"/></svg>Important</p>' +
      '<p dir="auto">Set a limit before going to production.</p></div>';
    expect(markdownOf(box)).toBe(around('Set a limit before going to production.'));
  });

  it('drops the bold kind that opens a NestJS callout and keeps the quote', () => {
    const box =
      '<blockquote class="warning"><strong>Warning</strong> Do not open a pool per request.</blockquote>' +
      '<blockquote class="info"><p><strong>Hint</strong>: The pool is created once, at startup.</p></blockquote>';
    expect(markdownOf(box)).toBe(
      around('> Do not open a pool per request.', '> The pool is created once, at startup.'),
    );
  });

  it("keeps a NestJS label of the author's own as the first paragraph of the quote", () => {
    const box =
      '<blockquote class="info"><p><strong>Good to know</strong> Both pools share one limit.</p></blockquote>';
    expect(markdownOf(box)).toBe(around('> Good to know\n>\n> Both pools share one limit.'));
  });

  it('leaves a quote without a kind class alone', () => {
    const box = '<blockquote><p><strong>Warning</strong> is what the log prints.</p></blockquote>';
    expect(markdownOf(box)).toBe(around('> **Warning** is what the log prints.'));
  });

  it('flattens nested boxes, a box in a list, and leaves code in them intact', () => {
    const box =
      '<ol><li><p>Install the driver.</p>' +
      '<div class="admonition note"><p class="admonition-title">Note</p><p>Version 3 or later.</p>' +
      '<div class="admonition tip"><p class="admonition-title">Pinning it</p>' +
      '<pre><code class="language-sh">npm i driver@3\n# :::tip is not markup here</code></pre></div></div></li>' +
      '<li><p>Create the pool.</p></li></ol>';
    expect(markdownOf(box)).toBe(
      around(
        [
          '1. Install the driver.',
          '',
          '   Version 3 or later.',
          '',
          '   Pinning it',
          '',
          '   ```sh',
          '   npm i driver@3',
          '   # :::tip is not markup here',
          '   ```',
          '2. Create the pool.',
        ].join('\n'),
      ),
    );
  });
});

import { cleanInline, splitMarkdownUnits } from './markdown-units';

describe(cleanInline.name, () => {
  it('keeps link text and drops link targets, images and html, but not inside code', () => {
    expect(
      cleanInline('See [the guide](./Guide.md#x) ![logo](a.png) <a id="x"></a>and `[a](b) <b>` too'),
    ).toBe('See the guide and `[a](b) <b>` too');
  });
});

describe(splitMarkdownUnits.name, () => {
  it('keeps fenced code blocks whole with their fences and records headings', () => {
    const md = [
      '## Plugins',
      'Use the `register` API. It adds plugins.',
      '```js',
      "fastify.register(require('x'), {",
      '',
      '  prefix: "/foo". Next',
      '})',
      '```',
      '- A list item',
      '  that wraps. Second sentence.',
    ].join('\n');
    const units = splitMarkdownUnits(md);
    expect(units.map((u) => [u.kind, u.text, u.heading])).toEqual([
      ['sentence', 'Use the `register` API.', 'Plugins'],
      ['sentence', 'It adds plugins.', 'Plugins'],
      ['code', '```js\nfastify.register(require(\'x\'), {\n\n  prefix: "/foo". Next\n})\n```', 'Plugins'],
      ['sentence', 'A list item that wraps.', 'Plugins'],
      ['sentence', 'Second sentence.', 'Plugins'],
    ]);
  });

  it('closes a code block that a chunk boundary cut off', () => {
    const units = splitMarkdownUnits('Text.\n```js\nconst a = 1\n');
    expect(units[1]?.text).toBe('```js\nconst a = 1\n```');
  });
});

describe('splitMarkdownUnits in quotes', () => {
  it('splits a list inside a blockquote into its items', () => {
    const units = splitMarkdownUnits('> Warning:\n> * First item here\n> * Second item here');
    expect(units.map((u) => u.text)).toEqual(['Warning:', 'First item here', 'Second item here']);
  });

  it('marks the sentences of list items, in and out of blockquotes, and nothing else', () => {
    const units = splitMarkdownUnits(
      'Pick one:\n\n- Alpha mode\n- Beta mode\n\nThen restart.\n\n> Options:\n> 1. Quiet',
    );
    expect(units.map((u) => [u.text, u.listItem ?? false])).toEqual([
      ['Pick one:', false],
      ['Alpha mode', true],
      ['Beta mode', true],
      ['Then restart.', false],
      ['Options:', false],
      ['Quiet', true],
    ]);
  });

  it('reads a heading inside a blockquote as the heading of what follows it', () => {
    const units = splitMarkdownUnits(
      '## Support\n\n> ## Security releases\n>\n> Pin the minor version with a tilde.',
    );
    expect(units.map((u) => [u.heading, u.text])).toEqual([
      ['Security releases', 'Pin the minor version with a tilde.'],
    ]);
  });
});

describe('splitMarkdownUnits on the blocks of parseMarkdown', () => {
  it('keeps a fence inside a list item as one code unit, dedented to the item', () => {
    const units = splitMarkdownUnits('- Install it:\n\n  ```sh\n  npm i x\n  ```\n- Done');
    expect(units.map((u) => [u.kind, u.text, u.listItem ?? false])).toEqual([
      ['sentence', 'Install it:', true],
      ['code', '```sh\nnpm i x\n```', false],
      ['sentence', 'Done', true],
    ]);
  });

  it('reads nested quotes without their markers', () => {
    expect(splitMarkdownUnits('> > Deeply quoted.').map((u) => u.text)).toEqual(['Deeply quoted.']);
  });

  it('reads each table row as its cells and skips the delimiter row', () => {
    expect(
      splitMarkdownUnits('| Option | Default |\n|---|---|\n| `port` | 3000 |').map((u) => u.text),
    ).toEqual(['Option; Default', '`port`; 3000']);
  });
});

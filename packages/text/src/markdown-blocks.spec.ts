import { parseMarkdown } from './markdown-blocks';

const kinds = (text: string): string[] => parseMarkdown(text).map((b) => b.kind);

describe(parseMarkdown.name, () => {
  it('recognizes each block kind', () => {
    const text = [
      '# Title',
      'A paragraph\nover two lines.',
      '- one\n- two\n  continued',
      '> quoted\n> more',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```js\nx\n```',
      '    indented code',
      '***',
      'Sub\n---',
    ].join('\n\n');
    expect(kinds(text)).toEqual([
      'heading',
      'paragraph',
      'list',
      'quote',
      'table',
      'code',
      'code',
      'heading',
    ]);
  });

  it('reads ATX headings with closing marks and refuses ones without a space', () => {
    expect(parseMarkdown('## Install ##')).toMatchObject([{ kind: 'heading', level: 2, title: 'Install' }]);
    expect(parseMarkdown('#hashtag')).toMatchObject([{ kind: 'paragraph' }]);
    expect(parseMarkdown('####### seven')).toMatchObject([{ kind: 'paragraph' }]);
  });

  it('makes a setext heading of a one-line paragraph only', () => {
    expect(parseMarkdown('Title\n=====')).toMatchObject([{ kind: 'heading', level: 1, title: 'Title' }]);
    expect(kinds('line one\nline two\n---')).toEqual(['paragraph']);
  });

  it('keeps list items with their continuation, nested items, blank lines and code', () => {
    const list =
      '1. first\n   lazy\n\n   ```sh\n   # not a heading\n\n   npm i\n   ```\n2. second\n   - nested\n10. tenth';
    const blocks = parseMarkdown(`${list}\n\nAfter.`);
    expect(blocks).toMatchObject([
      { kind: 'list', text: list, itemStarts: [0, 8, 10] },
      { kind: 'paragraph', text: 'After.' },
    ]);
  });

  it('ends a list at a heading or an unindented paragraph after a blank line', () => {
    expect(kinds('- a\n# H')).toEqual(['list', 'heading']);
    expect(kinds('- a\n\nPara')).toEqual(['list', 'paragraph']);
    expect(kinds('- a\nlazy')).toEqual(['list']);
  });

  it('takes the header row of a table out of the paragraph above it', () => {
    expect(parseMarkdown('Intro line\n| a | b |\n| - | - |\n| 1 | 2 |')).toMatchObject([
      { kind: 'paragraph', text: 'Intro line' },
      { kind: 'table', lines: ['| a | b |', '| - | - |', '| 1 | 2 |'] },
    ]);
  });

  it('normalizes line endings and drops a byte-order mark', () => {
    expect(parseMarkdown('\ufeff# T\r\n\r\nText\r\n')).toMatchObject([
      { kind: 'heading', title: 'T' },
      { kind: 'paragraph', text: 'Text' },
    ]);
  });

  it('treats inline triple backticks as text, not a fence', () => {
    expect(kinds('```inline``` code\n# Heading')).toEqual(['paragraph', 'heading']);
  });
});

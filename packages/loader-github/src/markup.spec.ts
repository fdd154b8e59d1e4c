import { describe, expect, it } from '@jest/globals';
import { markupOf } from './doc-files';
import { convertMarkup, firstHeading, mdxToMarkdown, rstToMarkdown } from './markup';

describe(convertMarkup.name, () => {
  it('takes the title from front matter before the first heading', () => {
    expect(convertMarkup('---\ntitle: Hello\n---\n# Other\n\ntext', 'markdown')).toEqual({
      title: 'Hello',
      markdown: '# Other\n\ntext',
    });
  });

  it('leaves the title to the caller when a file has no heading', () => {
    expect(convertMarkup('just text', 'markdown')).toEqual({ markdown: 'just text' });
  });

  it('keeps fenced code in MDX untouched', () => {
    const mdx = "import X from './x';\n\n# Title\n\n```tsx\nimport Y from 'y';\n<Y />\n```\n\n<X>text</X>";
    expect(mdxToMarkdown(mdx).trim()).toBe("# Title\n\n```tsx\nimport Y from 'y';\n<Y />\n```\n\ntext");
  });

  it('turns reStructuredText titles into headings by the order of their adornments', () => {
    const rst = '=====\nTitle\n=====\n\nSection\n-------\n\nSub\n~~~\n\nOther\n-------\n';
    expect(rstToMarkdown(rst).trim()).toBe('# Title\n\n## Section\n\n### Sub\n\n## Other');
  });

  it('turns reStructuredText literal blocks, notes and inline markup into markdown', () => {
    const rst = [
      'Run this::',
      '',
      '    npm install',
      '',
      '.. note::',
      '   Be careful with ``rm``.',
      '',
      '.. toctree::',
      '   :maxdepth: 2',
      '',
      '   intro',
      '',
      'See `the site <https://example.com>`_ and :func:`load`.',
    ].join('\n');
    expect(
      rstToMarkdown(rst)
        .replace(/\n{3,}/g, '\n\n')
        .trim(),
    ).toBe(
      [
        'Run this:',
        '',
        '```',
        'npm install',
        '```',
        '',
        '.. note::',
        '   Be careful with `rm`.',
        '',
        'See [the site](https://example.com) and `load`.',
      ].join('\n'),
    );
  });

  it('keeps reStructuredText admonitions as directives for the chunker, their body converted', () => {
    const rst = [
      '.. admonition:: Before you upgrade',
      '',
      '   Back up ``data/``:',
      '',
      '   .. code-block:: sh',
      '',
      '      cp -r data backup',
    ].join('\n');
    expect(rstToMarkdown(rst).trim()).toBe(
      [
        '.. admonition:: Before you upgrade',
        '',
        '   Back up `data/`:',
        '',
        '   ```sh',
        '   cp -r data backup',
        '   ```',
      ].join('\n'),
    );
  });

  it('turns AsciiDoc titles and listings into markdown', () => {
    const adoc = '= Book\n:toc:\n\n== Part\n\n// a comment\n....\nliteral\n....\n';
    expect(convertMarkup(adoc, 'asciidoc')).toEqual({
      title: 'Book',
      markdown: '# Book\n\n## Part\n\n```\nliteral\n```',
    });
  });

  it('finds setext headings and ignores headings inside code', () => {
    expect(firstHeading('```\n# not\n```\nReal\n====\n')).toBe('Real');
  });
});

describe(markupOf.name, () => {
  it('recognises documentation files and READMEs by name', () => {
    expect(markupOf('guide.md')).toBe('markdown');
    expect(markupOf('page.MDX')).toBe('mdx');
    expect(markupOf('index.rst')).toBe('rst');
    expect(markupOf('book.adoc')).toBe('asciidoc');
    expect(markupOf('notes.txt')).toBe('text');
    expect(markupOf('README')).toBe('text');
    expect(markupOf('readme.en')).toBe('text');
    expect(markupOf('requirements-dev.txt')).toBeUndefined();
    expect(markupOf('index.ts')).toBeUndefined();
  });
});

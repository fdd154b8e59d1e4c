import { cleanMarkup } from './markup';

describe(cleanMarkup.name, () => {
  it('drops admonition markers and keeps their text', () => {
    const md = ['Intro.', '', '> ℹ️ Note:', '> The size is checked.', '', '> ⚠ Warning: Do not mix styles.'];
    expect(cleanMarkup(md.join('\n'))).toBe(
      ['Intro.', '', '> The size is checked.', '', '> Do not mix styles.'].join('\n'),
    );
    expect(cleanMarkup('**Warning:** keep it short.')).toBe('keep it short.');
    expect(cleanMarkup('> [!NOTE]\n> Alerts too.')).toBe('> Alerts too.');
    expect(cleanMarkup(':::tip Pro tip\nUse hooks.\n:::')).toBe('Use hooks.');
  });

  it('leaves a plain "Note:" that reads as prose', () => {
    expect(cleanMarkup('Note: the body is null here.')).toBe('Note: the body is null here.');
  });

  it('drops HTML comments, also across lines, and anchor-only lines', () => {
    const md = [
      '<!-- markdownlint-disable -->',
      '# Title',
      '<a id="x"></a>',
      'Text <!-- hidden --> here.',
      '<!--',
      'TODO',
      '-->',
      'End.',
    ];
    expect(cleanMarkup(md.join('\n'))).toBe(['# Title', 'Text  here.', 'End.'].join('\n'));
  });

  it('drops script and style elements and lines that only place a component', () => {
    const page = [
      'Startup was instant.',
      '',
      '<script setup>',
      "import chartSvg from './chart.svg?raw'",
      '</script>',
      '<svg-image :svg="chartSvg" />',
      '<Badge type="tip" text="new" />',
      '<style scoped>.box { color: red }</style>',
      '',
      'Edits reach the browser at once.',
    ].join('\n');
    expect(cleanMarkup(page)).toBe('Startup was instant.\n\n\nEdits reach the browser at once.');
  });

  it('keeps a script tag named in prose or shown in code', () => {
    const page = [
      'Add a `<script type="module">` tag to index.html:',
      '',
      '```html',
      '<script type="module" src="/main.js"></script>',
      '```',
    ].join('\n');
    expect(cleanMarkup(page)).toBe(page);
  });

  it('drops build directives inside code blocks but nothing else there', () => {
    const md = [
      '```js',
      '// highlight-next-line',
      'const x = 1 // highlight-line',
      '// a real comment',
      '<!-- not html here -->',
      '```',
    ];
    expect(cleanMarkup(md.join('\n'))).toBe(
      ['```js', 'const x = 1', '// a real comment', '<!-- not html here -->', '```'].join('\n'),
    );
  });

  it('returns prose without markup unchanged', () => {
    const md = 'Plain text.\n\n- a list\n- of items\n\n```sh\nnpm i fastify\n```';
    expect(cleanMarkup(md)).toBe(md);
  });
});

import { type CitableSource, citedMarkdown, citeAnswer, webAddress } from './citations';

const DOCS = 'https://docs.example.com';
/** Five chunks of three pages, as retrieval returns them: two of pipes, two of validation, one of raw-body. */
const SOURCES: CitableSource[] = [
  { link: `${DOCS}/pipes`, title: 'Pipes', content: 'A pipe transforms input before the handler runs.' },
  { link: `${DOCS}/pipes`, title: 'Pipes', content: 'Pipes can also validate input and throw on bad data.' },
  {
    link: `${DOCS}/validation`,
    title: 'Validation',
    content: 'The ValidationPipe checks every request body against its DTO class.',
  },
  {
    link: `${DOCS}/validation`,
    content: 'Set whitelist to true and properties without decorators are stripped from the body.',
  },
  { link: `${DOCS}/raw-body`, content: 'Enable rawBody when creating the app to keep the raw request body.' },
];

describe(citeAnswer.name, () => {
  it('lists each page once and points every marker at the page it names', () => {
    const answer =
      'Pipes transform input [1] and can validate it [2]. The ValidationPipe checks bodies [3]; ' +
      'whitelist strips unknown properties [4]. Keep the raw body with rawBody [5].';
    const cited = citeAnswer(answer, SOURCES);
    expect(cited.text).toBe(
      'Pipes transform input [1] and can validate it [1]. The ValidationPipe checks bodies [2]; ' +
        'whitelist strips unknown properties [2]. Keep the raw body with rawBody [3].',
    );
    expect(cited.pages.map((p) => [p.n, p.link, p.label, p.sources])).toEqual([
      [1, `${DOCS}/pipes`, 'Pipes', [1, 2]],
      [2, `${DOCS}/validation`, 'Validation', [3, 4]],
      [3, `${DOCS}/raw-body`, `${DOCS}/raw-body`, [5]],
    ]);
    expect(cited.citations.map((c) => [c.n, c.source])).toEqual([
      [1, 1],
      [1, 2],
      [2, 3],
      [2, 4],
      [3, 5],
    ]);
  });

  it('numbers pages in the order the answer first cites them, uncited pages after them', () => {
    const cited = citeAnswer('Keep the raw body [5]. Whitelisting strips properties [4].', SOURCES);
    expect(cited.text).toBe('Keep the raw body [1]. Whitelisting strips properties [2].');
    expect(cited.pages.map((p) => [p.link, p.cited])).toEqual([
      [`${DOCS}/raw-body`, true],
      [`${DOCS}/validation`, true],
      [`${DOCS}/pipes`, false],
    ]);
  });

  it('drops a number that names no source, with the space before it', () => {
    expect(citeAnswer('Pipes run first [9]. Then guards [0].', SOURCES).text).toBe(
      'Pipes run first. Then guards.',
    );
    expect(citeAnswer('Pipes run first [1, 9].', SOURCES).text).toBe('Pipes run first [1].');
    expect(citeAnswer('Anything [1].', []).text).toBe('Anything.');
  });

  it('renumbers grouped and adjacent markers, citing a page once per run', () => {
    expect(citeAnswer('Both pages [2, 3].', SOURCES).text).toBe('Both pages [1][2].');
    expect(citeAnswer('Both pages [3][1].', SOURCES).text).toBe('Both pages [1][2].');
    expect(citeAnswer('One page twice [1][2], then [3], [5].', SOURCES).text).toBe(
      'One page twice [1], then [2][3].',
    );
  });

  it('leaves brackets in code alone and does not count them as citations', () => {
    const answer = 'Read `items[5]` first [3].\n\n```js\nconst x = rows[2];\n```\n\nThen [1].';
    const cited = citeAnswer(answer, SOURCES);
    expect(cited.text).toBe('Read `items[5]` first [1].\n\n```js\nconst x = rows[2];\n```\n\nThen [2].');
    expect(cited.pages.filter((p) => p.cited).map((p) => p.link)).toEqual([
      `${DOCS}/validation`,
      `${DOCS}/pipes`,
    ]);
  });

  it('does not take a Markdown link or link definition for a citation', () => {
    expect(citeAnswer('See [1](https://x.example) and [3].\n[2]: https://y.example', SOURCES).text).toBe(
      'See [1](https://x.example) and [1].\n[2]: https://y.example',
    );
  });

  it('gives each marker the words it stands after, as written', () => {
    const cited = citeAnswer(
      '- Pipes **transform** `input` [1] and [validate](https://x.example) it [2].\n' +
        'Whitelist strips properties. [4]',
      SOURCES,
    );
    expect(cited.citations.map((c) => c.passage)).toEqual([
      '- Pipes **transform** `input`',
      'and [validate](https://x.example) it',
      'Whitelist strips properties.',
    ]);
  });

  it('renumbers a streamed answer the same way at every step, an unfinished marker left as text', () => {
    const full = 'Validation checks bodies [3]. Pipes transform input [1].';
    const partial = citeAnswer(full.slice(0, full.indexOf('[1') + 2), SOURCES);
    expect(partial.text).toBe('Validation checks bodies [1]. Pipes transform input [1');
    expect(citeAnswer(full, SOURCES).text).toBe('Validation checks bodies [1]. Pipes transform input [2].');
  });

  it('takes a source without a link as a page of its own, labelled by its title', () => {
    const cited = citeAnswer('A [1]. B [2].', [{ link: '', title: 'Taught answer' }, { link: '' }]);
    expect(cited.text).toBe('A [1]. B [2].');
    expect(cited.pages.map((p) => p.label)).toEqual(['Taught answer', '']);
  });
});

describe(citedMarkdown.name, () => {
  it('makes each marker a link to its page, titled with the page', () => {
    const cited = citedMarkdown('Pipes transform input [2]. Raw bodies [5].', SOURCES);
    expect(cited.text).toBe(
      `Pipes transform input [\\[1\\]](<${DOCS}/pipes> "Pipes"). ` +
        `Raw bodies [\\[2\\]](<${DOCS}/raw-body> "${DOCS}/raw-body").`,
    );
  });

  it('leads each link where the href option says, given the page address', () => {
    const cited = citedMarkdown('Pipes can also validate input [2].', SOURCES, {
      href: (c, address) => `${address}#from-source-${c.source}`,
    });
    expect(cited.text).toBe(
      `Pipes can also validate input [\\[1\\]](<${DOCS}/pipes#from-source-2> "Pipes").`,
    );
  });

  it('keeps a plain number for a source that is not a web address', () => {
    const sources = [{ link: 'guides/setup.md', content: 'Run the installer.' }];
    expect(citedMarkdown('Run the installer [1].', sources, { href: () => 'https://x.example' }).text).toBe(
      'Run the installer [1].',
    );
  });
});

describe(webAddress.name, () => {
  it('accepts http and https addresses only', () => {
    expect(webAddress('https://docs.example.com/a b')).toBe('https://docs.example.com/a%20b');
    expect(webAddress('javascript:alert(1)')).toBeUndefined();
    expect(webAddress('reference/server.md')).toBeUndefined();
  });
});

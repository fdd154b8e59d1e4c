import { openingCoverage, sectionOpenings, withOpeningSlot } from './section-openings';
import { queryStems } from './query-terms';

const shares = (question: string) => new Map(queryStems(question).map((s) => [s, 1]));
const ranked = (contents: string[]) =>
  contents.map((content, i) => ({ hit: { content, documentId: i }, rank: 10 - i }));

describe(sectionOpenings.name, () => {
  it('reads each name heading with the paragraph under it, past its anchor line, a camelCase name also as words', () => {
    const content = [
      '### .hasHeader(key)',
      '<a id="hasHeader"></a>',
      '',
      'Returns a boolean indicating if the specified header',
      'has been set.',
      '',
      'Second paragraph, not part of the opening.',
      '### `bodyLimit`',
      '```js',
      'fastify({ bodyLimit: 1 })',
      '```',
    ].join('\n');
    expect(sectionOpenings(content)).toEqual([
      '.hasHeader(key) .has Header(key)\nReturns a boolean indicating if the specified header has been set.',
      '`bodyLimit` `body Limit`\n',
    ]);
  });

  it('skips headings that are not names in code, and passages that open no section', () => {
    expect(sectionOpenings('## Getting started\n\nInstall it first.')).toEqual([]);
    expect(sectionOpenings('Text cut from the middle of a section.')).toEqual([]);
  });
});

describe(openingCoverage.name, () => {
  it("is the share of the question's stems held by the best opening", () => {
    const content = '#### hasRoute\n\nMethod to check if a route is already registered.';
    expect(openingCoverage(shares('is the route already registered'), content)).toBe(1);
    expect(openingCoverage(shares('route timeout'), content)).toBe(0.5);
    expect(openingCoverage(shares('route timeout'), 'A route is registered.')).toBe(0);
  });
});

describe(withOpeningSlot.name, () => {
  const opening = '### `.sent`\n\nTells whether the reply was already sent.';
  const others = ['reply notes', 'more reply notes', 'other notes', 'queue notes'];

  it('gives the last place to the best section opening the first topK leave out', () => {
    const list = ranked([...others, opening]);
    const top = withOpeningSlot(list, 3, shares('was the reply already sent'));
    expect(top.map((r) => r.hit.content)).toEqual(['reply notes', 'more reply notes', opening]);
  });

  it('leaves the ranking alone when the opening is already in, holds too little of the question, or topK is below 3', () => {
    const question = shares('was the reply already sent');
    expect(withOpeningSlot(ranked([opening, ...others]), 3, question).map((r) => r.hit.content)).toEqual([
      opening,
      'reply notes',
      'more reply notes',
    ]);
    const unrelated = shares('reply timeout queue drain order');
    expect(withOpeningSlot(ranked([...others, opening]), 3, unrelated).map((r) => r.hit.content)).toEqual(
      others.slice(0, 3),
    );
    expect(withOpeningSlot(ranked([...others, opening]), 2, question).map((r) => r.hit.content)).toEqual(
      others.slice(0, 2),
    );
  });
});

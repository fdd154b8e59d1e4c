import { porterStem } from './porter-stemmer';
import { matchTerms, queryStems, termCoverage, weightedCoverage } from './query-terms';
import { splitProseAndCode } from './prose-code';

describe(matchTerms.name, () => {
  it('adds each dotted, slashed or hyphenated identifier as one phrase next to its parts', () => {
    expect(matchTerms('What replaced reply.res?')).toEqual(['"replaced"', '"reply"', '"res"', '"reply res"']);
    expect(matchTerms('Serve HTTP/2')).toEqual(['"serve"', '"http"', '"2"', '"http 2"']);
  });

  it('keeps snake_case names whole and drops question words', () => {
    expect(matchTerms('What does FST_ERR_CTP_BODY_TOO_LARGE mean?')).toEqual([
      '"fst_err_ctp_body_too_large"',
      '"mean"',
    ]);
  });

  it('drops contraction and possessive suffixes instead of searching for their single letters', () => {
    expect(matchTerms("Why can't I read the client's IP?")).toEqual(['"read"', '"client"', '"ip"']);
    expect(matchTerms('It doesn\u2019t start; we\u2019ll retry')).toEqual(['"doesn"', '"start"', '"retry"']);
  });

  it("keeps a quoted word's letters when the quote is not an apostrophe suffix", () => {
    expect(matchTerms("Set 'type' to 'text'")).toEqual(['"set"', '"type"', '"text"']);
  });

  it("leaves out the question's frame: what it is good for, whether there is a way, how to find out", () => {
    expect(matchTerms('What are type providers good for?')).toEqual(['"type"', '"providers"']);
    expect(matchTerms('Is there a way to find out whether a response was sent?')).toEqual([
      '"whether"',
      '"response"',
      '"sent"',
    ]);
    expect(matchTerms("What's the best way to stop a route, and what happens then?")).toEqual([
      '"stop"',
      '"route"',
    ]);
    expect(queryStems('What is the decorators API used for?')).toEqual(['decor', 'api']);
  });

  it('leaves out what the question excludes, fillers and all', () => {
    expect(matchTerms('How can I test my routes without actually listening on a port?')).toEqual([
      '"test"',
      '"routes"',
      '"port"',
    ]);
    expect(matchTerms('every route except the health check')).toEqual(['"every"', '"route"', '"check"']);
    // Nothing of its own left: the caller searches the conversation's topic instead.
    expect(queryStems('what about without TLS?')).toEqual([]);
  });

  it('searches "how long" also as the length or time it asks for, "how large" as the size, outside coverage', () => {
    expect(matchTerms('How long can a path parameter be?')).toEqual([
      '"long"',
      '"path"',
      '"parameter"',
      '"length"',
      '"time"',
    ]);
    expect(queryStems('How long can a path parameter be?')).not.toContain('time');
    expect(matchTerms('a long path parameter')).not.toContain('"length"');
    expect(matchTerms('How large may a body be?')).toContain('"size"');
  });

  it('searches a grouped word alone: its variants count only in coverage', () => {
    expect(matchTerms('colorized log lines')).toEqual(['"colorized"', '"log"', '"lines"']);
  });
});

describe(queryStems.name, () => {
  it('stems the meaningful words as the porter tokenizer does', () => {
    expect(queryStems('How do I register plugins with prefixes?')).toEqual(['regist', 'plugin', 'prefix']);
  });

  it("measures a grouped word by its group's first word", () => {
    expect(queryStems('the logger over HTTPS')).toEqual(['log', 'over', 'tl']);
  });

  it('leaves contraction and possessive suffixes out of the stems coverage is measured on', () => {
    expect(queryStems("Why can't the server's hooks run?")).toEqual(['server', 'hook', 'run']);
  });
});

describe(termCoverage.name, () => {
  it('is the share of query stems present in the passage, whatever their form', () => {
    const stems = queryStems('registering plugins with a prefix');
    expect(termCoverage(stems, 'Each plugin is registered under a Prefix.')).toBe(1);
    expect(termCoverage(stems, 'Plugins can be nested.')).toBeCloseTo(1 / 3);
    expect(termCoverage(stems, 'Nothing relevant.')).toBe(0);
    expect(termCoverage([], 'anything')).toBe(0);
  });

  it('counts a variant of a grouped word as the word, and nothing else that shares its stem', () => {
    const stems = queryStems('log lines over TLS');
    expect(termCoverage(stems, 'The logger prints lines over HTTPS.')).toBe(1);
    // "line" and "over" of four stems; "http" is not "https".
    expect(termCoverage(stems, 'Lines over HTTP.')).toBeCloseTo(2 / 4);
  });
});

describe(weightedCoverage.name, () => {
  it('counts each stem found with its weight', () => {
    const weights = new Map([
      ['plugin', 3],
      ['prefix', 1],
    ]);
    expect(weightedCoverage(weights, 'Plugins are loaded in order.')).toBeCloseTo(0.75);
    expect(weightedCoverage(weights, 'A prefix for the routes.')).toBeCloseTo(0.25);
    expect(weightedCoverage(weights, 'Plugins under a prefix.')).toBe(1);
    expect(weightedCoverage(new Map(), 'anything')).toBe(0);
  });
});

describe(porterStem.name, () => {
  it('reduces words like the Porter algorithm', () => {
    const cases: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      agreed: 'agre',
      hopping: 'hop',
      filing: 'file',
      happy: 'happi',
      relational: 'relat',
      electrical: 'electr',
      adjustment: 'adjust',
      controlling: 'control',
      generalization: 'gener',
      routes: 'rout',
      at: 'at',
      v4: 'v4',
    };
    for (const [word, stem] of Object.entries(cases)) expect(porterStem(word)).toBe(stem);
  });
});

describe(splitProseAndCode.name, () => {
  it('moves fenced code, fences included, out of the prose', () => {
    const body = splitProseAndCode(
      'Intro.\n\n```js\nconst a = 1\n```\n\nAfter.\n\n~~~~\n``` not a close\n~~~~',
    );
    expect(body.prose).toBe('Intro.\n\n\nAfter.\n');
    expect(body.code).toBe('```js\nconst a = 1\n```\n~~~~\n``` not a close\n~~~~');
  });

  it('runs an unclosed fence to the end', () => {
    expect(splitProseAndCode('Text\n```\ncode').code).toBe('```\ncode');
  });
});

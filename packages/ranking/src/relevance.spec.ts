import type { SearchHit } from '@kbqa/core';
import { queryStems } from './query-terms';
import {
  cappedHits,
  CONTEXT_WEIGHT,
  coverageIdf,
  IDF_FLOOR,
  lexicalRelevance,
  type LexicalHit,
  planLexical,
  queryWords,
  rerankPool,
  scorePassage,
  UNCOVERED_FACTOR,
} from './relevance';
import { hasProse, namesTopic } from './topic';

const hit = (chunkId: number, score: number, rankRelevance = 0): LexicalHit => ({
  chunkId,
  documentId: 1,
  sourceId: 1,
  source: 's',
  content: '',
  title: '',
  headingPath: [],
  link: '',
  score,
  rankRelevance,
});

describe(queryWords.name, () => {
  it('searches a question of stop words only as its context', () => {
    expect(queryWords({ text: 'and then?', context: 'register plugins' })).toEqual({
      terms: ['"register"', '"plugins"'],
      stems: ['regist', 'plugin'],
      contextStems: [],
      context: '',
    });
  });

  it('keeps the context stems the question does not have, and is undefined without a term', () => {
    expect(queryWords({ text: 'plugin prefix', context: 'register plugins' })?.contextStems).toEqual([
      'regist',
    ]);
    expect(queryWords({ text: '?' })).toBeUndefined();
  });
});

describe(planLexical.name, () => {
  it('weighs context stems and terms at CONTEXT_WEIGHT, the question at its idf', () => {
    const words = queryWords({ text: 'plugin prefix', context: 'register plugins' })!;
    const plan = planLexical(words, (s) => (s === 'plugin' ? 2 : 1));
    expect(plan.mainTerms).toEqual(['"plugin"', '"prefix"']);
    expect(plan.contextTerms).toEqual(['"register"', '"plugins"']);
    expect(plan.weights).toEqual(
      new Map([
        ['plugin', 2],
        ['prefix', 1],
        ['regist', CONTEXT_WEIGHT],
      ]),
    );
    expect(plan.shares.get('regist')).toBe(CONTEXT_WEIGHT);
    expect(plan.shares.get('plugin')).toBe(1);
  });
});

describe(scorePassage.name, () => {
  const plan = planLexical(queryWords({ text: 'plugin prefix' })!, () => 1);

  it('ranks a passage holding every stem at its BM25, and scores it by lexicalRelevance', () => {
    expect(scorePassage(plan, 6, 'Plugins with a prefix')).toEqual({
      rank: 6,
      score: lexicalRelevance(6, 1),
    });
  });

  it('scales down the rank of a passage holding none of the stems, and scores it 0', () => {
    expect(scorePassage(plan, 6, 'Nothing here')).toEqual({ rank: 6 * UNCOVERED_FACTOR, score: 0 });
  });
});

describe(coverageIdf.name, () => {
  it('is the idf of a rare stem, and IDF_FLOOR for one on every passage', () => {
    expect(coverageIdf(1, 100)).toBeCloseTo(Math.log(1 + 99.5 / 1.5));
    expect(coverageIdf(100, 100)).toBe(IDF_FLOOR);
  });
});

describe(rerankPool.name, () => {
  it('reads twice the results wanted, at most 100 and never fewer than wanted', () => {
    expect(rerankPool(5)).toBe(10);
    expect(rerankPool(80)).toBe(100);
    expect(rerankPool(150)).toBe(150);
  });
});

describe(cappedHits.name, () => {
  it('caps each score by those above it and drops the ranking relevance', () => {
    const capped = cappedHits([hit(1, 0.6, 0.9), hit(2, 0.7, 0.8), hit(3, 0.2, 0.1)]);
    expect(capped.map((h: SearchHit) => h.score)).toEqual([0.6, 0.6, 0.2]);
    expect(capped[0]).not.toHaveProperty('rankRelevance');
  });
});

describe(namesTopic.name, () => {
  const topic = new Set(queryStems('decorators'));

  it("is true for a page whose title, link's last segment or top heading is the topic", () => {
    expect(namesTopic({ title: 'Reference/Decorators.md', link: 'x', headingPath: [] }, topic)).toBe(true);
    expect(namesTopic({ title: 'x', link: 'https://d.dev/docs/decorators/', headingPath: [] }, topic)).toBe(
      true,
    );
  });

  it('is false when the topic is only among other words', () => {
    expect(namesTopic({ title: 'Decorators and Encapsulation', link: 'x', headingPath: [] }, topic)).toBe(
      false,
    );
  });
});

describe(hasProse.name, () => {
  it('wants a sentence of words outside tags, headings and images', () => {
    expect(hasProse('<h1 align="center">Fastify</h1>\n![logo](x.png)')).toBe(false);
    expect(hasProse('# Title\nFastify is a fast web framework for Node.')).toBe(true);
  });
});

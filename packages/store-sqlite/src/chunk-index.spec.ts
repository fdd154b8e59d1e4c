import { sha256Hex, type ChunkDraft, type LoadedDocument } from '@kbqa/core';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { openDataSource, rawDatabase } from './data-source';
import { buildMatchExpression, prunedMatchExpression } from './fts-query';

function draft(content: string, ordinal = 0, headingPath: string[] = []): ChunkDraft {
  return {
    ordinal,
    content,
    headingPath,
    title: 'T',
    link: 'L',
    kind: 'content',
    contentHash: sha256Hex(content),
  };
}

function doc(source: string, metadata?: LoadedDocument['metadata']): LoadedDocument {
  return { source, content: 'x', metadata };
}

describe(SqliteChunkIndex.name, () => {
  let ds: DataSource;
  let index: SqliteChunkIndex;
  let projectId: number;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    index = new SqliteChunkIndex(rawDatabase(ds));
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run();
    projectId = 1;
  });
  afterEach(() => ds.destroy());

  const ftsRows = () =>
    (rawDatabase(ds).prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;

  it('replaces a source in place: no duplicate chunks or FTS rows', () => {
    const input = {
      projectId,
      source: 's',
      kind: 'documents' as const,
      documents: [{ document: doc('s'), chunks: [draft('alpha beta'), draft('gamma', 1)] }],
    };
    const first = index.replaceSource(input);
    const second = index.replaceSource(input);
    expect(second.sourceId).toBe(first.sourceId);
    expect(index.countChunks(projectId)).toBe(2);
    expect(ftsRows()).toBe(2);
  });

  it('removes chunks and FTS rows with the source', async () => {
    index.replaceSource({
      projectId,
      source: 's',
      kind: 'documents',
      documents: [{ document: doc('s'), chunks: [draft('alpha')] }],
    });
    expect(index.deleteSource(projectId, 's')).toBe(1);
    expect(ftsRows()).toBe(0);
    expect(await index.search({ projectId, text: 'alpha', topK: 5, mode: 'lexical' })).toEqual([]);
  });

  it('keeps taught sources on delete-all', () => {
    index.replaceSource({
      projectId,
      source: 'a',
      kind: 'documents',
      documents: [{ document: doc('a'), chunks: [draft('a')] }],
    });
    index.replaceSource({
      projectId,
      source: 'faq',
      kind: 'teach',
      documents: [{ document: doc('faq'), chunks: [draft('q')] }],
    });
    expect(index.deleteAllSources(projectId)).toBe(1);
    expect(index.listSources(projectId).map((s) => s.source)).toEqual(['faq']);
  });

  it('filters lexical results by document metadata inside the query', async () => {
    for (let v = 1; v <= 20; v++) {
      index.replaceSource({
        projectId,
        source: `v${v}`,
        kind: 'documents',
        documents: [
          {
            document: doc(`v${v}`, { version: v, tag: v % 2 ? 'odd' : 'even' }),
            chunks: [draft(`plugin hooks ${'x'.repeat(v)}`)],
          },
        ],
      });
    }
    const hits = await index.search({
      projectId,
      text: 'plugin hooks',
      topK: 5,
      mode: 'lexical',
      filters: [
        { field: 'version', op: '$gte', value: 15 },
        { field: 'tag', op: '$in', value: ['odd'] },
      ],
    });
    expect(hits.map((h) => h.source).sort()).toEqual(['v15', 'v17', 'v19']);
  });

  it('gives relevance scores in [0, 1], higher for better matches', async () => {
    index.replaceSource({
      projectId,
      source: 'a',
      kind: 'documents',
      documents: [
        {
          document: doc('a'),
          chunks: [draft('decorators decorate the fastify instance'), draft('other words entirely', 1)],
        },
      ],
    });
    const hits = await index.search({ projectId, text: 'fastify decorators', topK: 5, mode: 'lexical' });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeLessThan(1);
  });
});

describe(buildMatchExpression.name, () => {
  it('quotes every term so user text is never FTS syntax', () => {
    expect(buildMatchExpression('how do I use "NEAR" OR * enableCors?')).toBe('"near" OR "enablecors"');
    expect(buildMatchExpression('???')).toBeUndefined();
  });
});

describe(prunedMatchExpression.name, () => {
  const df: Record<string, number> = {
    '"plugin"': 900,
    '"request"': 950,
    '"prefix"': 40,
    '"encapsulation"': 12,
  };

  it('requires a rare term and keeps every term in the score', () => {
    expect(prunedMatchExpression(['"plugin"', '"prefix"', '"encapsulation"'], (t) => df[t]!, 100)).toBe(
      '("encapsulation" OR "prefix") AND ("plugin" OR "prefix" OR "encapsulation")',
    );
  });

  it('requires the rarest term when every term is common, and ORs when all are rare', () => {
    expect(prunedMatchExpression(['"request"', '"plugin"'], (t) => df[t]!, 100)).toBe(
      '("plugin") AND ("request" OR "plugin")',
    );
    expect(prunedMatchExpression(['"prefix"', '"encapsulation"'], (t) => df[t]!, 100)).toBe(
      '"prefix" OR "encapsulation"',
    );
  });
});

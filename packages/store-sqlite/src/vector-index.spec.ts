import {
  embeddingText,
  KbqaError,
  sha256Hex,
  type ChunkDraft,
  type LoadedDocument,
  type MetadataCondition,
} from '@kbqa/core';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { openDataSource, rawDatabase } from './data-source';
import { VectorCodes1733500000000 } from './migrations/1733500000000-vector-codes';
import { SqliteVectorIndex } from './vector-index';

const DIM = 16;

function draft(content: string, ordinal = 0): ChunkDraft {
  return {
    ordinal,
    content,
    headingPath: ['H'],
    title: 'T',
    link: 'L',
    kind: 'content',
    contentHash: sha256Hex(content),
  };
}

function doc(source: string, metadata?: LoadedDocument['metadata']): LoadedDocument {
  return { source, content: 'x', metadata };
}

function normalize(v: number[]): Float32Array {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return Float32Array.from(v.map((x) => x / n));
}

/** Unit vector along axis `i`, plus a little of every axis so no two are identical. */
function axis(i: number, noise = 0): Float32Array {
  return normalize(
    Array.from({ length: DIM }, (_, j) => (j === i ? 1 : 0) + noise * Math.sin(i * 31 + j * 7)),
  );
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe(SqliteVectorIndex.name, () => {
  let ds: DataSource;
  let db: BetterSqlite3.Database;
  let index: SqliteChunkIndex;
  let vectors: SqliteVectorIndex;
  const projectId = 1;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    db = rawDatabase(ds);
    index = new SqliteChunkIndex(db);
    vectors = index.vectors;
    db.prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now'), ('q', 'now')").run();
  });
  afterEach(() => ds.destroy());

  /** Indexes one chunk per content string (one source, one document each) and returns the ids. */
  function ingest(
    source: string,
    contents: string[],
    metadata: (i: number) => LoadedDocument['metadata'] = () => ({}),
    project = projectId,
  ) {
    return index.replaceSource({
      projectId: project,
      source,
      kind: 'documents',
      documents: contents.map((c, i) => ({
        document: doc(`${source}/${i}`, metadata(i)),
        chunks: [draft(c)],
      })),
    }).chunkIds;
  }

  const bitsRows = () =>
    (db.prepare('SELECT count(*) AS n FROM chunk_vectors_bits').get() as { n: number }).n;
  const codeRows = () =>
    (db.prepare('SELECT count(*) AS n FROM chunk_vector_codes').get() as { n: number }).n;

  describe('embedder binding', () => {
    it('records the embedder on first attach and accepts the same one again', () => {
      expect(vectors.meta()).toBeUndefined();
      vectors.attach('model-a', DIM);
      vectors.attach('model-a', DIM);
      expect(vectors.meta()).toEqual({ embedderId: 'model-a', dimension: DIM });
    });

    it('refuses a different embedder with INDEX_MISMATCH naming `kbqa reindex`', () => {
      vectors.attach('model-a', DIM);
      let error: unknown;
      try {
        vectors.attach('model-b', 32);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(KbqaError);
      expect((error as KbqaError).code).toBe('INDEX_MISMATCH');
      expect((error as KbqaError).message).toContain('model-a (16 dimensions)');
      expect((error as KbqaError).message).toContain('model-b (32)');
      expect((error as KbqaError).message).toContain('run `kbqa reindex`');
      expect(vectors.meta()).toEqual({ embedderId: 'model-a', dimension: DIM });
    });

    it('names the command as the user runs it in the INDEX_MISMATCH message', () => {
      vectors.attach('model-a', DIM);
      const named = new SqliteVectorIndex(db, { command: './kbqa-linux-x64' });
      expect(() => named.attach('model-b', 32)).toThrow('run `./kbqa-linux-x64 reindex`');
    });

    it('reset drops every vector, marks every chunk pending and binds the new embedder', () => {
      vectors.attach('model-a', DIM);
      const ids = ingest('s', ['one', 'two']);
      vectors.store(ids.map((chunkId, i) => ({ chunkId, vector: axis(i) })));
      expect(vectors.countPending()).toBe(0);

      vectors.reset('model-b', 32);
      expect(vectors.meta()).toEqual({ embedderId: 'model-b', dimension: 32 });
      expect(vectors.countVectors()).toBe(0);
      expect(bitsRows()).toBe(0);
      expect(codeRows()).toBe(0);
      expect(vectors.countPending()).toBe(2);
      vectors.store([{ chunkId: ids[0]!, vector: normalize(Array.from({ length: 32 }, (_, j) => j + 1)) }]);
      expect(vectors.countVectors()).toBe(1);
    });
  });

  it('codes the vectors of an index made before the code table existed (migration)', async () => {
    vectors.attach('model-a', DIM);
    const ids = ingest('s', ['one', 'two', 'three']);
    vectors.store(ids.map((chunkId, i) => ({ chunkId, vector: axis(i, 0.1) })));
    db.exec('DROP TABLE chunk_vector_codes');
    const runner = ds.createQueryRunner();
    await new VectorCodes1733500000000().up(runner);
    await runner.release();
    const same = db
      .prepare(
        `SELECT count(*) AS n FROM chunk_vectors v JOIN chunk_vector_codes k ON k.chunk_id = v.chunk_id
         WHERE k.code = vec_quantize_binary(v.embedding)`,
      )
      .get() as { n: number };
    expect(same.n).toBe(3);
  });

  describe('embedding queue', () => {
    it('pages pending chunks by id with the text to embed, and store marks them done', () => {
      vectors.attach('model-a', DIM);
      const ids = ingest('s', ['alpha', 'beta', 'gamma']);
      ingest('other', ['delta'], () => ({}), 2);
      expect(vectors.countPending()).toBe(4);
      expect(vectors.countPending(projectId)).toBe(3);

      const first = vectors.pending(2, 0, projectId);
      expect(first.map((p) => p.chunkId)).toEqual(ids.slice(0, 2));
      expect(first[0]).toEqual({
        chunkId: ids[0],
        projectId,
        text: embeddingText({ title: 'T', headingPath: ['H'], content: 'alpha' }),
      });
      expect(vectors.pending(10, ids[1]!, projectId).map((p) => p.chunkId)).toEqual([ids[2]]);

      vectors.store(first.map((p, i) => ({ chunkId: p.chunkId, vector: axis(i) })));
      expect(vectors.countPending(projectId)).toBe(1);
      expect(vectors.countVectors(projectId)).toBe(2);
      expect(vectors.countVectors(2)).toBe(0);
      const marked = db.prepare('SELECT embedded_with FROM chunks WHERE id = ?').get(ids[0]) as {
        embedded_with: string;
      };
      expect(marked.embedded_with).toBe('model-a');
    });

    it('skips chunks deleted between pending() and store()', () => {
      vectors.attach('model-a', DIM);
      const [id] = ingest('s', ['alpha']);
      index.deleteSource(projectId, 's');
      vectors.store([{ chunkId: id!, vector: axis(0) }]);
      expect(vectors.countVectors()).toBe(0);
      expect(bitsRows()).toBe(0);
    });

    it('refuses to store without an attached embedder or with the wrong dimension', () => {
      const [id] = ingest('s', ['alpha']);
      expect(() => vectors.store([{ chunkId: id!, vector: axis(0) }])).toThrow(/attach/);
      vectors.attach('model-a', DIM);
      expect(() => vectors.store([{ chunkId: id!, vector: new Float32Array(8) }])).toThrow(/8 dimensions/);
    });
  });

  describe('source lifecycle', () => {
    it('deletes a source with its chunks, FTS rows and vectors in one transaction', () => {
      vectors.attach('model-a', DIM);
      const ids = ingest('s', ['alpha', 'beta']);
      vectors.store(ids.map((chunkId, i) => ({ chunkId, vector: axis(i) })));
      expect(vectors.countVectors(projectId)).toBe(2);

      // Rolled back together: the vectors are deleted by the same transaction as the chunks.
      expect(() =>
        db.transaction(() => {
          index.deleteSource(projectId, 's');
          expect(vectors.countVectors()).toBe(0);
          throw new Error('abort');
        })(),
      ).toThrow('abort');
      expect(vectors.countVectors()).toBe(2);
      expect(index.countChunks(projectId)).toBe(2);

      expect(codeRows()).toBe(2);
      expect(index.deleteSource(projectId, 's')).toBe(1);
      expect(vectors.countVectors()).toBe(0);
      expect(bitsRows()).toBe(0);
      expect(codeRows()).toBe(0);
      expect(index.countChunks(projectId)).toBe(0);
    });

    it('keeps the vectors of unchanged chunks when a source is ingested again', async () => {
      vectors.attach('model-a', DIM);
      const ids = ingest('s', ['alpha', 'beta', 'gamma']);
      vectors.store(ids.map((chunkId, i) => ({ chunkId, vector: axis(i) })));

      const again = ingest('s', ['alpha', 'beta changed', 'gamma']);
      expect(vectors.countPending(projectId)).toBe(1);
      expect(vectors.pending(10, 0, projectId).map((p) => p.chunkId)).toEqual([again[1]]);
      expect(vectors.countVectors(projectId)).toBe(2);
      expect(bitsRows()).toBe(2);

      const hits = await index.search({ projectId, text: '', vector: axis(2), topK: 1, mode: 'dense' });
      expect(hits[0]?.chunkId).toBe(again[2]);
      expect(hits[0]?.content).toBe('gamma');
    });

    it('does not carry vectors made by a previous embedder', () => {
      vectors.attach('model-a', DIM);
      const ids = ingest('s', ['alpha']);
      vectors.store(ids.map((chunkId) => ({ chunkId, vector: axis(0) })));
      vectors.reset('model-b', DIM);
      ingest('s', ['alpha']);
      expect(vectors.countPending(projectId)).toBe(1);
      expect(vectors.countVectors()).toBe(0);
    });
  });

  describe('search', () => {
    it('dense search returns the nearest chunk with a similarity in [0, 1]', async () => {
      vectors.attach('model-a', DIM);
      const ids = ingest(
        's',
        Array.from({ length: 8 }, (_, i) => `chunk ${i}`),
      );
      vectors.store(ids.map((chunkId, i) => ({ chunkId, vector: axis(i, 0.05) })));
      const hits = await index.search({
        projectId,
        text: 'ignored',
        vector: axis(5),
        topK: 3,
        mode: 'dense',
      });
      expect(hits).toHaveLength(3);
      expect(hits[0]!.chunkId).toBe(ids[5]);
      expect(hits[0]!.score).toBeGreaterThan(0.9);
      expect(hits[0]!.score).toBeLessThanOrEqual(1);
      expect(hits[1]!.score).toBeLessThan(hits[0]!.score);
      expect(hits[2]!.score).toBeGreaterThanOrEqual(0);
    });

    it('scopes dense search to the project', async () => {
      vectors.attach('model-a', DIM);
      const mine = ingest('s', ['mine']);
      const theirs = ingest('s', ['theirs'], () => ({}), 2);
      vectors.store([
        { chunkId: mine[0]!, vector: axis(1) },
        { chunkId: theirs[0]!, vector: axis(0) },
      ]);
      const hits = await index.search({ projectId, text: '', vector: axis(0), topK: 5, mode: 'dense' });
      expect(hits.map((h) => h.chunkId)).toEqual(mine);
    });

    it('explains that dense search needs an attached embedder and a vector', async () => {
      ingest('s', ['alpha']);
      await expect(
        index.search({ projectId, text: 'a', vector: axis(0), topK: 3, mode: 'dense' }),
      ).rejects.toMatchObject({
        code: 'INDEX_MISMATCH',
      });
      vectors.attach('model-a', DIM);
      await expect(index.search({ projectId, text: 'a', topK: 3, mode: 'dense' })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    });

    it('hybrid ranks a chunk matching both the words and the meaning above one-sided matches', async () => {
      vectors.attach('model-a', DIM);
      const [both, wordsOnly, meaningOnly, neither] = ingest('s', [
        'register plugin encapsulation',
        'register plugin encapsulation context',
        'something about scoping',
        'unrelated text',
      ]);
      vectors.store([
        { chunkId: both!, vector: axis(0, 0.1) },
        { chunkId: wordsOnly!, vector: axis(7) },
        { chunkId: meaningOnly!, vector: axis(0, 0.12) },
        { chunkId: neither!, vector: axis(9) },
      ]);
      const hits = await index.search({
        projectId,
        text: 'register plugin encapsulation',
        vector: axis(0),
        topK: 4,
        mode: 'hybrid',
      });
      expect(hits[0]!.chunkId).toBe(both);
      const score = new Map(hits.map((h) => [h.chunkId, h.score]));
      expect(score.get(both!)).toBeGreaterThan(score.get(wordsOnly!)!);
      expect(score.get(both!)).toBeGreaterThan(score.get(meaningOnly!)!);
      for (const h of hits) {
        expect(h.score).toBeGreaterThanOrEqual(0);
        expect(h.score).toBeLessThanOrEqual(1);
      }
      // Absolute scores: the same chunk and question score the same with other chunks gone.
      index.deleteSource(projectId, 's');
      const [alone] = ingest('s', ['register plugin encapsulation']);
      vectors.store([{ chunkId: alone!, vector: axis(0, 0.1) }]);
      const again = await index.search({
        projectId,
        text: 'register plugin encapsulation',
        vector: axis(0),
        topK: 1,
        mode: 'hybrid',
      });
      expect(again[0]!.score).toBeGreaterThan(0);
    });

    it('hybrid without a query vector is the lexical search', async () => {
      ingest('s', ['fastify hooks', 'other']);
      const hybrid = await index.search({ projectId, text: 'hooks', topK: 5, mode: 'hybrid' });
      const lexical = await index.search({ projectId, text: 'hooks', topK: 5, mode: 'lexical' });
      expect(hybrid).toEqual(lexical);
    });
  });

  describe('filters inside the search', () => {
    const N = 2000;
    /** 5% of the documents are "rare"; their vectors are far from the query, the others close. */
    function buildFilterIndex(): number[] {
      vectors.attach('model-a', DIM);
      const isRare = (i: number) => i % 20 === 0;
      const ids = ingest(
        's',
        Array.from({ length: N }, (_, i) => `plugin text ${i}`),
        (i) => ({ group: isRare(i) ? 'rare' : 'common', n: i, name: `doc${i}` }),
      );
      const r = seeded(7);
      vectors.store(
        ids.map((chunkId, i) => {
          const v = Array.from({ length: DIM }, () => (r() - 0.5) * 0.2);
          v[0]! += isRare(i) ? 0.3 : 3;
          return { chunkId, vector: normalize(v) };
        }),
      );
      return ids;
    }

    async function groupsOf(where: MetadataCondition[], mode: 'dense' | 'hybrid', topK = 10) {
      const hits = await index.search({
        projectId,
        text: 'plugin',
        vector: axis(0),
        topK,
        mode,
        filters: where,
      });
      return hits.map((h) => h.content.replace('plugin text ', 'd'));
    }

    const rareFilter: MetadataCondition[] = [{ field: 'group', op: '$eq', value: 'rare' }];

    it('returns topK filtered results where a post-filter of the unfiltered top-k would return none', async () => {
      buildFilterIndex();
      const unfiltered = await index.search({
        projectId,
        text: 'plugin',
        vector: axis(0),
        topK: 10,
        mode: 'dense',
      });
      const docNo = (content: string) => Number(content.replace('plugin text ', ''));
      expect(unfiltered.filter((h) => docNo(h.content) % 20 === 0)).toHaveLength(0);

      for (const mode of ['dense', 'hybrid'] as const) {
        const hits = await index.search({
          projectId,
          text: 'plugin',
          vector: axis(0),
          topK: 10,
          mode,
          filters: rareFilter,
        });
        expect(hits).toHaveLength(10);
        for (const h of hits) expect(docNo(h.content) % 20).toBe(0);
      }
    });

    it('also returns topK filtered results through the quantized kNN path', async () => {
      buildFilterIndex();
      const knnOnly = new SqliteChunkIndex(db, new SqliteVectorIndex(db, { exactUpTo: 0, knnFromShare: 0 }));
      const query = { projectId, text: 'plugin', vector: axis(0), topK: 10, mode: 'dense' as const };
      const hits = await knnOnly.search({ ...query, filters: rareFilter });
      expect(hits).toHaveLength(10);
      const exact = await index.search({ ...query, filters: rareFilter });
      expect(hits.map((h) => h.chunkId)).toEqual(exact.map((h) => h.chunkId));
    });

    it('also returns the exact filtered top k through the binary-code scan', async () => {
      buildFilterIndex();
      // 100 matching chunks, above exactUpTo and below knnFromShare of the project: the scan ranks
      // them by Hamming distance and rescores the best 100 in float.
      const coded = new SqliteChunkIndex(db, new SqliteVectorIndex(db, { exactUpTo: 50 }));
      const query = { projectId, text: 'plugin', vector: axis(0), topK: 10, filters: rareFilter };
      const hits = await coded.search({ ...query, mode: 'dense' });
      const exact = await index.search({ ...query, mode: 'dense' });
      expect(hits).toHaveLength(10);
      expect(hits.map((h) => h.chunkId)).toEqual(exact.map((h) => h.chunkId));
      expect((await coded.search({ ...query, mode: 'hybrid' })).map((h) => h.chunkId).sort()).toEqual(
        (await index.search({ ...query, mode: 'hybrid' })).map((h) => h.chunkId).sort(),
      );
      // The path really reads the codes: without them it finds nothing, the exact path still does.
      db.exec('DELETE FROM chunk_vector_codes');
      expect(await coded.search({ ...query, mode: 'dense' })).toHaveLength(0);
      expect(await index.search({ ...query, mode: 'dense' })).toHaveLength(10);
    });

    it('returns the filtered top k even when a sampled estimate of the filter share is wrong', async () => {
      buildFilterIndex();
      // Sampling every 2nd document id of 2,000 reads only even ids; the rare documents have odd
      // ones, so their share is estimated at 0. The estimate only picks the strategy.
      const sampled = new SqliteChunkIndex(
        db,
        new SqliteVectorIndex(db, { exactUpTo: 50, sampleFromDocuments: 100 }),
      );
      const query = { projectId, text: 'plugin', vector: axis(0), topK: 10, mode: 'dense' as const };
      const hits = await sampled.search({ ...query, filters: rareFilter });
      const exact = await index.search({ ...query, filters: rareFilter });
      expect(hits.map((h) => h.chunkId)).toEqual(exact.map((h) => h.chunkId));
      const common = await sampled.search({
        ...query,
        filters: [{ field: 'group', op: '$eq', value: 'common' }],
      });
      expect(common).toHaveLength(10);
      for (const h of common) expect(Number(h.content.replace('plugin text ', '')) % 20).not.toBe(0);
    });

    it('supports $in, $ne and $gt on numbers and strings', async () => {
      buildFilterIndex();
      expect((await groupsOf([{ field: 'n', op: '$gt', value: N - 4 }], 'dense')).sort()).toEqual([
        'd1997',
        'd1998',
        'd1999',
      ]);
      expect((await groupsOf([{ field: 'n', op: '$in', value: [5, 40] }], 'dense')).sort()).toEqual([
        'd40',
        'd5',
      ]);
      expect(
        (await groupsOf([{ field: 'name', op: '$in', value: ['doc7', 'doc60', 'nope'] }], 'hybrid')).sort(),
      ).toEqual(['d60', 'd7']);
      const notCommon = await groupsOf([{ field: 'group', op: '$ne', value: 'common' }], 'dense');
      expect(notCommon).toHaveLength(10);
      for (const d of notCommon) expect(Number(d.slice(1)) % 20).toBe(0);
      const notFive = await groupsOf(
        [
          { field: 'n', op: '$ne', value: 5 },
          { field: 'n', op: '$lt', value: 7 },
        ],
        'dense',
      );
      expect(notFive.sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd6']);
    });
  });

  function clusteredIndex(dim: number, metadata: (i: number) => LoadedDocument['metadata'] = () => ({})) {
    vectors.attach('model-a', dim);
    const r = seeded(11);
    const centroids = Array.from({ length: 30 }, () => Array.from({ length: dim }, () => r() - 0.5));
    const point = () => {
      const c = centroids[Math.floor(r() * centroids.length)]!;
      return normalize(c.map((x) => x + (r() - 0.5) * 0.4));
    };
    const ids = ingest(
      's',
      Array.from({ length: 3000 }, (_, i) => `c${i}`),
      metadata,
    );
    vectors.store(ids.map((chunkId) => ({ chunkId, vector: point() })));
    return point;
  }

  it('the quantized kNN with rescoring finds most of the exact top 10', () => {
    const point = clusteredIndex(64);
    const quantized = new SqliteVectorIndex(db, { exactUpTo: 0 });
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const vector = point();
      const exact = new Set(vectors.nearest({ projectId, vector, k: 10 }).map((h) => h.chunkId));
      found += quantized.nearest({ projectId, vector, k: 10 }).filter((h) => exact.has(h.chunkId)).length;
    }
    expect(found / 200).toBeGreaterThan(0.8);
  });

  it('the binary-code scan of a filter finds most of the exact filtered top 10', () => {
    // A third of the chunks match: the scan, not the exact float path or the project-wide kNN.
    const point = clusteredIndex(64, (i) => ({ part: i % 3 }));
    const filters: MetadataCondition[] = [{ field: 'part', op: '$eq', value: 1 }];
    const coded = new SqliteVectorIndex(db, { exactUpTo: 0 });
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const vector = point();
      const exact = new Set(vectors.nearest({ projectId, vector, k: 10, filters }).map((h) => h.chunkId));
      expect(exact.size).toBe(10);
      found += coded
        .nearest({ projectId, vector, k: 10, filters })
        .filter((h) => exact.has(h.chunkId)).length;
    }
    expect(found / 200).toBeGreaterThan(0.8);
  });
});

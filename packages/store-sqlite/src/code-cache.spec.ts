import { sha256Hex, type LoadedDocument, type MetadataCondition } from '@kbqa/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { HammingKernel } from './hamming-kernel';
import { openDataSource, rawDatabase } from './data-source';
import { SqliteVectorIndex } from './vector-index';

const DIM = 64;

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function normalize(v: number[]): Float32Array {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return Float32Array.from(v.map((x) => x / n));
}

describe(HammingKernel.name, () => {
  it('computes the Hamming distance of every code in the interleaved layout', () => {
    const r = seeded(3);
    const words = 3;
    const n = 37;
    const groups = Math.ceil(n / 4);
    const codes = Array.from({ length: n }, () => Uint8Array.from({ length: words * 16 }, () => r() * 256));
    const query = Uint8Array.from({ length: words * 16 }, () => r() * 256);
    const kernel = new HammingKernel();
    const codesAt = 64;
    const outAt = codesAt + groups * words * 64;
    const memory = kernel.bytes();
    memory.set(query, 0);
    codes.forEach((code, slot) => {
      for (let w = 0; w < words; w++)
        memory.set(
          code.subarray(w * 16, w * 16 + 16),
          codesAt + (slot >> 2) * words * 64 + w * 64 + (slot & 3) * 16,
        );
    });
    const histogramAt = outAt + groups * 16;
    kernel.reserve(histogramAt + (words * 128 + 1) * 4);
    const { distances, histogram } = kernel.distances(codesAt, 0, outAt, groups, words, histogramAt);
    const popcount = (x: number) => x.toString(2).replace(/0/g, '').length;
    const expected = new Uint32Array(words * 128 + 1);
    // The padding slots after the last code (zero codes) count too.
    const zeros = groups * 4 - n;
    expected[query.reduce((d, b) => d + popcount(b), 0)] = zeros;
    codes.forEach((code, slot) => {
      let d = 0;
      code.forEach((b, i) => (d += popcount(b ^ (query[i] ?? 0))));
      expect(distances[slot]).toBe(d);
      expected[d] = (expected[d] ?? 0) + 1;
    });
    expect(Array.from(histogram)).toEqual(Array.from(expected));
    // A second scan starts from a zeroed histogram.
    expect(Array.from(kernel.distances(codesAt, 0, outAt, groups, words, histogramAt).histogram)).toEqual(
      Array.from(expected),
    );
  });
});

describe('SqliteVectorIndex in-memory codes', () => {
  let dir: string;
  let ds: DataSource;
  let db: BetterSqlite3.Database;
  let index: SqliteChunkIndex;
  /** Exact float search over every vector: the reference. */
  let exact: SqliteVectorIndex;
  /** Always the kNN path (exactUpTo 0), on the in-memory codes. */
  let memory: SqliteVectorIndex;
  const projectId = 1;
  const r = seeded(11);
  const centroids = Array.from({ length: 20 }, () => Array.from({ length: DIM }, () => r() - 0.5));
  const point = () => {
    const c = centroids[Math.floor(r() * centroids.length)] ?? [];
    return normalize(c.map((x) => x + (r() - 0.5) * 0.5));
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-codes-'));
    ds = await openDataSource({ file: join(dir, 'kb.sqlite') });
    db = rawDatabase(ds);
    index = new SqliteChunkIndex(db);
    db.prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now'), ('q', 'now')").run();
    index.vectors.attach('model-a', DIM);
    exact = new SqliteVectorIndex(db, { exactUpTo: Number.MAX_SAFE_INTEGER });
    memory = new SqliteVectorIndex(db, { exactUpTo: 0, knnFromShare: 0 });
  });
  afterEach(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  function ingest(
    source: string,
    n: number,
    metadata: (i: number) => LoadedDocument['metadata'] = () => ({}),
    project = projectId,
  ) {
    const { chunkIds } = index.replaceSource({
      projectId: project,
      source,
      kind: 'documents',
      documents: Array.from({ length: n }, (_, i) => ({
        document: { source: `${source}/${i}`, content: 'x', metadata: metadata(i) },
        chunks: [
          {
            ordinal: 0,
            content: `${source} chunk ${i}`,
            headingPath: [],
            title: 'T',
            link: 'L',
            kind: 'content' as const,
            contentHash: sha256Hex(`${source} chunk ${i}`),
          },
        ],
      })),
    });
    index.vectors.store(chunkIds.map((chunkId) => ({ chunkId, vector: point() })));
    return chunkIds;
  }

  const ids = (index: SqliteVectorIndex, vector: Float32Array, k = 5, filters?: MetadataCondition[]) =>
    index.nearest({ projectId, vector, k, filters }).map((h) => h.chunkId);

  it('returns the exact top k when the candidates cover the project', () => {
    ingest('s', 150);
    ingest('other', 50, () => ({}), 2);
    for (let q = 0; q < 10; q++) {
      const vector = point();
      // k 5 × 40 candidates = 200 ≥ the project's 150 vectors: every one is rescored in float.
      expect(ids(memory, vector)).toEqual(ids(exact, vector));
    }
    expect(memory.codeMemoryUsed()).toBeGreaterThan(0);
  });

  it('finds most of the exact top 10 when it rescores a share of the project', () => {
    ingest('s', 3000);
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const vector = point();
      const truth = new Set(ids(exact, vector, 10));
      found += ids(memory, vector, 10).filter((id) => truth.has(id)).length;
    }
    expect(found / 200).toBeGreaterThan(0.9);
  });

  it('sees chunks added and deleted after the codes were loaded', () => {
    ingest('s', 100);
    const vector = point();
    expect(ids(memory, vector)).toEqual(ids(exact, vector));
    // A new chunk holding the query vector itself must come first; a deleted source must go.
    const [added] = index.replaceSource({
      projectId,
      source: 'new',
      kind: 'documents',
      documents: [
        {
          document: { source: 'new', content: 'x' },
          chunks: [
            {
              ordinal: 0,
              content: 'n',
              headingPath: [],
              title: 'T',
              link: 'L',
              kind: 'content',
              contentHash: sha256Hex('n'),
            },
          ],
        },
      ],
    }).chunkIds;
    index.vectors.store([{ chunkId: added ?? 0, vector }]);
    expect(ids(memory, vector)[0]).toBe(added);
    index.deleteSource(projectId, 's');
    expect(ids(memory, vector)).toEqual([added]);
    // A replaced vector moves the chunk.
    index.vectors.store([{ chunkId: added ?? 0, vector: point() }]);
    expect(ids(memory, vector)).toEqual(ids(exact, vector));
  });

  it('sees writes another connection committed to the same file', async () => {
    ingest('s', 100);
    // Kept, so that the new chunk gets an id the cache has never held.
    ingest('t', 50);
    const vector = point();
    expect(ids(memory, vector)).toEqual(ids(exact, vector));
    const other = await openDataSource({ file: join(dir, 'kb.sqlite') });
    try {
      const writer = new SqliteChunkIndex(rawDatabase(other));
      writer.deleteSource(projectId, 's');
      const { chunkIds } = writer.replaceSource({
        projectId,
        source: 'elsewhere',
        kind: 'documents',
        documents: [
          {
            document: { source: 'e', content: 'x' },
            chunks: [
              {
                ordinal: 0,
                content: 'e',
                headingPath: [],
                title: 'T',
                link: 'L',
                kind: 'content',
                contentHash: sha256Hex('e'),
              },
            ],
          },
        ],
      });
      writer.vectors.store(chunkIds.map((chunkId) => ({ chunkId, vector })));
      const got = ids(memory, vector);
      expect(got[0]).toBe(chunkIds[0]);
      expect(got).toEqual(ids(exact, vector));
      expect(memory.codeMemoryUsed()).toBeGreaterThan(0);
    } finally {
      await other.destroy();
    }
  });

  it('reloads when the change log was pruned past its position', () => {
    ingest('s', 100);
    const vector = point();
    ids(memory, vector);
    const added = ingest('late', 1);
    index.vectors.store([{ chunkId: added[0] ?? 0, vector }]);
    db.exec('DELETE FROM vector_changes WHERE seq < (SELECT max(seq) FROM vector_changes)');
    expect(ids(memory, vector)[0]).toBe(added[0]);
    expect(ids(memory, vector)).toEqual(ids(exact, vector));
  });

  it('applies metadata filters to the candidates it rescores', () => {
    ingest('s', 400, (i) => ({ part: i % 4 }));
    const filters: MetadataCondition[] = [{ field: 'part', op: '$eq', value: 2 }];
    const part = db.prepare(
      "SELECT json_extract(d.metadata, '$.part') AS part FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?",
    );
    for (let q = 0; q < 5; q++) {
      const vector = point();
      const got = ids(memory, vector, 10, filters);
      expect(got).toHaveLength(10);
      for (const id of got) expect(part.get(id)).toEqual({ part: 2 });
      expect(got).toEqual(ids(exact, vector, 10, filters));
    }
  });

  it('keeps within its memory budget and falls back to sqlite-vec for a project over it', () => {
    ingest('s', 200);
    const tiny = new SqliteVectorIndex(db, { exactUpTo: 0, codeMemoryBytes: 1_000 });
    const vector = point();
    expect(ids(tiny, vector)).toEqual(ids(exact, vector));
    expect(tiny.codeMemoryUsed()).toBe(0);
  });

  it('does not use the codes inside a write transaction, whose changes could still roll back', () => {
    ingest('s', 100);
    const vector = point();
    db.transaction(() => {
      expect(ids(memory, vector)).toEqual(ids(exact, vector));
    })();
    expect(memory.codeMemoryUsed()).toBe(0);
  });
});

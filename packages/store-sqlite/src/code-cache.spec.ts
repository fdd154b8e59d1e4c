import { sha256Hex, type LoadedDocument, type MetadataCondition } from '@kbqa/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { HammingKernel, type Scan } from './hamming-kernel';
import { ScanThread } from './scan-thread';
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

/** A kernel holding `n` random codes of `words` 16-byte words, the scan of them, and the expected result. */
function kernelWithCodes(kernel: HammingKernel, seed: number, n: number, words: number) {
  const r = seeded(seed);
  const groups = Math.ceil(n / 4);
  const codes = Array.from({ length: n }, () => Uint8Array.from({ length: words * 16 }, () => r() * 256));
  const query = Uint8Array.from({ length: words * 16 }, () => r() * 256);
  const codesAt = 64;
  const outAt = codesAt + groups * words * 64;
  const histogramAt = outAt + groups * 16;
  kernel.reserve(histogramAt + (words * 128 + 1) * 4);
  const memory = kernel.bytes();
  memory.set(query, 0);
  codes.forEach((code, slot) => {
    for (let w = 0; w < words; w++)
      memory.set(
        code.subarray(w * 16, w * 16 + 16),
        codesAt + (slot >> 2) * words * 64 + w * 64 + (slot & 3) * 16,
      );
  });
  const popcount = (x: number) => x.toString(2).replace(/0/g, '').length;
  const distances = codes.map((code) => code.reduce((d, b, i) => d + popcount(b ^ (query[i] ?? 0)), 0));
  const histogram = new Array<number>(words * 128 + 1).fill(0);
  // The padding slots after the last code (zero codes) count too.
  const zeroDistance = query.reduce((d, b) => d + popcount(b), 0);
  histogram[zeroDistance] = (histogram[zeroDistance] ?? 0) + groups * 4 - n;
  for (const d of distances) histogram[d] = (histogram[d] ?? 0) + 1;
  const scan: Scan = { codes: codesAt, query: 0, out: outAt, groups, words, histogram: histogramAt };
  return { scan, distances, histogram };
}

describe(HammingKernel.name, () => {
  it('computes the Hamming distance of every code in the interleaved layout', () => {
    const kernel = new HammingKernel();
    const { scan, distances, histogram } = kernelWithCodes(kernel, 3, 37, 3);
    const got = kernel.distances(scan);
    expect(Array.from(got.distances).slice(0, 37)).toEqual(distances);
    expect(Array.from(got.histogram)).toEqual(histogram);
    // A second scan starts from a zeroed histogram.
    expect(Array.from(kernel.distances(scan).histogram)).toEqual(histogram);
  });

  it('computes the same in shared memory, on the calling thread and on a scan thread', async () => {
    const kernel = new HammingKernel({ shared: true });
    expect(kernel.sharedMemory).toBeDefined();
    expect(new HammingKernel().sharedMemory).toBeUndefined();
    const { scan, distances, histogram } = kernelWithCodes(kernel, 5, 1001, 3);
    expect(Array.from(kernel.distances(scan).distances).slice(0, 1001)).toEqual(distances);
    const thread = new ScanThread();
    try {
      for (let round = 0; round < 3; round++) {
        new Uint32Array(kernel.bytes().buffer, scan.out, 1004).fill(7);
        kernel.clearHistogram(scan);
        thread.start(kernel.sharedMemory!, scan);
        thread.finish();
        const got = kernel.result(scan);
        expect(Array.from(got.distances).slice(0, 1001)).toEqual(distances);
        expect(Array.from(got.histogram)).toEqual(histogram);
      }
      // Another kernel's memory is handed over with its first scan.
      const other = new HammingKernel({ shared: true });
      const second = kernelWithCodes(other, 9, 64, 2);
      other.clearHistogram(second.scan);
      thread.start(other.sharedMemory!, second.scan);
      thread.finish();
      expect(Array.from(other.result(second.scan).distances)).toEqual(second.distances);
    } finally {
      await thread.close();
    }
    expect(thread.usable).toBe(false);
    expect(() => thread.start(kernel.sharedMemory!, scan)).toThrow(/closed/);
  });

  it('gives up on a scan thread that stopped answering', async () => {
    const kernel = new HammingKernel({ shared: true });
    const { scan } = kernelWithCodes(kernel, 5, 8, 1);
    const thread = new ScanThread({ finishWithinMs: 200 });
    // The thread dies; the next scan must fail within the limit, not wait forever.
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    thread.start(kernel.sharedMemory!, scan);
    expect(() => thread.finish()).toThrow(/did not answer/);
    expect(thread.usable).toBe(false);
    await thread.close();
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
    await memory.close();
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

  it('answers the same through its scan thread as on the calling thread', async () => {
    ingest('s', 3000);
    const inline = new SqliteVectorIndex(db, { exactUpTo: 0, knnFromShare: 0, scanThread: false });
    for (let q = 0; q < 10; q++) {
      const vector = point();
      expect(ids(memory, vector, 10)).toEqual(ids(inline, vector, 10));
    }
    await inline.close();
  });

  it('runs a begun scan while other reads go on, and collects it later', () => {
    ingest('s', 3000);
    const vector = point();
    const expected = ids(memory, vector, 10);
    const collect = memory.beginNearest({ projectId, vector, k: 10 });
    // Reads on the same connection meanwhile, as hybrid search ranks its lexical side.
    expect(index.rankLexical({ projectId, text: 'chunk', topK: 3, mode: 'lexical' })).toHaveLength(3);
    expect(collect().map((h) => h.chunkId)).toEqual(expected);
  });

  it('waits for a scan nobody collected before the codes change', () => {
    ingest('s', 3000);
    const vector = point();
    memory.beginNearest({ projectId, vector: point(), k: 10 });
    // Never collected: the next search must still see new chunks and a clean scan.
    const added = ingest('late', 1);
    index.vectors.store([{ chunkId: added[0] ?? 0, vector }]);
    const got = ids(memory, vector, 10);
    expect(got[0]).toBe(added[0]);
    const inline = new SqliteVectorIndex(db, { exactUpTo: 0, knnFromShare: 0, scanThread: false });
    expect(got).toEqual(ids(inline, vector, 10));
  });

  it('keeps answering on the calling thread once its scan thread is closed', async () => {
    ingest('s', 500);
    const vector = point();
    const before = ids(memory, vector, 10);
    await memory.close();
    expect(ids(memory, vector, 10)).toEqual(before);
    expect(
      memory
        .beginNearest({ projectId, vector, k: 10 })()
        .map((h) => h.chunkId),
    ).toEqual(before);
  });

  it('runs hybrid search with its dense scan on the scan thread, ranking as on the calling thread', async () => {
    ingest('s', 3000);
    const inline = new SqliteVectorIndex(db, { exactUpTo: 0, knnFromShare: 0, scanThread: false });
    const threaded = new SqliteChunkIndex(db, memory);
    const plain = new SqliteChunkIndex(db, inline);
    const start = jest.spyOn(ScanThread.prototype, 'start');
    try {
      for (let q = 0; q < 5; q++) {
        const query = {
          projectId,
          text: `s chunk ${q * 7}`,
          vector: point(),
          topK: 10,
          mode: 'hybrid' as const,
        };
        const got = await threaded.search(query);
        expect(got).toHaveLength(10);
        expect(got).toEqual(await plain.search(query));
      }
      expect(start).toHaveBeenCalledTimes(5);
    } finally {
      start.mockRestore();
      await inline.close();
    }
  });
});

import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import {
  contractDraft,
  describeChunkStoreContract,
  FakeEmbedder,
  type ChunkStoreContractFixture,
} from '@kbqa/core/testing';
import type { NewMessage } from '@kbqa/core';
import { Pool } from 'pg';
import {
  MIGRATIONS,
  openPostgresChunkStore,
  PostgresChunkStore,
  PostgresRequestRecords,
  PostgresVectorStore,
} from '../src';
import { contractFixtures, startPglite } from './postgres-servers';

/** PGlite starts in seconds on a quiet machine and in tens of seconds on a loaded one. */
const START_MS = 180_000;

describe('PostgresChunkStore on PGlite with pgvector', () => {
  let server: Awaited<ReturnType<typeof startPglite>>;
  let pool: Pool;
  let fixture: () => Promise<ChunkStoreContractFixture>;

  beforeAll(async () => {
    server = await startPglite();
    // PGlite is one backend: one connection, so a transaction's client never waits on another.
    pool = new Pool({ host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres', max: 1 });
    fixture = await contractFixtures(pool);
  }, START_MS);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('finds pgvector and migrates once however often it is opened', async () => {
    const store = await openPostgresChunkStore(pool);
    expect(store.vectorsAvailable).toBe(true);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM kbqa_migrations');
    expect(rows[0]!.n).toBe(MIGRATIONS.length);
  });

  it('stores which kind of key started a conversation, server when none is said', async () => {
    await openPostgresChunkStore(pool);
    await pool.query("INSERT INTO projects (id, name, created_at) VALUES (900, 'starters', '2026-11-29')");
    const records = new PostgresRequestRecords(pool);
    const first: Omit<NewMessage, 'projectId' | 'conversationId'> = {
      sender: 'Human',
      text: 'q',
      replyTo: null,
      sources: [],
      complete: true,
    };
    const ids = [
      await records.createConversation(900, null, 'anon'),
      await records.createConversation(900, null),
      (await records.startConversation(900, null, first, 'anon')).conversationId,
      (await records.startConversation(900, null, first)).conversationId,
    ];
    const { rows } = await pool.query<{ id: number; started_by: string }>(
      'SELECT id, started_by FROM conversations WHERE project_id = 900',
    );
    // Ids are bigint (random ids); this pool reads int8 as text.
    const starters = new Map(rows.map((r) => [Number(r.id), r.started_by]));
    expect(ids.map((id) => starters.get(id))).toEqual(['anon', 'server', 'anon', 'server']);
  });

  it('finds the nearest vectors of a small project through the HNSW index (iterative scan)', async () => {
    await fixture();
    const store = new PostgresChunkStore(pool, new PostgresVectorStore(pool, true, { exactUpTo: 0 }));
    const embedder = new FakeEmbedder(64);
    await store.vectors.attach(embedder.id, embedder.dimension);
    const drafts = (texts: string[]) => texts.map((t, i) => contractDraft(t, i));
    const page = (projectId: number, source: string, texts: string[]) => ({
      projectId,
      source,
      kind: 'documents' as const,
      documents: [{ document: { source, content: texts.join('\n') }, chunks: drafts(texts) }],
    });
    await store.replaceSources([
      page(
        2,
        'big',
        Array.from({ length: 300 }, (_, i) => `plugin hook number ${i}`),
      ),
    ]);
    await store.replaceSources([
      page(1, 'small', ['decorators extend it', 'schemas validate', 'hooks run in order']),
    ]);
    const pending = await store.vectors.pending(1000, 0);
    const vectors = await embedder.embed(pending.map((p) => p.text));
    await store.vectors.store(pending.map((p, i) => ({ chunkId: p.chunkId, vector: vectors[i]! })));
    const [vector] = await embedder.embed(['plugin hook number 7']);
    // 303 rows are cheaper to scan (or to fetch by project and sort) than to search through the
    // index: make the planner use it, as it does on a large table (one pooled connection, so the setting holds for the searches).
    await pool.query('SET enable_seqscan = off; SET enable_sort = off');
    try {
      const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT chunk_id FROM chunk_vectors WHERE project_id = 1
         ORDER BY embedding <=> '[${Array.from(vector!).join(',')}]'::vector LIMIT 3`,
      );
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('chunk_vectors_hnsw');
      // Without the iterative scan, ef_search (40) candidates of the big project fill the index's
      // answer and the filter leaves none of the small one.
      const hits = await store.search({ projectId: 1, text: '', vector, topK: 3, mode: 'dense' });
      expect(hits.map((h) => h.source)).toEqual(['small', 'small', 'small']);
      // Approximate: the big project's own passages, not necessarily the exact nearest.
      const big = await store.search({ projectId: 2, text: '', vector, topK: 3, mode: 'dense' });
      expect(big.map((h) => h.source)).toEqual(['big', 'big', 'big']);
      // The settings stay on the connection and change when a search needs more candidates.
      const efSearch = async () =>
        (await pool.query<{ v: string }>("SELECT current_setting('hnsw.ef_search') AS v")).rows[0]!.v;
      expect(await efSearch()).toBe('40');
      expect(await store.search({ projectId: 2, text: '', vector, topK: 30, mode: 'dense' })).toHaveLength(
        30,
      );
      expect(await efSearch()).toBe('60');
    } finally {
      await pool.query('RESET enable_seqscan; RESET enable_sort');
    }
  });

  it.each([
    ['scored exactly', 1_000],
    ['through the HNSW index', 0],
  ])('gives exact similarities of the chunks asked for beside the nearest ones, %s', async (_, exactUpTo) => {
    await fixture();
    const vectors = new PostgresVectorStore(pool, true, { exactUpTo });
    const store = new PostgresChunkStore(pool, vectors);
    const embedder = new FakeEmbedder(64);
    await vectors.attach(embedder.id, embedder.dimension);
    const texts = ['routes and hooks', 'hooks run in order', 'schemas validate bodies', 'logging with pino'];
    await store.replaceSources([
      {
        projectId: 1,
        source: 'page',
        kind: 'documents' as const,
        documents: [
          {
            document: { source: 'page', content: texts.join('\n') },
            chunks: texts.map((t, i) => contractDraft(t, i)),
          },
        ],
      },
    ]);
    const pending = await vectors.pending(100, 0);
    const stored = await embedder.embed(pending.map((p) => p.text));
    await vectors.store(pending.map((p, i) => ({ chunkId: p.chunkId, vector: stored[i]! })));
    const [query] = await embedder.embed(['hooks run']);
    const ids = pending.map((p) => p.chunkId);
    const { nearest, similarities } = await vectors.nearestAndScored(
      { projectId: 1, vector: query!, k: 1, filters: [] },
      ids,
    );
    const cosine = (a: Float32Array, b: Float32Array) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!;
        na += a[i]! * a[i]!;
        nb += b[i]! * b[i]!;
      }
      return Math.max(0, dot / Math.sqrt(na * nb));
    };
    expect(nearest).toHaveLength(1);
    expect(nearest[0]!.chunkId).toBe(ids[1]);
    // Every chunk asked for, including the three outside the nearest one, with its own score.
    expect([...similarities.keys()].sort((a, b) => a - b)).toEqual(ids);
    ids.forEach((id, i) => expect(similarities.get(id)).toBeCloseTo(cosine(query!, stored[i]!), 5));
  });

  describeChunkStoreContract('PostgresChunkStore (PGlite, pgvector)', () => fixture(), {
    vectors: true,
    timeoutMs: 60_000,
  });
});

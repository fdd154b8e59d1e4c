import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { contractDraft, FakeEmbedder } from '@kbqa/core/testing';
import { openDataSource, rawDatabase, SqliteChunkIndex } from '@kbqa/store-sqlite';
import { Pool } from 'pg';
import { copySqliteToPostgres, openPostgresChunkStore, type CopiedTable } from '../src';
import { createScratchDatabase, SERVER, serverReachable, startPglite } from './postgres-servers';

const START_MS = 180_000;
const NOW = '2026-11-25T10:00:00.000000';

/**
 * A SQLite deployment in memory: one project with a key and a conversation (raw rows, as the API
 * writes them), two sources of chunks written by the SQLite store, and, with `embed`, their
 * vectors from a fake embedder.
 */
async function sqliteDeployment(embed: boolean): Promise<{
  dataSource: Awaited<ReturnType<typeof openDataSource>>;
  index: SqliteChunkIndex;
}> {
  const dataSource = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(dataSource);
  db.prepare(
    "INSERT INTO projects (id, name, export_enabled, created_at, allowed_origins) VALUES (7, 'docs', 1, ?, '[\"https://a.example\"]')",
  ).run(NOW);
  db.prepare(
    "INSERT INTO api_keys (id, project_id, kind, prefix, key_hash, created_at) VALUES (3, 7, 'server', 'kbqa_s', 'hash-1', ?)",
  ).run(NOW);
  db.prepare(
    "INSERT INTO conversations (id, project_id, started_by, created_at) VALUES (11, 7, 'anon', ?)",
  ).run(NOW);
  db.prepare(
    `INSERT INTO messages (id, project_id, conversation_id, sender, text, sources, rating_value, complete, created_at)
     VALUES (20, 7, 11, 'Human', 'How?', '[]', 0, 1, ?), (21, 7, 11, 'AI', 'Like so.', '[{"link":"a"}]', 1, 0, ?)`,
  ).run(NOW, NOW);
  const index = new SqliteChunkIndex(db);
  const page = (source: string, texts: string[]) => ({
    projectId: 7,
    source,
    kind: 'documents' as const,
    version: { etag: `"${source}"` },
    documents: [
      {
        document: { source, content: texts.join('\n'), metadata: { lang: 'en' } },
        chunks: texts.map((t, i) => contractDraft(t, i, { headingPath: ['Guide', source] })),
      },
    ],
  });
  index.replaceSources([
    page('routing', ['Declare a route with app.route and a path pattern.', 'Routes match in order.']),
    page('logging', ['Set KBQA_LOG_LEVEL to debug to see every request.', '```js\nlogger.info("x")\n```']),
  ]);
  if (embed) {
    const embedder = new FakeEmbedder(16);
    index.vectors.attach(embedder.id, embedder.dimension);
    const pending = index.vectors.pending(100, 0);
    const vectors = await embedder.embed(pending.map((p) => p.text));
    index.vectors.store(pending.map((p, i) => ({ chunkId: p.chunkId, vector: vectors[i]! })));
  }
  return { dataSource, index };
}

/** A pgvector text literal read back as the float32 bytes it holds. */
function vectorBytes(text: string): Buffer {
  const floats = Float32Array.from(text.slice(1, -1).split(',').map(Number));
  return Buffer.from(floats.buffer);
}

describe(copySqliteToPostgres.name, () => {
  describe('onto PGlite with pgvector', () => {
    let server: Awaited<ReturnType<typeof startPglite>>;
    let pool: Pool;
    let source: Awaited<ReturnType<typeof sqliteDeployment>>;

    beforeAll(async () => {
      server = await startPglite();
      pool = new Pool({
        host: '127.0.0.1',
        port: server.port,
        user: 'postgres',
        database: 'postgres',
        max: 1,
      });
      source = await sqliteDeployment(true);
    }, START_MS);
    afterAll(async () => {
      await source?.dataSource.destroy();
      await pool?.end();
      await server?.stop();
    });

    it('rolls back a copy that fails half way, leaving the target empty', async () => {
      const broken = await sqliteDeployment(false);
      try {
        // The second chunk's heading path is not JSON: the copy fails after records and sources.
        rawDatabase(broken.dataSource)
          .prepare("UPDATE chunks SET heading_path = 'not json' WHERE id = 2")
          .run();
        await expect(
          copySqliteToPostgres(rawDatabase(broken.dataSource), pool, { batchSize: 1 }),
        ).rejects.toThrow();
      } finally {
        await broken.dataSource.destroy();
      }
      const { rows } = await pool.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM projects) + (SELECT count(*) FROM sources) + (SELECT count(*) FROM chunks)
           + (SELECT count(*) FROM messages))::int AS n`,
      );
      expect(rows[0]!.n).toBe(0);
    });

    it('copies records, chunks and vectors keeping ids, the vectors byte for byte', async () => {
      const progress: CopiedTable[] = [];
      const result = await copySqliteToPostgres(rawDatabase(source.dataSource), pool, {
        batchSize: 2,
        onProgress: (t) => progress.push(t),
      });
      expect(result.vectors).toEqual({ status: 'copied', embedderId: 'fake-bow-16', dimension: 16, rows: 4 });
      expect(progress).toEqual(result.tables);
      expect(Object.fromEntries(result.tables.map((t) => [t.table, t.rows]))).toMatchObject({
        projects: 1,
        api_keys: 1,
        conversations: 1,
        messages: 2,
        sources: 2,
        documents: 2,
        chunks: 4,
        chunk_vectors: 4,
      });

      const [project] = (await pool.query('SELECT id, name, export_enabled, allowed_origins FROM projects'))
        .rows;
      expect(project).toEqual({
        id: 7,
        name: 'docs',
        export_enabled: true,
        allowed_origins: '["https://a.example"]',
      });
      // Conversation and message ids are bigint (random ids); this pool reads int8 as text.
      const messages = (
        await pool.query('SELECT id::int AS id, rating_value, complete, sources FROM messages ORDER BY id')
      ).rows;
      expect(messages).toEqual([
        { id: 20, rating_value: 0, complete: true, sources: '[]' },
        { id: 21, rating_value: 1, complete: false, sources: '[{"link":"a"}]' },
      ]);

      // Who started a conversation decides what an anon key may do with it: it moves with the copy.
      const conversations = (await pool.query('SELECT id::int AS id, started_by FROM conversations')).rows;
      expect(conversations).toEqual([{ id: 11, started_by: 'anon' }]);

      const db = rawDatabase(source.dataSource);
      const sqliteSources = db.prepare('SELECT id, source, version FROM sources ORDER BY id').all() as Array<{
        id: number;
        source: string;
        version: string;
      }>;
      const pgSources = (await pool.query('SELECT id, source, version FROM sources ORDER BY id')).rows;
      expect(pgSources).toEqual(
        sqliteSources.map((s) => ({ ...s, version: JSON.parse(s.version) as unknown })),
      );
      const documents = (await pool.query('SELECT metadata FROM documents ORDER BY id')).rows;
      expect(documents).toEqual([{ metadata: { lang: 'en' } }, { metadata: { lang: 'en' } }]);

      // Vectors: the same float32 bytes as the SQLite file holds, under the same embedder.
      const sqliteVectors = db
        .prepare('SELECT chunk_id, embedding FROM chunk_vectors ORDER BY chunk_id')
        .all() as Array<{ chunk_id: number; embedding: Buffer }>;
      const pgVectors = (
        await pool.query<{ chunk_id: number; embedding: string }>(
          'SELECT chunk_id, embedding::text AS embedding FROM chunk_vectors ORDER BY chunk_id',
        )
      ).rows;
      expect(pgVectors.map((v) => v.chunk_id)).toEqual(sqliteVectors.map((v) => v.chunk_id));
      pgVectors.forEach((v, i) =>
        expect(vectorBytes(v.embedding).equals(sqliteVectors[i]!.embedding)).toBe(true),
      );
      const embedded = (await pool.query('SELECT DISTINCT embedded_with FROM chunks')).rows;
      expect(embedded).toEqual([{ embedded_with: 'fake-bow-16' }]);

      // The copy searches as the SQLite store does: lexical (tsvector, postings) and dense.
      const store = await openPostgresChunkStore(pool);
      await store.vectors.attach('fake-bow-16', 16);
      const question = { projectId: 7, text: 'How do I set the log level?', topK: 3 };
      const [sqliteTop] = await source.index.search({ ...question, mode: 'lexical' });
      const [pgTop] = await store.search({ ...question, mode: 'lexical' });
      expect(pgTop?.chunkId).toBe(sqliteTop?.chunkId);
      const [vector] = await new FakeEmbedder(16).embed(['Routes match in order.']);
      const [dense] = await store.search({ ...question, text: '', vector, mode: 'dense' });
      expect(dense?.content).toBe('Routes match in order.');
      const postings = (
        await pool.query<{ n: number }>('SELECT count(DISTINCT chunk_id)::int AS n FROM chunk_postings')
      ).rows[0]!.n;
      expect(postings).toBe(4);

      // Identity sequences continue after the copied ids.
      const next = await pool.query<{ id: number }>(
        "INSERT INTO projects (name, created_at) VALUES ('new', '2026-11-26T00:00:00.000000') RETURNING id",
      );
      expect(next.rows[0]!.id).toBe(8);
      const written = await store.replaceSources([
        {
          projectId: 8,
          source: 'new',
          kind: 'documents',
          documents: [
            { document: { source: 'new', content: 'x' }, chunks: [contractDraft('fresh words', 0)] },
          ],
        },
      ]);
      expect(written[0]!.sourceId).toBe(3);
      expect(written[0]!.chunkIds).toEqual([5]);
    });

    it('refuses a target that already holds projects, changing nothing', async () => {
      await expect(copySqliteToPostgres(rawDatabase(source.dataSource), pool)).rejects.toThrow(/not empty/);
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM projects');
      expect(rows[0]!.n).toBe(2);
    });
  });

  (serverReachable ? describe : describe.skip)("onto the machine's PostgreSQL server", () => {
    it('copies a deployment with vectors lexical-only when the server has no pgvector, saying so', async () => {
      const scratch = await createScratchDatabase();
      const pool = new Pool({ ...SERVER, database: scratch.name });
      pool.on('error', () => undefined);
      const source = await sqliteDeployment(true);
      try {
        const result = await copySqliteToPostgres(rawDatabase(source.dataSource), pool);
        const store = await openPostgresChunkStore(pool);
        if (store.vectorsAvailable) {
          expect(result.vectors).toMatchObject({ status: 'copied', rows: 4 });
        } else {
          expect(result.vectors).toEqual({ status: 'no-pgvector', embedderId: 'fake-bow-16', rows: 4 });
          const pending = await store.vectors.countPending();
          expect(pending).toBe(4);
        }
        const [hit] = await store.search({ projectId: 7, text: 'log level', topK: 1, mode: 'lexical' });
        expect(hit?.source).toBe('logging');
      } finally {
        await source.dataSource.destroy();
        await pool.end();
        await scratch.drop();
      }
    }, 60_000);
  });
});

import { describe, expect, it, beforeAll, afterAll, jest } from '@jest/globals';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import {
  contractDraft,
  describeChunkStoreContract,
  describeRequestRecordsContract,
  type ChunkStoreContractFixture,
} from '@kbqa/core/testing';
import { Client, Pool } from 'pg';
import {
  MIGRATIONS,
  migrate,
  openPostgresChunkStore,
  PostgresRequestRecords,
  recordPoolConfig,
  type PostgresChunkStore,
} from '../src';
import { POSTINGS_SELECT } from '../src/migrations';
import {
  contractFixtures,
  createScratchDatabase,
  SERVER,
  serverHasPgvector,
  serverReachable,
} from './postgres-servers';

// Skipped (and said so by test/report-skips.js) when nothing answers on 127.0.0.1:5432.
const describeServer = serverReachable ? describe : describe.skip;

describeServer('PostgresChunkStore on the PostgreSQL server', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: Pool;
  let fixture: () => Promise<ChunkStoreContractFixture>;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = new Pool({ ...SERVER, database: scratch.name, max: 4 });
    // Idle connections cut by the forced drop after the tests are expected, not unhandled errors.
    pool.on('error', () => undefined);
    fixture = await contractFixtures(pool);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  it('migrates an empty database once when several processes open it at the same moment', async () => {
    const fresh = await createScratchDatabase();
    const pools = [1, 2, 3, 4].map(() => new Pool({ ...SERVER, database: fresh.name, max: 1 }));
    // The forced drop at the end may reach a connection the pool is still closing; its
    // termination is expected then, not an unhandled error (CI saw one).
    for (const p of pools) p.on('error', () => undefined);
    try {
      const stores = await Promise.all(pools.map((p) => openPostgresChunkStore(p)));
      expect(stores.map((s) => s.vectorsAvailable)).toEqual(stores.map(() => serverHasPgvector));
      const { rows } = await pools[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM kbqa_migrations');
      expect(rows[0]!.n).toBe(MIGRATIONS.length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });

  it('migrates an empty database once when two operating-system processes start on it together', async () => {
    const fresh = await createScratchDatabase();
    const url = `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${fresh.name}`;
    // Each child reports over IPC, then ends its pool and exits; waited for to the exit, so no
    // connection of theirs is left for the forced drop to cut.
    const child = () =>
      new Promise<unknown>((resolve, reject) => {
        const p = fork(join(__dirname, 'migrate-child.js'), [url], { stdio: 'inherit' });
        let report: unknown;
        p.once('message', (m) => (report = m));
        p.once('exit', (code) =>
          report === undefined
            ? reject(new Error(`the migrating process exited with ${code} before reporting`))
            : resolve(report),
        );
      });
    // A plain client, ended (socket closed) before the forced drop: an idle pool connection could
    // still be open then and receive the drop's termination as an unhandled error.
    const client = new Client({ ...SERVER, database: fresh.name });
    try {
      expect(await Promise.all([child(), child()])).toEqual([
        { ok: true, vectorsAvailable: serverHasPgvector },
        { ok: true, vectorsAvailable: serverHasPgvector },
      ]);
      await client.connect();
      const { rows } = await client.query<{ id: number }>('SELECT id FROM kbqa_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      // The records tables are there, empty, with the key lookup's unique index.
      const tables = await client.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual(
        expect.arrayContaining([
          'api_keys',
          'conversations',
          'ingestion_tasks',
          'messages',
          'projects',
          'tools',
        ]),
      );
    } finally {
      await client.end();
      await fresh.drop();
    }
  }, 60_000);

  it('keeps the ids of conversations and messages stored before ids were random, and adds random ones', async () => {
    const fresh = await createScratchDatabase();
    const pool = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${fresh.name}`),
      max: 1,
    });
    pool.on('error', () => undefined);
    try {
      // A database of the release before: every migration up to random ids, one sequential row each.
      const before = MIGRATIONS.filter((m) => m.name !== 'random-conversation-ids');
      expect(before).toHaveLength(MIGRATIONS.length - 1);
      await pool.query(
        'CREATE TABLE kbqa_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const m of before) {
        for (const sql of m.statements) await pool.query(sql);
        await pool.query('INSERT INTO kbqa_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
      }
      await pool.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now')");
      await pool.query(
        "INSERT INTO conversations (project_id, created_at) VALUES (1, '2026-01-01T00:00:00.000000')",
      );
      await pool.query(
        "INSERT INTO messages (project_id, conversation_id, sender, text, created_at) VALUES (1, 1, 'Human', 'old', '2026-01-01T00:00:00.000000')",
      );

      await migrate(pool);
      const store = new PostgresRequestRecords(pool);
      const answer = await store.addMessage({
        projectId: 1,
        conversationId: 1,
        sender: 'AI',
        text: 'new',
        replyTo: 1,
        sources: [],
        complete: true,
      });
      const started = await store.startConversation(1, null, {
        sender: 'Human',
        text: 'another',
        replyTo: null,
        sources: [],
        complete: true,
      });
      for (const id of [answer, started.conversationId, started.messageId]) {
        expect(id).toBeGreaterThanOrEqual(2 ** 32);
      }
      const { rows } = await pool.query<{ id: number; conversation_id: number; text: string }>(
        'SELECT id, conversation_id, text FROM messages WHERE conversation_id = 1 ORDER BY created_at, id',
      );
      expect(rows).toEqual([
        { id: 1, conversation_id: 1, text: 'old' },
        { id: answer, conversation_id: 1, text: 'new' },
      ]);
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });

  it('gives existing conversations the channel analytics inferred: platform thread, else key kind', async () => {
    const fresh = await createScratchDatabase();
    const pool = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${fresh.name}`),
      max: 1,
    });
    pool.on('error', () => undefined);
    try {
      // A database of the release before: every migration up to conversation channels.
      const before = MIGRATIONS.filter((m) => m.name !== 'conversation-channel');
      expect(before).toHaveLength(MIGRATIONS.length - 1);
      await pool.query(
        'CREATE TABLE kbqa_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const m of before) {
        for (const sql of m.statements) await pool.query(sql);
        await pool.query('INSERT INTO kbqa_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
      }
      const at = '2026-01-01T00:00:00.000000';
      await pool.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now')");
      await pool.query(
        `INSERT INTO conversations (id, project_id, started_by, created_at)
         VALUES (1, 1, 'server', $1), (2, 1, 'anon', $1), (3, 1, 'server', $1), (4, 1, 'server', $1)`,
        [at],
      );
      await pool.query(
        `INSERT INTO integration_threads (project_id, platform, thread_key, conversation_id, created_at)
         VALUES (1, 'slack', 't3', 3, $1), (1, 'discord', 't4', 4, $1)`,
        [at],
      );

      await migrate(pool);
      const { rows } = await pool.query<{ channel: string }>('SELECT channel FROM conversations ORDER BY id');
      expect(rows.map((r) => r.channel)).toEqual(['api', 'widget', 'slack', 'discord']);
      await expect(pool.query("UPDATE conversations SET channel = 'fax' WHERE id = 1")).rejects.toThrow(
        /check constraint/,
      );
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });

  it('lets two processes replace the same new source at once: one source, one copy of its chunks', async () => {
    await fixture();
    const pools = [1, 2].map(() => new Pool({ ...SERVER, database: scratch.name, max: 1 }));
    for (const p of pools) p.on('error', () => undefined);
    try {
      const stores = await Promise.all(pools.map((p) => openPostgresChunkStore(p)));
      const write = (store: PostgresChunkStore, text: string) =>
        store.replaceSources([
          {
            projectId: 1,
            source: 'same',
            kind: 'documents',
            documents: [{ document: { source: 'same', content: text }, chunks: [contractDraft(text)] }],
          },
        ]);
      const [a, b] = await Promise.all([write(stores[0]!, 'first words'), write(stores[1]!, 'second words')]);
      expect(a[0]!.sourceId).toBe(b[0]!.sourceId);
      expect((await stores[0]!.listSources(1)).map((s) => s.source)).toEqual(['same']);
      expect(await stores[0]!.countChunks(1)).toBe(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it("keeps the postings equal to the chunks' tsvectors through writes and deletes, and ranks from them as from the tsvectors", async () => {
    await fixture();
    const store = await openPostgresChunkStore(pool);
    const page = (source: string, text: string) => ({
      projectId: 1,
      source,
      kind: 'documents' as const,
      documents: [{ document: { source, content: text }, chunks: [contractDraft(text)] }],
    });
    const texts = [
      'Call reply.send to answer with a payload; the reply is sent once.',
      'The send queue holds a reply until the payload is ready.',
      'Hooks run before the handler; a hook may send a reply early.',
      'Plugins register routes and decorators in their own scope.',
    ];
    await store.replaceSources(texts.map((t, i) => page(`p${i}`, t)));
    await store.replaceSources([page('p1', 'Replaced: the payload is serialized before it is sent.')]);
    await store.deleteSource(1, 'p3');
    const stored = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         (SELECT project_id, lexeme, chunk_id, tf, doc_len FROM chunk_postings
          EXCEPT ${POSTINGS_SELECT} GROUP BY c.id, u.lexeme)
         UNION ALL
         (${POSTINGS_SELECT} GROUP BY c.id, u.lexeme
          EXCEPT SELECT project_id, lexeme, chunk_id, tf, doc_len FROM chunk_postings)) diff`,
    );
    expect(stored.rows[0]!.n).toBe(0);
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM chunk_postings p JOIN chunks c ON c.id = p.chunk_id JOIN sources s ON s.id = c.source_id WHERE s.source = 'p3'",
    );
    expect(rows[0]!.n).toBe(0);
    // A compound identifier is a phrase: only the chunk with reply.send holds it, so it ranks first.
    const hits = await store.search({
      projectId: 1,
      text: 'how does reply.send answer',
      topK: 3,
      mode: 'lexical',
    });
    expect(hits[0]!.source).toBe('p0');
    expect(hits.map((h) => h.source)).not.toContain('p3');
  });

  it('ranks the same with MaxScore pruning as when it scores every matching chunk', async () => {
    await fixture();
    // Both sum in SQL (no postings held in the process), once with pruning and once without.
    const full = await openPostgresChunkStore(pool, { cachedPostings: 0 });
    const pruned = await openPostgresChunkStore(pool, { pruneAbovePostings: 0, cachedPostings: 0 });
    const words = ['server', 'plugin', 'route', 'hook', 'schema', 'logger', 'reply', 'request', 'decorator'];
    const rare = ['bodyLimit', 'trustProxy', 'pluginTimeout', 'onRequest', 'maxParamLength'];
    // Every page names Fastify and the server (common words); some name a rare option too.
    const pages = Array.from({ length: 120 }, (_, i) => {
      const text =
        `Fastify server page ${i} covers the ${words[i % words.length]} and the ${words[(i * 7) % words.length]}. ` +
        (i % 10 === 0 ? `Set ${rare[(i / 10) % rare.length]} on the server to change it. ` : '') +
        (i % 3 === 0 ? 'Call reply.send with the payload. ' : 'The reply is sent later. ');
      return {
        projectId: 1,
        source: `s${i}`,
        kind: 'documents' as const,
        documents: [{ document: { source: `s${i}`, content: text }, chunks: [contractDraft(text)] }],
      };
    });
    await full.replaceSources(pages);
    for (const text of [
      'How do I set bodyLimit on the server?',
      'what does trustProxy do for the fastify server',
      'how to use reply.send in a route hook',
      'fastify server',
      'schema logger decorator',
    ]) {
      const a = await full.search({ projectId: 1, text, topK: 10, mode: 'lexical' });
      const b = await pruned.search({ projectId: 1, text, topK: 10, mode: 'lexical' });
      expect(b.map((h) => [h.chunkId, h.score])).toEqual(a.map((h) => [h.chunkId, h.score]));
      expect(a.length).toBeGreaterThan(0);
    }
  });

  it('ranks the same from postings held in the process as from the SQL sum, to the last bit of each score', async () => {
    await fixture();
    const sql = await openPostgresChunkStore(pool, { cachedPostings: 0 });
    const held = await openPostgresChunkStore(pool);
    // Smaller than most lists: they are evicted at once or never held, and read again each time.
    const tiny = await openPostgresChunkStore(pool, { cachedPostings: 5 });
    const words = ['server', 'plugin', 'route', 'hook', 'schema', 'logger', 'reply', 'request', 'decorator'];
    const pages = Array.from({ length: 60 }, (_, i) => {
      const text =
        `Fastify server page ${i} covers the ${words[i % words.length]} and the ${words[(i * 5) % words.length]}. ` +
        (i % 4 === 0 ? 'Call reply.send with the payload. ' : 'The reply is sent later; send it once. ') +
        (i % 7 === 0 ? 'Set bodyLimit on the server. ' : '');
      return {
        projectId: 1,
        source: `s${i}`,
        kind: 'documents' as const,
        documents: [{ document: { source: `s${i}`, content: text }, chunks: [contractDraft(text)] }],
      };
    });
    await sql.replaceSources(pages);
    const queries = [
      { text: 'how to use reply.send in a route hook' },
      { text: 'fastify server bodyLimit' },
      { text: 'schema logger decorator' },
      // Context terms: a chunk holding only those does not match the question.
      { text: 'what about the logger', context: 'reply.send in a plugin' },
      { text: 'and the schema?', context: 'fastify server hook' },
    ];
    for (const q of queries) {
      for (const topK of [3, 10]) {
        const query = { projectId: 1, ...q, topK, mode: 'lexical' as const };
        const expected = (await sql.search(query)).map((h) => [h.chunkId, h.score]);
        expect(expected.length).toBeGreaterThan(0);
        // Twice: the second search reads the lists held by the first.
        for (const store of [held, held, tiny, tiny])
          expect((await store.search(query)).map((h) => [h.chunkId, h.score])).toEqual(expected);
      }
    }
  });

  it('serves the hit rows of chunks it has returned from the process, and new chunks from the table', async () => {
    await fixture();
    const counted = new Pool({ ...SERVER, database: scratch.name, max: 2 });
    counted.on('error', () => undefined);
    try {
      const store = await openPostgresChunkStore(counted);
      const page = (source: string, text: string) => ({
        projectId: 1,
        source,
        kind: 'documents' as const,
        documents: [{ document: { source, content: text }, chunks: [contractDraft(text)] }],
      });
      await store.replaceSources([page('a', 'The logger writes one line per request.')]);
      const statements: string[] = [];
      const query = counted.query.bind(counted);
      jest.spyOn(counted, 'query').mockImplementation(((config: unknown, values?: unknown) => {
        statements.push(typeof config === 'string' ? config : String((config as { name?: string }).name));
        return query(config as never, values as never);
      }) as never);
      const ask = () => store.search({ projectId: 1, text: 'logger line', topK: 5, mode: 'lexical' });
      const first = await ask();
      expect(statements.filter((s) => s === 'kbqa_hit_rows')).toHaveLength(1);
      const second = await ask();
      expect(statements.filter((s) => s === 'kbqa_hit_rows')).toHaveLength(1);
      expect(second).toEqual(first);
      expect(first.map((h) => h.content)).toEqual(['The logger writes one line per request.']);
      // A hit's heading path is its own: changing it does not change the held row.
      first[0]!.headingPath.push('changed');
      expect((await ask())[0]!.headingPath).toEqual(second[0]!.headingPath);
      await store.replaceSources([page('a', 'The logger now writes two lines per request.')]);
      expect((await ask()).map((h) => h.content)).toEqual(['The logger now writes two lines per request.']);
      expect(statements.filter((s) => s === 'kbqa_hit_rows')).toHaveLength(2);
      // Questions asked at once whose lists are all held read the generation in one statement.
      await ask();
      statements.length = 0;
      const together = await Promise.all([ask(), ask(), ask()]);
      expect(together.map((hits) => hits.map((h) => h.content))).toEqual(
        [1, 2, 3].map(() => ['The logger now writes two lines per request.']),
      );
      expect(statements.filter((s) => s === 'kbqa_project_generations')).toHaveLength(1);
      expect(statements.filter((s) => s === 'kbqa_postings_list_rows')).toHaveLength(0);
    } finally {
      jest.restoreAllMocks();
      await counted.end();
    }
  });

  it("drops held postings when another process's write raises the project's generation", async () => {
    await fixture();
    // A second pool stands for another API process: its store holds its own lists.
    const other = new Pool({ ...SERVER, database: scratch.name, max: 2 });
    other.on('error', () => undefined);
    try {
      const reader = await openPostgresChunkStore(pool);
      const writer = await openPostgresChunkStore(other);
      const page = (source: string, text: string) => ({
        projectId: 1,
        source,
        kind: 'documents' as const,
        documents: [{ document: { source, content: text }, chunks: [contractDraft(text)] }],
      });
      await writer.replaceSources([
        page('a', 'The logger writes one line per request.'),
        page('b', 'Plugins register routes in their own scope.'),
      ]);
      const ask = async (text: string) =>
        (await reader.search({ projectId: 1, text, topK: 5, mode: 'lexical' })).map((h) => h.source);
      expect(await ask('logger line')).toEqual(['a']);
      expect(await ask('serializer')).toEqual([]);
      // The same number of chunks, other words: only the generation tells the reader.
      await writer.replaceSources([page('a', 'The serializer turns a payload into a string.')]);
      expect(await ask('logger line')).toEqual([]);
      expect(await ask('serializer')).toEqual(['a']);
      await writer.deleteSourcesById(1, [(await writer.listSources(1)).find((s) => s.source === 'b')!.id]);
      expect(await ask('plugins routes scope')).toEqual([]);
      await writer.replaceSources([page('c', 'Routes and plugins again.')]);
      expect(await ask('plugins routes scope')).toEqual(['c']);
      await writer.deleteSource(1, 'c');
      expect(await ask('plugins routes scope')).toEqual([]);
      await writer.replaceSources([page('d', 'A serializer for every route.')]);
      expect((await ask('serializer')).sort()).toEqual(['a', 'd']);
      await writer.deleteAllSources(1);
      expect(await ask('serializer')).toEqual([]);
      const { rows } = await pool.query<{ generation: string }>(
        'SELECT generation FROM index_generations WHERE project_id = 1',
      );
      expect(Number(rows[0]!.generation)).toBeGreaterThan(0);
    } finally {
      await other.end();
    }
  });

  describeChunkStoreContract('PostgresChunkStore (PostgreSQL server)', () => fixture(), {
    vectors: serverHasPgvector,
    timeoutMs: 30_000,
  });

  it("writes concurrent chats' messages in one statement, and a write that cannot be stored fails alone", async () => {
    const records = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${scratch.name}`),
      max: 2,
    });
    records.on('error', () => undefined);
    try {
      await migrate(records);
      await records.query('TRUNCATE projects RESTART IDENTITY CASCADE');
      await records.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now')");
      const names: string[] = [];
      const query = records.query.bind(records) as (...args: unknown[]) => unknown;
      jest.spyOn(records, 'query').mockImplementation((...args: unknown[]) => {
        const config = args[0] as { name?: string };
        if (typeof config === 'object' && config.name) names.push(config.name);
        return query(...args);
      });
      const store = new PostgresRequestRecords(records);
      const first = { sender: 'Human' as const, replyTo: null, sources: [], complete: true };
      const started = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.startConversation(1, null, { ...first, text: `q${i}` })),
      );
      const writes = names.filter((n) => n === 'kbqa_message_writes').length;
      expect(writes).toBeGreaterThanOrEqual(1);
      expect(writes).toBeLessThan(20);
      const { rows } = await records.query<{ n: number }>('SELECT count(*)::int AS n FROM conversations');
      expect(rows[0]!.n).toBe(20);
      // An answer to a conversation that does not exist breaks its batch; the others are stored.
      const results = await Promise.allSettled([
        store.addMessage({ ...first, projectId: 1, conversationId: started[0]!.conversationId, text: 'a0' }),
        store.addMessage({ ...first, projectId: 1, conversationId: 999_999, text: 'lost' }),
        store.addMessage({ ...first, projectId: 1, conversationId: started[1]!.conversationId, text: 'a1' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
      const { rows: answers } = await records.query<{ text: string; conversation_id: number }>(
        "SELECT text, conversation_id FROM messages WHERE text LIKE 'a%' ORDER BY text",
      );
      expect(answers).toEqual([
        { text: 'a0', conversation_id: started[0]!.conversationId },
        { text: 'a1', conversation_id: started[1]!.conversationId },
      ]);
    } finally {
      jest.restoreAllMocks();
      await records.end();
    }
  });

  describeRequestRecordsContract(
    'PostgresRequestRecords (PostgreSQL server)',
    async () => {
      // The API's pool settings (number and timestamp parsers), as the service opens it.
      const records = new Pool({
        ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${scratch.name}`),
        max: 2,
      });
      records.on('error', () => undefined);
      await migrate(records);
      await records.query('TRUNCATE projects RESTART IDENTITY CASCADE');
      await records.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')");
      return {
        records: new PostgresRequestRecords(records),
        sql: async (statement, params = []) => {
          let n = 0;
          return (
            await records.query(
              statement.replace(/\?/g, () => `$${++n}`),
              params,
            )
          ).rows as Array<Record<string, unknown>>;
        },
        teardown: () => records.end(),
      };
    },
    { timeoutMs: 30_000 },
  );
});

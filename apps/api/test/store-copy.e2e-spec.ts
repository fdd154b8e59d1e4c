import { execFile, fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTinyModel } from '@kbqa/embedder/testing';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import request from 'supertest';
import { EmbeddingService } from '../src/retrieval/embedding.service';
import { startTestApp, type TestApp } from './helpers';
import { admin, createScratchDatabase, postgresReachable } from './postgres-scratch';

const describeServer = postgresReachable ? describe : describe.skip;

const TOKEN = 'test-operator-token-0123456789';
const CLI = join(__dirname, '..', 'dist', 'cli.js');
/** PGlite with pgvector over the wire protocol (the store package's test server). */
const PGLITE_SERVER = join(
  __dirname,
  '..',
  '..',
  '..',
  'packages',
  'store-postgres',
  'test',
  'pglite-server.js',
);

const DOCS = [
  {
    source: 'install-guide',
    content:
      '# Installation\n\nInstall the kbqa server with pnpm install, then start it with pnpm start. The installer needs Node 22.',
  },
  {
    source: 'logging-guide',
    content:
      '# Logging\n\nLogging is configured with the KBQA_LOG_LEVEL variable. Set the log level to debug to see every request.',
  },
];

/** Runs the built CLI and returns its exit code and both streams. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('kbqa store copy: bad input', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-copy-bad-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('needs --to with a PostgreSQL URL (exit 2, with the usage)', async () => {
    const missing = await kbqa(['store', 'copy'], { KBQA_DATA_DIR: dataDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/store copy needs --to <postgres:/);
    expect(missing.stderr).toMatch(/store copy --to <postgres-url>/);
    const wrong = await kbqa(['store', 'copy', '--to', 'mysql://root@127.0.0.1/kbqa'], {
      KBQA_DATA_DIR: dataDir,
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--to must be a PostgreSQL URL/);
  });

  it('refuses a data directory without a SQLite database, and creates none', async () => {
    const res = await kbqa(['store', 'copy', '--to', 'postgres://postgres@127.0.0.1:1/none', '--json'], {
      KBQA_DATA_DIR: dataDir,
    });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toEqual({
      error: `no SQLite database at ${join(dataDir, 'kbqa.sqlite')}: set KBQA_DATA_DIR to the data directory of the deployment to copy`,
      code: 'NOT_FOUND',
    });
    expect(existsSync(join(dataDir, 'kbqa.sqlite'))).toBe(false);
  });
});

describeServer(
  'kbqa store copy --to postgres://… (SQLite deployment to the machine’s PostgreSQL, e2e)',
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-copy-'));
    const env = { KBQA_ADMIN_TOKEN: TOKEN };
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let t: TestApp | undefined;

    beforeAll(async () => {
      scratch = await createScratchDatabase('kbqa_copy');
    });
    afterAll(async () => {
      await t?.close();
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('moves keys, sources, conversations, ratings, taught answers and tools; new ids follow the copied ones', async () => {
      // The SQLite deployment, built through the service.
      t = await startTestApp(env, { dataDir });
      const admin = (method: 'get' | 'post', path: string, body?: object) => {
        const req = request(t!.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
        return body === undefined ? req : req.send(body);
      };
      const p = await t.createProject('handbook');
      const ingest = await t
        .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS })
        .expect(200);
      expect((await t.waitForTask(Number(ingest.body.task_id))).result).toMatchObject({ success: true });
      const conversationId = (await t.post('/v1/newConversation', { api_key: p.serverKey }).expect(200)).body
        .conversation_id as number;
      const question = {
        api_key: p.serverKey,
        question: 'How do I set the log level?',
        conversation_id: conversationId,
        shouldStream: false,
      };
      const answer = await t.post('/v1/serviceChat', question).expect(200);
      const topSource = answer.body.sources[0].link as string;
      expect(topSource).toBe('logging-guide');
      await t
        .post('/v1/rateMessage', {
          api_key: p.serverKey,
          message_id: answer.body.message_id,
          rating_value: 1,
        })
        .expect(200);
      await admin('post', `/admin/v1/projects/${p.id}/taught`, {
        question: 'Who maintains the handbook?',
        answer: 'The platform team maintains the handbook.',
      }).expect(201);
      await admin('post', `/admin/v1/projects/${p.id}/tools`, {
        name: 'stock',
        description: 'Units in stock',
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        method: 'GET',
        url: 'https://api.example.com/stock/{sku}',
        headers: { 'X-Api-Key': 'secret-value' },
      }).expect(201);
      const sources = (await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200))
        .body as unknown[];
      const messages = (
        await t
          .post('/v1/messages/byConversationId', { api_key: p.serverKey, conversation_id: conversationId })
          .expect(200)
      ).body as Array<Record<string, unknown>>;
      const [last] = await t.query<{ projects: number; keys: number }>(
        'SELECT (SELECT max(id) FROM projects) AS projects, (SELECT max(id) FROM api_keys) AS keys',
      );
      await t.close();
      t = undefined;

      // The copy, through the built CLI.
      const copy = await kbqa(['store', 'copy', '--to', scratch.url, '--json'], { KBQA_DATA_DIR: dataDir });
      expect(copy.stderr).toMatch(/kbqa store copy: projects: 1 row\(s\)/);
      expect(copy.stderr).toMatch(/kbqa store copy: chunks: \d+ row\(s\)/);
      expect(copy.code).toBe(0);
      const summary = JSON.parse(copy.stdout) as {
        tables: Record<string, number>;
        vectors: { status: string };
      };
      expect(summary.tables).toMatchObject({
        projects: 1,
        api_keys: 2,
        conversations: 1,
        messages: 2,
        taught_answers: 1,
        tools: 1,
        sources: 3,
      });
      expect(summary.vectors).toEqual({ status: 'none', copied: 0 });

      // A second copy into the same database is refused and changes nothing.
      const again = await kbqa(['store', 'copy', '--to', scratch.url], { KBQA_DATA_DIR: dataDir });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/not empty \(1 project\(s\), 3 source\(s\)\)/);

      // The service on the copy.
      t = await startTestApp({ ...env, KBQA_DATABASE_URL: scratch.url });
      expect(
        await t
          .post('/v1/getSources', { api_key: p.serverKey })
          .expect(200)
          .then((r) => r.body),
      ).toEqual(sources);
      const after = await t.post('/v1/serviceChat', { ...question, conversation_id: undefined }).expect(200);
      expect(after.body.sources[0].link).toBe(topSource);
      const copiedMessages = (
        await t
          .post('/v1/messages/byConversationId', { api_key: p.serverKey, conversation_id: conversationId })
          .expect(200)
      ).body as Array<Record<string, unknown>>;
      expect(copiedMessages).toEqual(messages);
      expect(copiedMessages.map((m) => m.rating_value)).toEqual([0, 1]);
      const taught = await admin('get', `/admin/v1/projects/${p.id}/taught`).expect(200);
      expect(JSON.stringify(taught.body)).toContain('Who maintains the handbook?');
      expect(
        (
          await t
            .post('/v1/serviceChat', { ...question, question: 'Who maintains the handbook?' })
            .expect(200)
        ).body.answer.text,
      ).toContain('platform team');
      const tools = await admin('get', `/admin/v1/projects/${p.id}/tools`).expect(200);
      expect(tools.body.tools[0]).toMatchObject({ name: 'stock', headers: { 'X-Api-Key': '••••' } });

      // New rows take ids after the copied ones (the identity sequences were moved on).
      const fresh = await t.createProject('after the copy');
      expect(fresh.id).toBe(last!.projects + 1);
      const [key] = await t.query<{ id: number }>('SELECT max(id) AS id FROM api_keys');
      expect(key!.id).toBe(last!.keys + 2);
      const conversation = (await t.post('/v1/newConversation', { api_key: fresh.serverKey }).expect(200))
        .body.conversation_id as number;
      // Conversation ids are random (2^32 up to 2^48), not from a sequence: a new one is drawn,
      // never a copied one (its ordering against them is chance).
      expect(conversation).toBeGreaterThanOrEqual(2 ** 32);
      expect(conversation).not.toBe(conversationId);
      const ingestAfter = await t
        .post('/v1/ingestDocuments', { api_key: fresh.serverKey, documents: [DOCS[0]] })
        .expect(200);
      expect((await t.waitForTask(Number(ingestAfter.body.task_id))).result).toMatchObject({ success: true });
    }, 120_000);
  },
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** PGlite with pgvector on a free port, in a child process (it loads WebAssembly with a dynamic import). */
async function startPglite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  // Several connections, for the API's pool; the socket server runs one transaction at a time.
  const child = fork(PGLITE_SERVER, [String(port), '20'], { stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the PGlite server exited with ${code}`)));
  });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

describe('kbqa store copy --to a PostgreSQL with pgvector (PGlite): vectors of the tiny model, e2e', () => {
  const root = mkdtempSync(join(tmpdir(), 'kbqa-copy-vectors-'));
  const dataDir = join(root, 'data');
  let pglite: Awaited<ReturnType<typeof startPglite>> | undefined;
  afterAll(async () => {
    await pglite?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('copies the vectors as the SQLite file holds them, byte for byte, with their embedder', async () => {
    const modelDir = await makeTinyModel(join(root, 'models'));
    const model = { KBQA_EMBED_MODEL: modelDir, KBQA_OFFLINE: '1' };
    const question = { question: 'Which variable sets the logging level?', shouldStream: false };
    const t = await startTestApp(model, { dataDir });
    let serverKey: string;
    let topSource: string;
    try {
      expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
      const p = await t.createProject('vectors');
      serverKey = p.serverKey;
      const ingest = await t
        .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS })
        .expect(200);
      expect((await t.waitForTask(Number(ingest.body.task_id), 60_000)).result).toMatchObject({
        success: true,
      });
      topSource = (await t.post('/v1/serviceChat', { ...question, api_key: serverKey }).expect(200)).body
        .sources[0].link as string;
    } finally {
      await t.close();
    }
    const sqlite = new Database(join(dataDir, 'kbqa.sqlite'), { readonly: true });
    const stored = sqlite
      .prepare('SELECT chunk_id, embedding FROM chunk_vectors ORDER BY chunk_id')
      .all() as Array<{
      chunk_id: number;
      embedding: Buffer;
    }>;
    const meta = sqlite.prepare("SELECT value FROM index_meta WHERE key = 'embedder_id'").get() as {
      value: string;
    };
    sqlite.close();
    expect(stored.length).toBeGreaterThan(0);

    pglite = await startPglite();
    const copy = await kbqa(['store', 'copy', '--to', pglite.url, '--json'], { KBQA_DATA_DIR: dataDir });
    expect(copy.code).toBe(0);
    expect(JSON.parse(copy.stdout).vectors).toEqual({
      status: 'copied',
      embedder_id: meta.value,
      dimension: expect.any(Number),
      copied: stored.length,
    });
    const client = new Client({ connectionString: pglite.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ chunk_id: number; embedding: string; embedded_with: string }>(
        `SELECT v.chunk_id, v.embedding::text AS embedding, c.embedded_with
         FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id ORDER BY v.chunk_id`,
      );
      expect(rows.map((r) => r.chunk_id)).toEqual(stored.map((s) => s.chunk_id));
      rows.forEach((r, i) => {
        const floats = Float32Array.from(r.embedding.slice(1, -1).split(',').map(Number));
        expect(Buffer.from(floats.buffer).equals(stored[i]!.embedding)).toBe(true);
        expect(r.embedded_with).toBe(meta.value);
      });
      const { rows: pending } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM chunks WHERE embedded_with IS NULL',
      );
      expect(pending[0]!.n).toBe(0);
    } finally {
      await client.end();
    }

    // The service on the copy: hybrid at once (the recorded model is the configured one), nothing
    // left to embed, the same top source for the same question.
    const served = await startTestApp({ ...model, KBQA_DATABASE_URL: pglite.url });
    try {
      expect(await served.app.get(EmbeddingService).settled()).toBe('hybrid');
      expect((await request(served.http).get('/health').expect(200)).body.retrieval).toBe('hybrid');
      const chat = await served.post('/v1/serviceChat', { ...question, api_key: serverKey }).expect(200);
      expect(chat.body.sources[0].link).toBe(topSource);
      const [after] = await served.query<{ n: number; first: string }>(
        `SELECT (SELECT count(*) FROM chunks WHERE embedded_with IS NULL) AS n,
                (SELECT embedding::text FROM chunk_vectors ORDER BY chunk_id LIMIT 1) AS first`,
      );
      expect(Number(after!.n)).toBe(0);
      const floats = Float32Array.from(after!.first.slice(1, -1).split(',').map(Number));
      expect(Buffer.from(floats.buffer).equals(stored[0]!.embedding)).toBe(true);
    } finally {
      await served.close();
    }

    // The machine's server without pgvector (Debian 12's PostgreSQL 15): the copy says it is lexical-only there.
    if (!process.env.KBQA_TEST_POSTGRES_SERVER) return;
    const scratch = await createScratchDatabase('kbqa_copy');
    try {
      const lexical = await kbqa(['store', 'copy', '--to', scratch.url], { KBQA_DATA_DIR: dataDir });
      expect(lexical.code).toBe(0);
      const hasPgvector = await admin(async (c) => {
        const { rows } = await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
        return rows.length > 0;
      });
      expect(lexical.stdout).toMatch(
        hasPgvector
          ? /vectors: \d+ copied as stored/
          : /vectors: \d+ of .* NOT copied: the target has no pgvector extension, so the copy is lexical-only there/,
      );
    } finally {
      await scratch.drop();
    }
  }, 240_000);
});

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { Queue } from 'bullmq';
import { MIGRATIONS } from '@kbqa/store-postgres';
import request from 'supertest';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { startTestApp, type TestApp } from './helpers';
import {
  postJson,
  startServer as startApiProcess,
  type ServerProcess,
  waitForOutput,
} from './process-helpers';
import { createScratchDatabase, postgresReachable } from './postgres-scratch';

const describeServer = postgresReachable ? describe : describe.skip;

const TOKEN = 'test-operator-token-0123456789';

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

const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** Runs the built CLI (as cli.e2e-spec does) and returns its exit code and both streams. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>` +
  `${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
const PAGES: Record<string, string> = {
  '/': page('Home', 'Welcome to the routing handbook. '.repeat(10), ['/routes']),
  '/routes': page('Routes', 'Declare a route with app.route and a path pattern. '.repeat(10), ['/']),
};

describeServer('The API on PostgreSQL (KBQA_DATABASE_URL, e2e)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let t: TestApp;
  let second: TestApp | undefined;
  let site: TestServer;

  beforeAll(async () => {
    scratch = await createScratchDatabase('kbqa_e2e');
    // A two-page documentation site on 127.0.0.1 for ingestData (indexes, sync).
    site = await startServer((req, res) => {
      const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page ?? '<html><body>not found</body></html>');
    });
    // Two services started at once on the empty database: the migrations run once, under the
    // advisory lock, and both come up.
    const env = {
      KBQA_DATABASE_URL: scratch.url,
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    };
    [t, second] = await Promise.all([startTestApp(env), startTestApp(env)]);
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await t?.close();
    await site?.close();
    await scratch?.drop();
  });

  const call = (method: 'get' | 'post' | 'patch', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    return body === undefined ? req : req.send(body);
  };

  it('migrates an empty database once when two services start on it at the same moment', async () => {
    const migrations = await t.query<{ id: number; name: string }>(
      'SELECT id, name FROM kbqa_migrations ORDER BY id',
    );
    expect(migrations).toEqual(MIGRATIONS.map((m) => ({ id: m.id, name: m.name })));
  });

  it('names PostgreSQL as its store in /health', async () => {
    const health = await request(t.http).get('/health').expect(200);
    expect(health.body).toMatchObject({ status: 'ok', store: 'postgres' });
  });

  it('walks the main flow: project, key, ingestion, chat, a continued conversation, rating, export', async () => {
    const project = await call('post', '/admin/v1/projects', { name: 'handbook' }).expect(201);
    const projectId = project.body.id as number;
    await call('patch', `/admin/v1/projects/${projectId}`, {
      export_enabled: true,
      allowed_origins: ['https://docs.example.com'],
    }).expect(200);
    const serverKey = (
      await call('post', `/admin/v1/projects/${projectId}/keys`, { kind: 'server' }).expect(201)
    ).body.key as string;
    const anonKey = (await call('post', `/admin/v1/projects/${projectId}/keys`, { kind: 'anon' }).expect(201))
      .body.key as string;

    const ingest = await t.post('/v1/ingestDocuments', { api_key: serverKey, documents: DOCS }).expect(200);
    const task = await t.waitForTask(Number(ingest.body.task_id));
    expect(task.result).toMatchObject({ success: true });

    // The key was found in PostgreSQL; its use is recorded there.
    const conversationId = (await t.post('/v1/newConversation', { api_key: serverKey }).expect(200)).body
      .conversation_id as number;
    const first = await t
      .post('/v1/serviceChat', {
        api_key: serverKey,
        question: 'How do I set the log level?',
        conversation_id: conversationId,
        shouldStream: false,
      })
      .expect(200);
    expect(first.body.answer.text).toMatch(/KBQA_LOG_LEVEL/);
    expect(first.body.sources.map((s: { link: string }) => s.link)).toContain('logging-guide');
    // The same conversation, continued from the other service process.
    const next = await request(second!.http)
      .post('/v1/serviceChat')
      .send({
        api_key: serverKey,
        question: 'Which Node version does the installer need?',
        conversation_id: conversationId,
        shouldStream: false,
      })
      .expect(200);
    expect(next.body.answer.text).toMatch(/Node 22/);

    await t
      .post('/v1/rateMessage', { api_key: serverKey, message_id: first.body.message_id, rating_value: 1 })
      .expect(200);

    const exported = await t.post('/v1/getMessagesData', { api_key: serverKey }).expect(200);
    expect(exported.body).toHaveLength(2);
    expect(exported.body[0]).toMatchObject({
      conversation_id: conversationId,
      human_query: 'How do I set the log level?',
    });
    const good = await t.post('/v1/getMessagesData', { api_key: serverKey, rating_value: 1 }).expect(200);
    expect(good.body).toHaveLength(1);

    // The widget's origin checks (anon key), the operator's listings and charts, on PostgreSQL.
    await t
      .post('/v1/newConversation', { anon_key: anonKey })
      .set('Origin', 'https://docs.example.com')
      .expect(200);
    await t
      .post('/v1/newConversation', { anon_key: anonKey })
      .set('Origin', 'https://elsewhere.example.com')
      .expect(403);
    const preflight = await request(t.http)
      .options('/v1/serviceChat')
      .set('Origin', 'https://docs.example.com')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://docs.example.com');
    const sources = await call('get', `/admin/v1/projects/${projectId}/sources?q=LOGGING`).expect(200);
    expect(sources.body).toMatchObject({
      total: 1,
      sources: [{ source: 'logging-guide', kind: 'documents' }],
    });
    expect(sources.body.sources[0].date_added).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const conversations = await call('get', `/admin/v1/projects/${projectId}/conversations`).expect(200);
    expect(conversations.body.conversations).toContainEqual(
      expect.objectContaining({ id: conversationId, messages: 4, good: 1, bad: 0 }),
    );
    // Searched by words of its messages, LIKE's wildcards escaped, on PostgreSQL too.
    const found = await call('get', `/admin/v1/projects/${projectId}/conversations`)
      .query({ q: 'NODE level' })
      .expect(200);
    expect(found.body.conversations.map((c: { id: number }) => c.id)).toEqual([conversationId]);
    const none = await call('get', `/admin/v1/projects/${projectId}/conversations`)
      .query({ q: 'log_level 100%' })
      .expect(200);
    expect(none.body).toEqual({ total: 0, conversations: [] });
    const analytics = await call('get', `/admin/v1/projects/${projectId}/analytics`).expect(200);
    expect(analytics.body.ratings).toMatchObject({ good: 1 });
    await call('get', `/admin/v1/projects/${projectId}/gaps`).expect(200);

    const [stored] = await t.query<{ messages: number; keys_used: number }>(
      `SELECT (SELECT count(*) FROM messages WHERE project_id = ?) AS messages,
              (SELECT count(*) FROM api_keys WHERE project_id = ? AND last_used_at IS NOT NULL) AS keys_used`,
      [projectId, projectId],
    );
    expect(stored).toEqual({ messages: 4, keys_used: 2 });
  });

  it('gives conversations and messages random ids, keeps messages in order, and hides neighbours', async () => {
    const projectId = (await call('post', '/admin/v1/projects', { name: 'ids' }).expect(201)).body
      .id as number;
    const key = (kind: 'server' | 'anon') =>
      call('post', `/admin/v1/projects/${projectId}/keys`, { kind })
        .expect(201)
        .then((r) => r.body.key as string);
    const serverKey = await key('server');
    const anonKey = await key('anon');
    const ingest = await t.post('/v1/ingestDocuments', { api_key: serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(Number(ingest.body.task_id));

    const conversationIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const body = i % 2 ? { anon_key: anonKey } : { api_key: serverKey };
      conversationIds.push((await t.post('/v1/newConversation', body).expect(200)).body.conversation_id);
    }
    const chat = (question: string, conversationId?: number) =>
      t
        .post('/v1/serviceChat', {
          anon_key: anonKey,
          history: [],
          question,
          conversation_id: conversationId,
          shouldStream: false,
        })
        .expect(200)
        .then((r) => r.body.message_id as number);
    const mine = conversationIds[1]!;
    const questions = ['How do I set the log level?', 'Which Node version?', 'How do I install it?'];
    const answers: number[] = [];
    for (const q of questions) answers.push(await chat(q, mine));
    // Another reader's answer, written after mine.
    const theirs = await chat('How do I start the server?');

    const messages = (
      await t.post('/v1/messages/byConversationId', { api_key: serverKey, conversation_id: mine }).expect(200)
    ).body as Array<{ message_id: number; sender: string; message: string }>;
    expect(messages.map((m) => [m.sender, m.sender === 'Human' ? m.message : m.message_id])).toEqual(
      questions.flatMap((q, i) => [
        ['Human', q],
        ['AI', answers[i]],
      ]),
    );
    const ids = [...conversationIds, ...messages.map((m) => m.message_id), theirs];
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(2 ** 32);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...conversationIds].sort((a, b) => a - b)).not.toEqual(conversationIds);

    // The anon key guessing the ids next to its own finds nothing.
    for (const delta of [-1, 1]) {
      await t.post('/v1/endConversation', { anon_key: anonKey, conversation_id: mine + delta }).expect(404);
    }
    const last = answers[answers.length - 1]!;
    for (const delta of [-2, -1, 1, 2]) {
      await t
        .post('/v1/rateMessage', { anon_key: anonKey, message_id: last + delta, rating_value: -1 })
        .expect(500);
    }
    const [untouched] = await t.query<{ rating_value: number }>(
      'SELECT rating_value FROM messages WHERE id = ?',
      [theirs],
    );
    expect(untouched).toEqual({ rating_value: 0 });
  });

  it("keeps the operator's other records: indexes and their sync, taught answers, tools, tasks, sessions", async () => {
    const projectId = (await call('post', '/admin/v1/projects', { name: 'site' }).expect(201)).body
      .id as number;
    const serverKey = (
      await call('post', `/admin/v1/projects/${projectId}/keys`, { kind: 'server' }).expect(201)
    ).body.key as string;

    const load = await t.post('/v1/ingestData', { api_key: serverKey, url: `${site.origin}/` }).expect(200);
    expect((await t.waitForTask(Number(load.body.task_id), 60_000)).result).toMatchObject({ success: true });
    const indexes = await call('get', `/admin/v1/projects/${projectId}/indexes`).expect(200);
    expect(indexes.body.indexes).toHaveLength(1);
    const indexId = indexes.body.indexes[0].id as number;
    // ingestData again on the same URL upserts the same index (ON CONFLICT on PostgreSQL).
    const again = await t.post('/v1/ingestData', { api_key: serverKey, url: `${site.origin}/` }).expect(200);
    expect((await t.waitForTask(Number(again.body.task_id), 60_000)).result).toMatchObject({ success: true });
    expect(
      (await call('get', `/admin/v1/projects/${projectId}/indexes`).expect(200)).body.indexes,
    ).toHaveLength(1);
    const synced = await call('patch', `/admin/v1/indexes/${indexId}`, { auto_sync: true }).expect(200);
    expect(synced.body).toMatchObject({ id: indexId, auto_sync: true });
    const tasks = await call('get', `/admin/v1/projects/${projectId}/tasks`).expect(200);
    expect(JSON.stringify(tasks.body)).toContain(String(again.body.task_id));

    const chat = (question: string) =>
      t.post('/v1/serviceChat', { api_key: serverKey, question, shouldStream: false }).expect(200);
    expect((await chat('How do I declare a route?')).body.answer.text).toMatch(/app\.route/);
    await call('post', `/admin/v1/projects/${projectId}/taught`, {
      question: 'Who maintains the handbook?',
      answer: 'The platform team maintains the handbook.',
    }).expect(201);
    const taught = await call('get', `/admin/v1/projects/${projectId}/taught`).expect(200);
    expect(JSON.stringify(taught.body)).toContain('Who maintains the handbook?');
    expect((await chat('Who maintains the handbook?')).body.answer.text).toContain('platform team');

    await call('post', `/admin/v1/projects/${projectId}/tools`, {
      name: 'stock',
      description: 'Units in stock',
      parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      method: 'GET',
      url: 'https://api.example.com/stock/{sku}',
      headers: { 'X-Api-Key': 'secret-value' },
    }).expect(201);
    const tools = await call('get', `/admin/v1/projects/${projectId}/tools`).expect(200);
    expect(tools.body.tools[0]).toMatchObject({
      name: 'stock',
      url: 'https://api.example.com/stock/{sku}',
      headers: { 'X-Api-Key': '••••' },
    });

    const login = await request(t.http).post('/dashboard/api/login').send({ token: TOKEN }).expect(200);
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('kbqa_session='))!
      .split(';')[0]!;
    const viaSecond = await request(second!.http).get('/admin/v1/projects').set('Cookie', cookie).expect(200);
    expect(viaSecond.body.projects.map((p: { name: string }) => p.name)).toContain('site');
  });

  it("runs the kbqa command on the same database: its projects and keys are the service's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-pg-cli-'));
    try {
      const env = { KBQA_DATA_DIR: dataDir, KBQA_DATABASE_URL: scratch.url };
      const created = await kbqa(['projects', 'create', 'from-cli', '--json'], env);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const projectId = JSON.parse(created.stdout).id as number;
      const key = await kbqa(
        ['keys', 'create', '--project', String(projectId), '--kind', 'server', '--json'],
        env,
      );
      expect(key.code).toBe(0);
      await t.post('/v1/newConversation', { api_key: JSON.parse(key.stdout).key }).expect(200);
      const listed = await kbqa(['projects', 'list', '--json'], env);
      expect(JSON.parse(listed.stdout).projects.map((p: { name: string }) => p.name)).toContain('handbook');
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('writes no SQLite file: everything is in PostgreSQL', () => {
    for (const dir of [t.dataDir, second!.dataDir]) {
      expect(readdirSync(dir).filter((f) => f.includes('sqlite'))).toEqual([]);
    }
  });
});

const REDIS_URL = process.env.REDIS_URL;
// Printed by jest only when the PostgreSQL suite runs; report-skips.js names the BullMQ skips.
const describeServerAndRedis = process.env.KBQA_TEST_POSTGRES_SERVER && REDIS_URL ? describe : describe.skip;

describeServerAndRedis(
  'An API process and a separate kbqa worker on PostgreSQL (e2e, real processes)',
  () => {
    jest.setTimeout(180_000);
    const queueName = `kbqa-pg-${process.pid}-${Date.now()}`;
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let dataDir: string;
    let server: ServerProcess | undefined;
    let worker: ReturnType<typeof spawn> | undefined;

    beforeAll(async () => {
      scratch = await createScratchDatabase('kbqa_e2e');
      dataDir = mkdtempSync(join(tmpdir(), 'kbqa-pg-worker-'));
    });
    afterAll(async () => {
      if (worker && worker.exitCode === null) {
        const exited = new Promise((r) => worker!.once('exit', r));
        worker.kill('SIGTERM');
        await exited;
      }
      await server?.stop();
      const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
      await queue.obliterate({ force: true });
      await queue.close();
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    });

    it('runs every task in the worker process while the API deletes sources, all in PostgreSQL', async () => {
      const env = {
        KBQA_DATA_DIR: dataDir,
        KBQA_DATABASE_URL: scratch.url,
        REDIS_URL: REDIS_URL!,
        KBQA_QUEUE_NAME: queueName,
      };
      // The API takes no task itself (KBQA_WORKER=0): every one is the worker's.
      const api = await startApiProcess({ ...env, KBQA_WORKER: '0', KBQA_ADMIN_TOKEN: TOKEN });
      server = api;
      worker = spawn(process.execPath, [CLI, 'worker'], {
        env: { ...process.env, ...env, KBQA_EMBED_MODEL: 'none', KBQA_QUEUE_CONCURRENCY: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await waitForOutput(worker, /ingestion worker running/, 'kbqa worker');
      const created = await kbqa(['projects', 'create', 'workers', '--json'], env);
      const projectId = JSON.parse(created.stdout).id as number;
      const key = JSON.parse(
        (await kbqa(['keys', 'create', '--project', String(projectId), '--kind', 'server', '--json'], env))
          .stdout,
      ).key as string;

      const batch = (n: number) =>
        Array.from({ length: 100 }, (_, i) => ({
          source: `page${i}`,
          content: `# Page ${i}\n\nBatch ${n} says how hooks, decorators and plugins fit together on page ${i}.`,
        }));
      const submitted = await Promise.all(
        [0, 1, 2, 3].map((n) =>
          postJson(api.baseUrl, '/v1/ingestDocuments', { api_key: key, documents: batch(n) }),
        ),
      );
      expect(submitted.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const deadline = Date.now() + 120_000;
      const failedDeletes: unknown[] = [];
      const results = new Map<number, unknown>();
      for (let round = 0; results.size < submitted.length; round++) {
        const deletes = await Promise.all(
          [0, 1, 2].map((i) =>
            postJson(api.baseUrl, '/v1/deleteSource', {
              api_key: key,
              source: `page${(round * 3 + i) % 100}`,
            }),
          ),
        );
        failedDeletes.push(...deletes.filter((r) => r.status !== 200).map((r) => [r.status, r.body]));
        for (const { body } of submitted) {
          if (results.has(body.task_id)) continue;
          const s = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: String(body.task_id) });
          if (s.body.status === 'completed') results.set(body.task_id, s.body.result?.success);
        }
        if (Date.now() > deadline)
          throw new Error(`tasks unfinished after 120 s: ${results.size} of 4 ended`);
      }
      expect(failedDeletes).toEqual([]);
      expect([...results.values()]).toEqual([true, true, true, true]);
      const answer = await postJson(api.baseUrl, '/v1/serviceChat', {
        api_key: key,
        question: 'How do hooks and decorators fit together?',
        shouldStream: false,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.sources.length).toBeGreaterThan(0);
      expect(readdirSync(dataDir).filter((f) => f.includes('sqlite'))).toEqual([]);
    });
  },
);

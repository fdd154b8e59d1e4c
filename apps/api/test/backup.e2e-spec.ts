import type { ServerResponse } from 'node:http';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readDocsCorpusFile, startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { makeTinyModel } from '@kbqa/embedder/testing';
import { readBackupInfo } from '@kbqa/store-sqlite';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';
import { createScratchDatabase, postgresReachable } from './postgres-scratch';
import { mountSmallDisk } from './small-disk';

const PAGES = [
  'reference/server.md',
  'reference/hooks.md',
  'reference/decorators.md',
  'guides/getting-started.md',
];
const QUESTIONS = [
  'How do I add a hook?',
  'What does the decorate function do?',
  'How do I start the server?',
  'What is the pluginTimeout option?',
];

/** The built CLI with its exit code, stdout and stderr (`cli` of process-helpers throws on failure). */
function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(__dirname, '..', 'dist', 'cli.js'), ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Polls a task over the API until it is completed, failing with what it last saw after 60 s. */
async function waitForTask(baseUrl: string, taskId: number, key: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await postJson(baseUrl, '/v1/ingestionStatus', { task_id: String(taskId), api_key: key });
    if (s.body.status === 'completed') return s.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${JSON.stringify(s.body)} after 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves once the server's log satisfies `test`, checked on every line it writes. */
function waitForLog(server: ServerProcess, test: (log: string) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!test(server.output())) return;
      server.child.stdout?.off('data', check);
      server.child.stderr?.off('data', check);
      resolve();
    };
    server.child.stdout?.on('data', check);
    server.child.stderr?.on('data', check);
    server.child.once('exit', () => reject(new Error(`server exited before ${what}: ${server.output()}`)));
    check();
  });
}

/** What a service answers: its sources and, per question, the answer and the passages cited. */
async function served(baseUrl: string, key: string) {
  const sources = await postJson(baseUrl, '/v1/getSources', { api_key: key });
  expect(sources.status).toBe(200);
  const answers = [];
  for (const question of QUESTIONS) {
    const res = await postJson(baseUrl, '/v1/serviceChat', { api_key: key, question, shouldStream: false });
    expect(res.status).toBe(200);
    answers.push({
      question,
      answer: res.body.answer.text as string,
      sources: (res.body.sources as Array<{ id: number; link: string; relevance_score: number }>).map((s) => [
        s.id,
        s.link,
        s.relevance_score,
      ]),
    });
  }
  return { sources: sources.body as unknown[], answers };
}

describe('Backups (e2e, real processes)', () => {
  // Every step starts a process (the CLI, a server); on a shared machine each takes seconds.
  jest.setTimeout(600_000);
  const root = mkdtempSync(join(tmpdir(), 'kbqa-backup-'));
  let modelDir: string;
  let site: TestServer;
  const held: ServerResponse[] = [];
  let page: 'hold' | 'serve' | 'gone' = 'hold';
  let requested: () => void = () => undefined;
  const pageRequested = new Promise<void>((r) => (requested = r));
  const servers: ServerProcess[] = [];
  const disk = mountSmallDisk('kbqa-backup-disk-', 8, 'the backup-to-a-full-disk test');
  /** The X-Api-Key header of every call of the test tool: a secret sealed with secret.key. */
  const toolKeys: string[] = [];
  const SECRET = 'sk-backup-secret-0123456789';
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>Held</title></head><body><main><h1>Held</h1><p>A page about quokkas, held open.</p></main></body></html>',
    );
  };

  const envFor = (dataDir: string): Record<string, string> => ({
    KBQA_DATA_DIR: dataDir,
    REDIS_URL: '',
    KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    KBQA_EMBED_MODEL: modelDir,
    KBQA_OFFLINE: '1',
  });
  const start = async (env: Record<string, string>) => {
    const s = await startServer(env);
    servers.push(s);
    return s;
  };
  const createKey = async (env: Record<string, string>, name: string): Promise<string> => {
    const project = JSON.parse(await cli(['projects', 'create', name, '--json'], env));
    const key = JSON.parse(
      await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    return key.key as string;
  };
  const ingestPages = async (baseUrl: string, key: string) => {
    const documents = PAGES.map((p) => ({ source: p, content: readDocsCorpusFile(p) }));
    const res = await postJson(baseUrl, '/v1/ingestDocuments', { api_key: key, documents });
    expect(res.status).toBe(200);
    await waitForTask(baseUrl, res.body.task_id, key);
  };
  /** Waits until every chunk of the file has its vector (embedding runs after the task's chunks). */
  const vectorsDone = async (file: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const db = new Database(file, { readonly: true });
      try {
        const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
        const vectors = (db.prepare('SELECT count(*) AS n FROM chunk_vectors').get() as { n: number }).n;
        if (chunks > 0 && vectors === chunks) return vectors;
      } finally {
        db.close();
      }
      if (Date.now() > deadline) throw new Error('vectors still missing after 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    modelDir = await makeTinyModel(join(root, 'models'));
    site = await startSite((req, res) => {
      if (req.url === '/tool') {
        toolKeys.push(String(req.headers['x-api-key']));
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
      if (req.url !== '/page') return void res.writeHead(404).end();
      if (page === 'serve') return answer(res);
      if (page === 'gone') return void res.writeHead(404).end();
      held.push(res);
      requested();
    });
  });
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
    page = 'serve';
    held.splice(0).forEach(answer);
    await site.close();
    disk?.unmount();
    rmSync(root, { recursive: true, force: true });
  });

  it('restores a backup taken during an ingestion and a stream of chats to the same sources and answers', async () => {
    const a = join(root, 'a');
    const env = envFor(a);
    const key = await createKey(env, 'backup');
    const toolFile = join(root, 'tool.json');
    writeFileSync(
      toolFile,
      JSON.stringify({
        name: 'ping',
        description: 'Pings the test site',
        parameters: { type: 'object', properties: {} },
        method: 'GET',
        url: `${site.origin}/tool`,
        headers: { 'X-Api-Key': SECRET },
      }),
    );
    const tool = JSON.parse(await cli(['tools', 'add', '--project', '1', '--file', toolFile, '--json'], env));
    const original = await start(env);
    const base = original.baseUrl;
    await ingestPages(base, key);
    const vectors = await vectorsDone(join(a, 'kbqa.sqlite'));
    const conversationId = (await postJson(base, '/v1/newConversation', { api_key: key })).body
      .conversation_id;
    const conversation = await postJson(base, '/v1/serviceChat', {
      api_key: key,
      question: QUESTIONS[0],
      conversation_id: conversationId,
      shouldStream: false,
    });
    expect(conversation.status).toBe(200);

    // An ingestion in progress: the crawl's page request is held open by the site.
    const crawl = await postJson(base, '/v1/ingestData', {
      api_key: key,
      type: 'url',
      url: `${site.origin}/page`,
    });
    expect(crawl.status).toBe(200);
    await pageRequested;

    // Chats back to back for as long as the backup runs.
    let chatting = true;
    let chats = 0;
    const stream = (async () => {
      while (chatting) {
        const q = QUESTIONS[chats % QUESTIONS.length];
        const res = await postJson(base, '/v1/serviceChat', {
          api_key: key,
          question: q,
          shouldStream: false,
        });
        expect(res.status).toBe(200);
        chats++;
      }
    })();
    const file = join(root, 'a.backup');
    const backup = JSON.parse(await cli(['backup', file, '--json'], env));
    chatting = false;
    await stream;
    expect(chats).toBeGreaterThan(0);
    expect(backup).toEqual({
      file,
      bytes: expect.any(Number),
      created_at: expect.any(String),
      files: ['secret.key', 'admin-token.sha256'],
    });

    // What the original serves at the backup's moment: the held crawl has written nothing yet.
    const atBackup = await served(base, key);
    expect(atBackup.sources).toHaveLength(PAGES.length);
    expect(atBackup.answers.every((x) => x.sources.length > 0)).toBe(true);

    // The original goes on past that moment: the held page is let go (fetched or timed out by
    // now, either way the task ends) and a new document arrives, which the backup must not hold.
    page = 'gone';
    held.splice(0).forEach(answer);
    await waitForTask(base, crawl.body.task_id, key);
    const later = await postJson(base, '/v1/ingestDocuments', {
      api_key: key,
      documents: [{ source: 'after-the-backup', content: 'Written after the backup was taken.' }],
    });
    await waitForTask(base, later.body.task_id, key);
    const sourcesNow = (await postJson(base, '/v1/getSources', { api_key: key })).body as Array<{
      source: string;
    }>;
    expect(sourcesNow.map((x) => x.source)).toContain('after-the-backup');

    // Restored into an empty directory. The crawl that ran at the backup runs again at start;
    // the page is gone by then, so the restored service has exactly what the backup held.
    const b = join(root, 'b');
    const restored = JSON.parse(await cli(['restore', file, '--json'], envFor(b)));
    expect(restored).toMatchObject({
      data_dir: b,
      pending_migrations: 0,
      files: ['secret.key', 'admin-token.sha256'],
    });
    const copy = await start(envFor(b));
    // The tool's sealed header opens: secret.key came back with the database.
    const called = JSON.parse(
      await cli(['tools', 'test', String(tool.id), '--args', '{}', '--json'], envFor(b)),
    );
    expect(called).toMatchObject({ ok: true, status: 200 });
    expect(toolKeys).toEqual([SECRET]);
    const resumed = await waitForTask(copy.baseUrl, crawl.body.task_id, key);
    expect(resumed.result.success).toBe(false);
    expect(await served(copy.baseUrl, key)).toEqual(atBackup);
    const messages = await postJson(copy.baseUrl, '/v1/messages/byConversationId', {
      api_key: key,
      conversation_id: String(conversationId),
    });
    expect(messages.body.map((m: { sender: string; message: string }) => m.message)).toEqual([
      QUESTIONS[0],
      conversation.body.answer.text,
    ]);
    const db = new Database(join(b, 'kbqa.sqlite'), { readonly: true });
    try {
      expect((db.prepare('SELECT count(*) AS n FROM chunk_vectors').get() as { n: number }).n).toBe(vectors);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'kbqa_backup'").all();
      expect(tables).toEqual([]);
    } finally {
      db.close();
    }

    // A restore never lands on data.
    const again = await runCli(['restore', file, '--json'], envFor(b));
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({
      error: expect.stringMatching(/^the data directory .* is not empty \(.*kbqa\.sqlite/),
      code: 'BAD_REQUEST',
    });
    await copy.stop();
    await original.stop();
  });

  it('refuses to restore a file that is not a kbqa backup, or one of a newer schema', async () => {
    const notBackup = join(root, 'not-a-backup');
    writeFileSync(notBackup, 'hello');
    const bad = await runCli(['restore', notBackup, '--json'], envFor(join(root, 'c')));
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      error: expect.stringMatching(/is not a kbqa backup/),
      code: 'BAD_REQUEST',
    });

    const newer = join(root, 'newer.backup');
    const made = JSON.parse(await cli(['backup', newer, '--json'], envFor(join(root, 'a'))));
    expect(made.file).toBe(newer);
    const db = new Database(newer);
    db.prepare('INSERT INTO migrations (timestamp, name) VALUES (?, ?)').run(
      9_999_999_999_999,
      'FromTheFuture9999999999999',
    );
    db.close();
    const refused = await runCli(['restore', newer, '--json'], envFor(join(root, 'c')));
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error: expect.stringMatching(/schema is newer .* FromTheFuture9999999999999/),
      code: 'UNSUPPORTED',
    });
    expect(existsSync(join(root, 'c', 'kbqa.sqlite'))).toBe(false);
  });

  (disk ? it : it.skip)('fails a backup to a full disk cleanly and the service keeps serving', async () => {
    const mount = disk!.path;
    const env = envFor(join(root, 'a'));
    const key = JSON.parse(
      await cli(['keys', 'create', '--project', '1', '--kind', 'server', '--json'], env),
    ).key;
    const server = await start(env);
    const { bavail, bsize } = statfsSync(mount);
    writeFileSync(join(mount, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - 64 * 1024)));
    const dest = join(mount, 'kbqa.backup');
    const failed = await runCli(['backup', dest], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^error: no space left for the backup in .*; the partial file was removed\n/,
    );
    expect(readdirSync(mount)).toEqual(['filler']);
    const res = await postJson(server.baseUrl, '/v1/serviceChat', {
      api_key: key,
      question: QUESTIONS[0],
      shouldStream: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.sources.length).toBeGreaterThan(0);
    await server.stop();
  });

  it('takes scheduled backups into backups/ and keeps the newest KBQA_BACKUP_KEEP', async () => {
    const dir = join(root, 'scheduled');
    mkdirSync(dir);
    const env = { ...envFor(dir), KBQA_BACKUP_INTERVAL: '1s', KBQA_BACKUP_KEEP: '2' };
    await createKey(env, 'scheduled');
    const server = await start(env);
    const written = (log: string) => [...log.matchAll(/backup written: (\S+)/g)].map((m) => m[1]!);
    const removed = (log: string) => [...log.matchAll(/backup removed: (\S+)/g)].map((m) => m[1]!);
    await waitForLog(server, (log) => written(log).length >= 4 && removed(log).length >= 2, 'four backups');
    await server.stop();
    const log = server.output();
    const kept = written(log).filter((f) => !removed(log).includes(f));
    expect(kept).toHaveLength(2);
    expect(removed(log)).toEqual(written(log).slice(0, -2));
    expect(
      readdirSync(join(dir, 'backups'))
        .map((n) => join(dir, 'backups', n))
        .sort(),
    ).toEqual(kept.sort());
    for (const f of kept) expect(readBackupInfo(f).migrations.length).toBeGreaterThan(0);
  });
});

function pgToolsPresent(): boolean {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    execFileSync('pg_restore', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const pgTools = pgToolsPresent();
if (postgresReachable && !pgTools)
  console.warn('pg_dump or pg_restore is missing: the PostgreSQL backup test is SKIPPED');

(postgresReachable && pgTools ? describe : describe.skip)(
  'PostgreSQL backups with pg_dump and pg_restore (e2e)',
  () => {
    jest.setTimeout(600_000);
    const root = mkdtempSync(join(tmpdir(), 'kbqa-pg-backup-'));
    const drops: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const drop of drops) await drop();
      rmSync(root, { recursive: true, force: true });
    });

    it('restores a dump taken while the service runs into a database the service serves the same from', async () => {
      const modelDir = await makeTinyModel(join(root, 'models'));
      const source = await createScratchDatabase('kbqa_backup_src');
      drops.push(source.drop);
      const target = await createScratchDatabase('kbqa_backup_dst');
      drops.push(target.drop);
      const env = (url: string): Record<string, string> => ({
        KBQA_DATABASE_URL: url,
        KBQA_DATA_DIR: join(root, 'data'),
        REDIS_URL: '',
        KBQA_EMBED_MODEL: modelDir,
        KBQA_OFFLINE: '1',
      });
      const project = JSON.parse(await cli(['projects', 'create', 'pg', '--json'], env(source.url)));
      const key = JSON.parse(
        await cli(
          ['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'],
          env(source.url),
        ),
      ).key as string;
      const original = await startServer(env(source.url));
      try {
        const documents = PAGES.map((p) => ({ source: p, content: readDocsCorpusFile(p) }));
        const res = await postJson(original.baseUrl, '/v1/ingestDocuments', { api_key: key, documents });
        expect(res.status).toBe(200);
        await waitForTask(original.baseUrl, res.body.task_id, key);
        const before = await served(original.baseUrl, key);
        expect(before.sources).toHaveLength(PAGES.length);
        const dump = join(root, 'kbqa.dump');
        execFileSync('pg_dump', ['--format=custom', '--no-owner', '--file', dump, source.url]);
        execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target.url, dump]);
        const copy = await startServer(env(target.url));
        try {
          expect(await served(copy.baseUrl, key)).toEqual(before);
        } finally {
          await copy.stop();
        }
      } finally {
        await original.stop();
      }
    });
  },
);

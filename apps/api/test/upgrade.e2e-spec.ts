import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readDocsCorpusFile, startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { makeTinyModel } from '@kbqa/embedder/testing';
import { MIGRATIONS } from '@kbqa/store-sqlite';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';

/**
 * The earlier release the data directory is made with: the merge of tool sources (migration
 * 1734200000000), the last commit before six further migrations (vector change log, chunk
 * generations, FTS totals, conversation starters, scheduled tasks, task leases). Its migrations
 * are a strict prefix of today's.
 */
const OLD_COMMIT = '806f266e3447f3a9d335159d0a5b56df2155cca7';
const OLD_MIGRATIONS = 14;
const REPO = join(__dirname, '..', '..', '..');
/** The old build, kept between runs: building it takes minutes. */
const OLD_TREE = join(tmpdir(), `kbqa-upgrade-${OLD_COMMIT}`);
const BUILT_MARK = join(OLD_TREE, '.kbqa-built');

function commitPresent(): boolean {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${OLD_COMMIT}^{commit}`], {
      cwd: REPO,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

const present = commitPresent();
if (!present) {
  const message = `commit ${OLD_COMMIT} is not in this clone (a shallow clone?): the upgrade test is SKIPPED`;
  if (process.env.KBQA_REQUIRE_UPGRADE === '1')
    throw new Error(`${message}; KBQA_REQUIRE_UPGRADE=1 needs it`);
  console.warn(message);
}

/** Extracts the old commit and builds it once (install from the local store, then `pnpm build`). */
function buildOldTree(): void {
  if (existsSync(BUILT_MARK)) return;
  rmSync(OLD_TREE, { recursive: true, force: true });
  const tmp = `${OLD_TREE}.${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  execFileSync('mkdir', ['-p', tmp]);
  execFileSync('sh', ['-c', `git archive ${OLD_COMMIT} | tar -x -C "${tmp}"`], {
    cwd: REPO,
    stdio: 'inherit',
  });
  const env = { ...process.env, CI: 'true' };
  execFileSync('pnpm', ['install', '--frozen-lockfile', '--offline'], { cwd: tmp, env, stdio: 'ignore' });
  execFileSync('pnpm', ['build'], { cwd: tmp, env, stdio: 'ignore' });
  writeFileSync(join(tmp, '.kbqa-built'), `${OLD_COMMIT}\n`);
  renameSync(tmp, OLD_TREE);
}

const OLD_DIST = join(OLD_TREE, 'apps', 'api', 'dist');

/** Runs the old build's CLI and returns stdout. */
function oldCli(args: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [join(OLD_DIST, 'cli.js'), ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

/** Starts the old build's server on a free port. */
function startOldServer(env: Record<string, string>): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(OLD_DIST, 'main.js')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.stdout.resume();
      child.stderr.resume();
      resolve({
        baseUrl: `http://127.0.0.1:${m[1]}`,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`old server exited with ${code}: ${output}`)));
  });
}

async function waitForTask(baseUrl: string, taskId: number, key: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const s = await postJson(baseUrl, '/v1/ingestionStatus', { task_id: String(taskId), api_key: key });
    if (s.body.status === 'completed') return s.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${JSON.stringify(s.body)} after 120 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function migrationsOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT name FROM migrations ORDER BY id').all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
}

const QUESTION = 'How do I add a hook?';

(present ? describe : describe.skip)(`Upgrade from ${OLD_COMMIT.slice(0, 7)} (e2e, an old build)`, () => {
  // Building the old commit takes minutes on a shared machine; later runs reuse it.
  jest.setTimeout(30 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'kbqa-upgrade-data-'));
  let site: TestServer;
  let modelDir: string;
  let current: ServerProcess | undefined;

  beforeAll(async () => {
    buildOldTree();
    modelDir = await makeTinyModel(join(root, 'models'));
    site = await startSite((req, res) => {
      if (req.url !== '/guide') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Guide</title></head><body><main><h1>Guide</h1>' +
          '<p>Quokkas live on Rottnest Island and are famously friendly marsupials.</p></main></body></html>',
      );
    });
  });
  afterAll(async () => {
    await current?.stop();
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the data an earlier release made, after running the new migrations once', async () => {
    const dataDir = join(root, 'data');
    const env = {
      KBQA_DATA_DIR: dataDir,
      REDIS_URL: '',
      KBQA_EMBED_MODEL: modelDir,
      KBQA_OFFLINE: '1',
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    };
    const file = join(dataDir, 'kbqa.sqlite');

    // The old release makes the data: a project, keys, documents, an index, a conversation.
    const project = JSON.parse(oldCli(['projects', 'create', 'old', '--json'], env));
    const server = JSON.parse(
      oldCli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    const anon = JSON.parse(
      oldCli(['keys', 'create', '--project', String(project.id), '--kind', 'anon', '--json'], env),
    );
    const old = await startOldServer(env);
    const documents = ['reference/hooks.md', 'reference/server.md'].map((p) => ({
      source: p,
      content: readDocsCorpusFile(p),
    }));
    const ingested = await postJson(old.baseUrl, '/v1/ingestDocuments', { api_key: server.key, documents });
    expect(ingested.status).toBe(200);
    await waitForTask(old.baseUrl, ingested.body.task_id, server.key);
    const crawled = await postJson(old.baseUrl, '/v1/ingestData', {
      api_key: server.key,
      type: 'url',
      url: `${site.origin}/guide`,
    });
    expect(crawled.status).toBe(200);
    expect((await waitForTask(old.baseUrl, crawled.body.task_id, server.key)).result.success).toBe(true);
    const conversationId = (await postJson(old.baseUrl, '/v1/newConversation', { api_key: anon.key })).body
      .conversation_id;
    const chat = await postJson(old.baseUrl, '/v1/serviceChat', {
      api_key: anon.key,
      conversation_id: conversationId,
      question: QUESTION,
      shouldStream: false,
    });
    expect(chat.status).toBe(200);
    const oldSources = (await postJson(old.baseUrl, '/v1/getSources', { api_key: server.key })).body;
    expect(oldSources).toHaveLength(3);
    await old.stop();
    const oldIndexes = JSON.parse(
      oldCli(['indexes', 'list', '--project', String(project.id), '--json'], env),
    );
    expect(oldIndexes.indexes).toHaveLength(1);
    const oldKeys = JSON.parse(oldCli(['keys', 'list', '--project', String(project.id), '--json'], env));
    expect(migrationsOf(file)).toHaveLength(OLD_MIGRATIONS);

    // Today's code on the same directory.
    current = await startServer({ ...env });
    const names = MIGRATIONS.map((m) => new m().name);
    expect(migrationsOf(file)).toEqual(names);
    const base = current.baseUrl;
    expect((await postJson(base, '/v1/getSources', { api_key: server.key })).body).toEqual(oldSources);
    const messages = await postJson(base, '/v1/messages/byConversationId', {
      api_key: server.key,
      conversation_id: String(conversationId),
    });
    expect(messages.status).toBe(200);
    expect(messages.body.map((m: { message: string }) => m.message)).toEqual([
      QUESTION,
      chat.body.answer.text,
    ]);
    const answer = await postJson(base, '/v1/serviceChat', {
      api_key: anon.key,
      question: 'Where do quokkas live?',
      shouldStream: false,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.sources[0].link).toBe(`${site.origin}/guide`);
    expect(answer.body.answer.text).toMatch(/Rottnest/);
    const again = await postJson(base, '/v1/serviceChat', {
      api_key: anon.key,
      question: QUESTION,
      shouldStream: false,
    });
    expect(again.body.sources.map((s: { link: string }) => s.link)).toContain('reference/hooks.md');
    await current.stop();
    current = undefined;

    const keys = JSON.parse(await cli(['keys', 'list', '--project', String(project.id), '--json'], env));
    expect(
      keys.keys.map((k: { id: number; kind: string; prefix: string }) => [k.id, k.kind, k.prefix]),
    ).toEqual(
      oldKeys.keys.map((k: { id: number; kind: string; prefix: string }) => [k.id, k.kind, k.prefix]),
    );
    const indexes = JSON.parse(
      await cli(['indexes', 'list', '--project', String(project.id), '--json'], env),
    );
    expect(indexes.indexes.map((i: { id: number; url: string }) => [i.id, i.url])).toEqual(
      oldIndexes.indexes.map((i: { id: number; url: string }) => [i.id, i.url]),
    );

    // A second start finds nothing to migrate.
    current = await startServer({ ...env });
    await current.stop();
    current = undefined;
    expect(migrationsOf(file)).toEqual(names);
  });
});

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { makeTinyModel, TINY_MODEL_DIMENSION } from '@kbqa/embedder/testing';
import { writeTinyGguf } from '@kbqa/llm-local/testing';
import { makePdf } from '@kbqa/loader-files/testing';
import { Client } from 'pg';

const run = promisify(execFile);
const BINARY = resolve(__dirname, '..', '..', '..', 'dist', 'kbqa-linux-x64');

/**
 * dist/kbqa-linux-x64 (pnpm build:binary) as someone without Node.js runs it: copied alone into an
 * empty folder, started with a PATH that holds no node, its native pieces extracted to a cache.
 */
describe('kbqa-linux-x64', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | undefined;
  /** The service the /health test starts, with its server key, until the next test stops it. */
  let served: { base: string; key: string } | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kbqa-binary-'));
    await copyFile(BINARY, join(dir, 'kbqa-linux-x64'));
    // An empty folder as the whole PATH: /bin and /usr/bin hold this machine's node.
    await mkdir(join(dir, 'bin'));
    env = {
      HOME: dir,
      PATH: join(dir, 'bin'),
      KBQA_DATA_DIR: join(dir, 'data'),
      KBQA_CACHE_DIR: join(dir, 'cache'),
      HOST: '127.0.0.1',
      PORT: '0',
      KBQA_READ_WORKERS: '2',
      // The default embedding model is not downloaded: the service stays lexical until a test pulls one.
      KBQA_OFFLINE: '1',
    };
    await expect(run('/bin/sh', ['-c', 'command -v node'], { env })).rejects.toBeTruthy();
  });

  afterAll(async () => {
    await stop(server);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) =>
    JSON.parse((await run('./kbqa-linux-x64', [...args, '--json'], { cwd: dir, env })).stdout);

  it('runs the CLI: projects create and keys create, extracting its native files to the cache once', async () => {
    expect(await cli('projects', 'create', 'docs')).toMatchObject({ id: 1, name: 'docs' });
    const cache = await readdir(join(dir, 'cache'));
    expect(cache).toHaveLength(1);
    expect((await readdir(join(dir, 'cache', cache[0] as string))).sort()).toEqual(
      expect.arrayContaining([
        'better_sqlite3.node',
        'vec0.so',
        'dashboard',
        'widget',
        'read-worker.js',
        'checkpoint-worker.js',
        'embed.worker.js',
        'onnxruntime_binding.node',
        'libonnxruntime.so.1',
        'llama',
        'llama-import.cjs',
        'pdfjs',
      ]),
    );
  });

  it('names itself in its messages', async () => {
    const help = await run('./kbqa-linux-x64', ['help'], { cwd: dir, env });
    expect(help.stdout).toMatch(/^Usage: \.\/kbqa-linux-x64 <command>/);
    expect(help.stdout).not.toContain('pnpm kbqa');
    const pull = await run('./kbqa-linux-x64', ['models', 'pull'], { cwd: dir, env }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(pull?.code).toBeGreaterThan(0);
    expect(pull?.stderr).toMatch(/KBQA_OFFLINE is set/);
    expect(pull?.stderr).not.toMatch(/Cannot find module|pnpm kbqa/);
  });

  it('serves /health, ingests a document and answers a chat about it', async () => {
    const { key } = await cli('keys', 'create', '--project', '1', '--kind', 'server');
    const started = Date.now();
    server = spawn('./kbqa-linux-x64', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const base = await listening(server);
    const health = await fetch(`${base}/health`);
    process.stdout.write(`kbqa-linux-x64 start: /health after ${Date.now() - started} ms (warm cache)\n`);
    expect(health.status).toBe(200);
    // KBQA_OFFLINE and no model in the models folder: lexical, as the Node build.
    expect(await health.json()).toMatchObject({ status: 'ok', retrieval: 'lexical' });
    // Search and answers run on read workers: the pool started, and each worker holds its own
    // connection to the database (the service's, the checkpointer's and one per worker).
    const log = output(server);
    expect(log).toMatch(/store: SQLite \S+, 2 read workers/);
    expect(log).not.toMatch(/read workers did not start|Cannot find module/);
    expect(log).toMatch(
      /dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard\/ \(to log in, run `(KBQA_DATA_DIR=\S+ )?\.\/kbqa-linux-x64 admin token`/,
    );
    expect(log).not.toContain('pnpm kbqa');
    expect(await openDatabaseFiles(server.pid!)).toBeGreaterThanOrEqual(4);

    const ingest = await post(base, '/v1/ingestDocuments', {
      api_key: key,
      documents: [
        { source: 'install', content: '# Install\n\nThe acme installer sets up the widget factory.' },
      ],
    });
    expect(ingest.status).toBe(200);
    await waitForTask(base, key, String(ingest.body.task_id));
    await expectAnswered(base, key);
    // The misspelled question that hybrid retrieval finds by its vector finds nothing lexically.
    expect(await misspelledSources(base, key)).toEqual([]);
    expect((await fetch(`${base}/dashboard/`)).status).toBe(200);
    expect((await fetch(`${base}/widget.js`)).status).toBe(200);
    served = { base, key };
  });

  it('reads an uploaded PDF with the pdfjs-dist it carries and answers with the page', async () => {
    if (!served) throw new Error('the service of the previous test did not start');
    const { base, key } = served;
    const pdf = await makePdf(
      [
        'Espresso machine manual. Unpack the machine and rinse the water tank.',
        'Descaling: run citric acid through the boiler every ninety days.',
      ],
      'Espresso manual',
    );
    const form = new FormData();
    form.append('api_key', key);
    form.append('files', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'espresso.pdf');
    const res = await fetch(`${base}/v1/ingestFiles`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const taskId = String(((await res.json()) as { task_id: number }).task_id);
    await waitForTask(base, key, taskId);
    const status = await post(base, '/v1/ingestionStatus', { api_key: key, task_id: taskId });
    expect(status.body.result).toMatchObject({ success: true, indexed: 1, skipped: 0 });
    const chat = await post(base, '/v1/serviceChat', {
      api_key: key,
      question: 'How often should the boiler be descaled with citric acid?',
      history: [],
      shouldStream: false,
    });
    expect(chat.status).toBe(200);
    expect(chat.body.answer.text).toContain('every ninety days');
    expect(chat.body.sources[0]?.link).toBe('espresso.pdf#page=2');
    expect(output(server!)).not.toMatch(/Cannot load "@napi-rs\/canvas"|Cannot polyfill/);
  });

  it('pulls the generated tiny model from a model host, embeds with ONNX Runtime and answers with hybrid retrieval', async () => {
    await stop(server);
    server = undefined;
    const hubRoot = join(dir, 'hub');
    await makeTinyModel(join(hubRoot, 'acme'));
    const hub = await serveHub(hubRoot);
    const models = join(dir, 'models');
    const hybridEnv = { ...env, KBQA_DATA_DIR: join(dir, 'data-hybrid'), KBQA_MODELS_DIR: models };
    try {
      const online: NodeJS.ProcessEnv = { ...hybridEnv, KBQA_MODEL_HOST: hub.url };
      delete online.KBQA_OFFLINE;
      const pulled = await run('./kbqa-linux-x64', ['models', 'pull', 'acme/kbqa-tiny-bert', '--json'], {
        cwd: dir,
        env: { ...online, KBQA_MODEL_HOST: hub.url },
      });
      expect(JSON.parse(pulled.stdout)).toMatchObject({
        model: 'acme/kbqa-tiny-bert',
        dimension: TINY_MODEL_DIMENSION,
        models_dir: models,
      });
      expect(hub.requests.some((r) => r.endsWith('model_quantized.onnx'))).toBe(true);
    } finally {
      await new Promise((r) => hub.server.close(r));
    }

    const withModel = { ...hybridEnv, KBQA_EMBED_MODEL: 'acme/kbqa-tiny-bert' };
    const json = async (...args: string[]) =>
      JSON.parse((await run('./kbqa-linux-x64', [...args, '--json'], { cwd: dir, env: withModel })).stdout);
    await json('projects', 'create', 'docs');
    const { key } = await json('keys', 'create', '--project', '1', '--kind', 'server');
    const started = Date.now();
    server = spawn('./kbqa-linux-x64', ['start'], {
      cwd: dir,
      env: withModel,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const base = await listening(server);
    await printed(server, /Embedding model acme\/kbqa-tiny-bert@\w+ ready \(64 dimensions\)/);
    const health = await fetch(`${base}/health`);
    process.stdout.write(
      `kbqa-linux-x64 start: embedding model ready, /health hybrid after ${Date.now() - started} ms (warm cache)\n`,
    );
    expect(await health.json()).toMatchObject({ status: 'ok', retrieval: 'hybrid' });
    expect(output(server)).not.toMatch(/embedding worker|Cannot find module|is not available/);

    const ingest = await post(base, '/v1/ingestDocuments', {
      api_key: key,
      documents: [
        { source: 'install', content: '# Install\n\nThe acme installer sets up the widget factory.' },
        {
          source: 'billing',
          content: '# Billing\n\nInvoices are sent monthly by email to the account owner.',
        },
      ],
    });
    expect(ingest.status).toBe(200);
    await waitForTask(base, key, String(ingest.body.task_id));
    await expectAnswered(base, key);
    // No word of it is in any page (the lexical service above finds nothing): only the vector side,
    // which shares the misspelled words' letters with the installer page, finds that page.
    expect((await misspelledSources(base, key))[0]).toMatchObject({ link: 'install' });
  });

  it('with KBQA_LLM=local, imports a GGUF model, loads it with the runtime it carries and answers with it', async () => {
    await stop(server);
    server = undefined;
    const localEnv = {
      ...env,
      KBQA_LLM: 'local',
      KBQA_LLM_MODEL: 'tiny',
      KBQA_LLM_CONTEXT_TOKENS: '300',
      KBQA_LLM_MAX_TOKENS: '40',
      // One thread: on a shared two-core host llama.cpp's threads otherwise wait for each other.
      KBQA_LLM_THREADS: '1',
    };
    const file = await writeTinyGguf(join(dir, 'copied'));
    const imported = await run('./kbqa-linux-x64', ['models', 'import', file, '--name', 'tiny', '--json'], {
      cwd: dir,
      env: localEnv,
    });
    expect(JSON.parse(imported.stdout)).toMatchObject({ model: 'tiny', architecture: 'llama' });
    const { key } = await cli('keys', 'create', '--project', '1', '--kind', 'server');
    const started = Date.now();
    server = spawn('./kbqa-linux-x64', ['start'], {
      cwd: dir,
      env: localEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const base = await listening(server);
    // Logged once the model is loaded (KBQA_LLM_SEQUENCES unset: the count chosen for this host).
    await printed(server, /KBQA_LLM=local: \d+ sequences?,|KBQA_LLM=local: .*cannot be loaded/);
    process.stdout.write(`kbqa-linux-x64 start: local model loaded after ${Date.now() - started} ms\n`);
    const health = (await (await fetch(`${base}/health`)).json()) as { llm: unknown };
    expect(health.llm).toMatchObject({ model: 'tiny', state: 'ready' });
    // node-llama-cpp tried its binding in a child process (the binary itself) before loading it.
    expect(output(server)).not.toMatch(/Failed to load a prebuilt binary|not independent|Cannot find module/);
    const cache = await readdir(join(dir, 'cache'));
    expect(await readdir(join(dir, 'cache', cache[0] as string, 'llama', 'node_modules'))).toEqual(
      expect.arrayContaining(['node-llama-cpp', '@node-llama-cpp']),
    );

    const chat = await post(base, '/v1/serviceChat', {
      api_key: key,
      question: 'What does the acme installer set up?',
      history: [],
      shouldStream: false,
    });
    expect(chat.status).toBe(200);
    expect(chat.body.sources[0]).toMatchObject({ link: 'install' });
    // The random-weight model's words, not the extractive answer, which quotes the page
    // ("widget factory": words the tiny model's vocabulary does not hold).
    expect(chat.body.answer.text).toMatch(/\w+ \w+ \w+/);
    expect(chat.body.answer.text).not.toContain('widget factory');
  });
});

/** The machine's PostgreSQL, found by test/report-skips.js (jest globalSetup), which says when it is not. */
const withPostgres = process.env.KBQA_TEST_POSTGRES_SERVER !== undefined ? describe : describe.skip;
const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };

/**
 * The same executable on PostgreSQL (KBQA_DATABASE_URL), as a team that outgrew one SQLite file
 * runs it: the CLI and the service keep every record in a database of the test's own, and write
 * no SQLite file.
 */
withPostgres('kbqa-linux-x64 on PostgreSQL', () => {
  const database = `kbqa_binary_${process.pid}_${randomBytes(4).toString('hex')}`;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | undefined;
  const admin = async <T>(name: string, fn: (c: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ ...SERVER, database: name });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kbqa-binary-pg-'));
    await copyFile(BINARY, join(dir, 'kbqa-linux-x64'));
    await mkdir(join(dir, 'bin'));
    await admin('postgres', (c) => c.query(`CREATE DATABASE ${database}`));
    env = {
      HOME: dir,
      PATH: join(dir, 'bin'),
      KBQA_DATA_DIR: join(dir, 'data'),
      KBQA_CACHE_DIR: join(dir, 'cache'),
      KBQA_DATABASE_URL: `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${database}`,
      KBQA_OFFLINE: '1',
      HOST: '127.0.0.1',
      PORT: '0',
    };
  });

  afterAll(async () => {
    await stop(server);
    await admin('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs the CLI and the service against PostgreSQL: ingest and chat, every record there, no SQLite file', async () => {
    const cli = async (...args: string[]) =>
      JSON.parse((await run('./kbqa-linux-x64', [...args, '--json'], { cwd: dir, env })).stdout);
    expect(await cli('projects', 'create', 'docs')).toMatchObject({ id: 1, name: 'docs' });
    const { key } = await cli('keys', 'create', '--project', '1', '--kind', 'server');
    server = spawn('./kbqa-linux-x64', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const base = await listening(server);
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    // The machine's server has no pgvector: lexical-only, and /health says why.
    expect(await health.json()).toMatchObject({ status: 'ok', retrieval: 'lexical' });
    const ingest = await post(base, '/v1/ingestDocuments', {
      api_key: key,
      documents: [
        { source: 'install', content: '# Install\n\nThe acme installer sets up the widget factory.' },
      ],
    });
    expect(ingest.status).toBe(200);
    await waitForTask(base, key, String(ingest.body.task_id));
    await expectAnswered(base, key);
    const counts = await admin(database, async (c) => {
      const count = async (table: string) =>
        (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
      return {
        projects: await count('projects'),
        chunks: await count('chunks'),
        conversations: await count('conversations'),
      };
    });
    expect(counts).toEqual({ projects: 1, chunks: 1, conversations: 1 });
    const files = await readdir(join(dir, 'data')).catch(() => [] as string[]);
    expect(files.filter((f) => /\.(sqlite|db)(-wal|-shm)?$/.test(f))).toEqual([]);
  });
});

async function waitForTask(base: string, key: string, taskId: string): Promise<void> {
  // A guard against a hung task, not a speed check: a loaded 2-core machine can take minutes.
  const deadline = Date.now() + 300_000;
  for (;;) {
    const s = await post(base, '/v1/ingestionStatus', { api_key: key, task_id: taskId });
    if (s.body.status === 'completed') return;
    if (Date.now() > deadline || s.body.status === 'failed')
      throw new Error(`ingestion: ${JSON.stringify(s.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A chat about the ingested installer page is answered from it. */
async function expectAnswered(base: string, key: string): Promise<void> {
  const chat = await post(base, '/v1/serviceChat', {
    api_key: key,
    question: 'What does the acme installer set up?',
    history: [],
    shouldStream: false,
  });
  expect(chat.status).toBe(200);
  expect(chat.body.answer.text).toContain('widget factory');
}

/** The sources a chat cites for a question that shares no word with any page, only letters. */
async function misspelledSources(base: string, key: string): Promise<Array<{ link: string }>> {
  const chat = await post(base, '/v1/serviceChat', {
    api_key: key,
    question: 'wigdet factroy',
    history: [],
    shouldStream: false,
  });
  expect(chat.status).toBe(200);
  return chat.body.sources;
}

/** A model host on 127.0.0.1 serving `<root>/<repo>/<file>` as the Hub's `/<repo>/resolve/main/<file>`. */
async function serveHub(root: string): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
    const file = m ? join(root, m[1]!, m[2]!) : '';
    if (!m || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests };
}

/** Resolves once the process has printed a line matching `pattern` (at once if it already has). */
function printed(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(output(child))) return;
      child.stdout?.off('data', later);
      child.stderr?.off('data', later);
      child.off('exit', exited);
      resolve();
    };
    // Registered after listening()'s handler, which records the output this reads, so runs after it.
    const later = () => check();
    const exited = (code: number | null) =>
      reject(new Error(`exited with ${code} before printing ${pattern}: ${output(child)}`));
    child.stdout?.on('data', later);
    child.stderr?.on('data', later);
    child.once('exit', exited);
    check();
  });
}

const outputs = new WeakMap<ChildProcess, string>();
/** What the process has printed so far, colours removed. */
const output = (child: ChildProcess) => (outputs.get(child) ?? '').replace(/\x1b\[[0-9;]*m/g, '');

/** How many of the process's open files are the SQLite database (not its -wal or -shm). */
async function openDatabaseFiles(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.filter((t) => t.endsWith('kbqa.sqlite')).length;
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      outputs.set(child, output);
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`kbqa-linux-x64 start exited with ${code}: ${output}`)));
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  await exited;
}

async function post(
  base: string,
  path: string,
  body: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert response bodies field by field
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

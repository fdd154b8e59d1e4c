import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

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
      expect.arrayContaining(['better_sqlite3.node', 'vec0.so', 'dashboard', 'widget']),
    );
  });

  it('serves /health, ingests a document and answers a chat about it', async () => {
    const { key } = await cli('keys', 'create', '--project', '1', '--kind', 'server');
    const started = Date.now();
    server = spawn('./kbqa-linux-x64', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const base = await listening(server);
    const health = await fetch(`${base}/health`);
    process.stdout.write(`kbqa-linux-x64 start: /health after ${Date.now() - started} ms (warm cache)\n`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', retrieval: 'lexical' });

    const ingest = await post(base, '/v1/ingestDocuments', {
      api_key: key,
      documents: [
        { source: 'install', content: '# Install\n\nThe acme installer sets up the widget factory.' },
      ],
    });
    expect(ingest.status).toBe(200);
    for (let i = 0; ; i++) {
      const s = await post(base, '/v1/ingestionStatus', {
        api_key: key,
        task_id: String(ingest.body.task_id),
      });
      if (s.body.status === 'completed') break;
      if (i > 100 || s.body.status === 'failed') throw new Error(`ingestion: ${JSON.stringify(s.body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const chat = await post(base, '/v1/serviceChat', {
      api_key: key,
      question: 'What does the acme installer set up?',
      history: [],
      shouldStream: false,
    });
    expect(chat.status).toBe(200);
    expect(chat.body.answer.text).toContain('widget factory');
    expect((await fetch(`${base}/dashboard/`)).status).toBe(200);
    expect((await fetch(`${base}/widget.js`)).status).toBe(200);
  });
});

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
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

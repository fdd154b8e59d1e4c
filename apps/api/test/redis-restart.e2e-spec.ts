import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { startTestApp, type TestApp } from './helpers';

/** The test starts its own Redis on its own port: the machine's Redis is never stopped. */
function redisServerBinary(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const REDIS_SERVER = redisServerBinary();
if (!REDIS_SERVER) {
  console.warn(
    'redis-server is not installed: the Redis restart test is SKIPPED. ' +
      'Install Redis (apt-get install redis-server) to include it; CI has it.',
  );
}
const describeWithRedisServer = REDIS_SERVER ? describe : describe.skip;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Redis without persistence, as many run it: a restart comes back empty. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER!,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  child.stdout.resume();
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

describeWithRedisServer('A Redis restart while tasks are queued (e2e, its own Redis)', () => {
  jest.setTimeout(120_000);
  let dir: string;
  let port: number;
  let redis: ChildProcess;
  let site: TestServer;
  const held: ServerResponse[] = [];
  let open = false;
  let pageRequested: () => void = () => undefined;
  const pageRequest = new Promise<void>((r) => (pageRequested = r));
  let t: TestApp;

  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>Held</title></head><body><main><h1>Held</h1><p>A held page.</p></main></body></html>',
    );
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-redis-restart-'));
    port = await freePort();
    redis = await startRedis(port, dir);
    site = await startServer((req, res) => {
      if (!req.url?.startsWith('/page')) return void res.writeHead(404).end();
      if (open) return answer(res);
      held.push(res);
      pageRequested();
    });
    t = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      KBQA_QUEUE_RECONCILE_MS: '200',
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    });
  });
  afterAll(async () => {
    open = true;
    held.splice(0).forEach(answer);
    await t.close();
    await site.close();
    await stopRedis(redis);
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts queued tasks back without a restart, answers at once while Redis is down, and says so in /health', async () => {
    const p = await t.createProject('restart');
    // A running task holds the project's turn, so the next tasks wait in Redis.
    const held1 = await t
      .post('/v1/ingestData', { api_key: p.serverKey, type: 'url', url: `${site.origin}/page1` })
      .expect(200);
    await pageRequest;
    const queued: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t
        .post('/v1/ingestDocuments', {
          api_key: p.serverKey,
          documents: [{ source: `doc${i}`, content: `text ${i}` }],
        })
        .expect(200);
      queued.push(res.body.task_id);
    }
    expect((await request(t.http).get('/health').expect(200)).body).toMatchObject({
      status: 'ok',
      queue: 'bullmq',
      queue_state: 'ok',
    });

    await stopRedis(redis);
    const down = await request(t.http).get('/health').expect(200);
    expect(down.body).toMatchObject({ status: 'degraded', queue: 'bullmq', queue_state: 'unavailable' });
    expect(down.body.queue_detail).toEqual(expect.any(String));
    // Accepted and stored while the queue is down: the reconciliation queues it later.
    const during = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'late', content: 'late text' }],
      })
      .expect(200);
    queued.push(during.body.task_id);

    redis = await startRedis(port, dir); // back, and empty
    open = true;
    held.splice(0).forEach(answer);

    for (const id of [held1.body.task_id as number, ...queued]) {
      const done = await t.waitForTask(id, 60_000);
      expect(done.result).toMatchObject({ success: true });
    }
    expect((await request(t.http).get('/health').expect(200)).body).toMatchObject({
      status: 'ok',
      queue_state: 'ok',
    });
    const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    expect(sources.body).toHaveLength(10);
  });
});

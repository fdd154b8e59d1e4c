import { type ChildProcess, spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';

const REDIS_URL = process.env.REDIS_URL;

/** Starts `kbqa worker` and resolves once it says its workers run. */
function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'cli.js'), 'worker'], {
    env: { ...process.env, KBQA_EMBED_MODEL: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('ingestion worker running')) {
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`kbqa worker exited with ${code}: ${output}`)));
  });
}

async function stop(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

(REDIS_URL ? describe : describe.skip)('A worker killed with SIGKILL mid-task (e2e, BullMQ)', () => {
  jest.setTimeout(120_000);
  const queueName = `kbqa-crash-${process.pid}-${Date.now()}`;
  let dataDir: string;
  let site: TestServer;
  let api: ServerProcess | undefined;
  const workers: ChildProcess[] = [];
  const held: ServerResponse[] = [];
  let open = false;
  let requested: () => void = () => undefined;
  const pageRequested = new Promise<void>((r) => (requested = r));

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-crash-'));
    site = await startSite((req, res) => {
      if (req.url !== '/page') return void res.writeHead(404).end();
      if (!open) {
        held.push(res);
        requested();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>P</title></head><body><main><h1>P</h1><p>The page, at last.</p></main></body></html>',
      );
    });
  });
  afterAll(async () => {
    for (const w of workers) await stop(w, 'SIGTERM');
    await api?.stop();
    held.splice(0).forEach((r) => r.destroy());
    await site.close();
    const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
    await queue.obliterate({ force: true });
    await queue.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has its task run again by another worker after KBQA_QUEUE_STALL_MS', async () => {
    const env = {
      KBQA_DATA_DIR: dataDir,
      REDIS_URL: REDIS_URL!,
      KBQA_QUEUE_NAME: queueName,
      KBQA_QUEUE_STALL_MS: '2000',
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    };
    const project = JSON.parse(await cli(['projects', 'create', 'crash', '--json'], env));
    const key = JSON.parse(
      await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    api = await startServer({ ...env, KBQA_WORKER: '0' });
    const first = await startWorker(env);
    workers.push(first);
    const res = await postJson(api.baseUrl, '/v1/ingestData', {
      api_key: key.key,
      type: 'url',
      url: `${site.origin}/page`,
    });
    expect(res.status).toBe(200);
    await pageRequested; // the first worker runs the task
    await stop(first, 'SIGKILL');
    open = true;
    held.splice(0).forEach((r) => r.destroy());
    workers.push(await startWorker(env));

    // Well under the default stall check (30 s lock, 30 s interval): the setting took effect.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const s = await postJson(api.baseUrl, '/v1/ingestionStatus', {
        task_id: String(res.body.task_id),
        api_key: key.key,
      });
      if (s.body.status === 'completed') {
        expect(s.body.result).toMatchObject({ success: true, indexed: 1 });
        break;
      }
      if (Date.now() > deadline) throw new Error(`task still ${JSON.stringify(s.body)} 20 s after the crash`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

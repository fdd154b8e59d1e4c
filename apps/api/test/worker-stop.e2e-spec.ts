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

interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once its output so far matches `pattern`; rejects if it exits first. */
  until(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `kbqa worker` and resolves once it says its workers run. */
async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'cli.js'), 'worker'], {
    env: { ...process.env, KBQA_EMBED_MODEL: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting = new Set<() => void>();
  const keep = (d: Buffer) => {
    output += d.toString();
    for (const check of [...waiting]) check();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const until = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
      void exited.then(({ code, signal }) =>
        reject(new Error(`kbqa worker exited (${code ?? signal}) before ${pattern}: ${output}`)),
      );
    });
  await until(/ingestion worker running/);
  return { child, output: () => output, until, exited };
}

(REDIS_URL ? describe : describe.skip)('kbqa worker stopped with SIGTERM mid-task (e2e, BullMQ)', () => {
  jest.setTimeout(120_000);
  const queueName = `kbqa-worker-stop-${process.pid}-${Date.now()}`;
  let dataDir: string;
  let site: TestServer;
  let api: ServerProcess | undefined;
  const workers: WorkerProcess[] = [];
  const held: ServerResponse[] = [];
  let open = false;
  let requested: () => void = () => undefined;
  const pageRequested = new Promise<void>((r) => (requested = r));

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-worker-stop-'));
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
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGKILL');
        await w.exited;
      }
    }
    await api?.stop();
    held.splice(0).forEach((r) => r.destroy());
    await site.close();
    const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
    await queue.obliterate({ force: true });
    await queue.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 after one line, leaving its running task pending for the next worker, which runs it', async () => {
    const env = {
      KBQA_DATA_DIR: dataDir,
      REDIS_URL: REDIS_URL!,
      KBQA_QUEUE_NAME: queueName,
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
    };
    const project = JSON.parse(await cli(['projects', 'create', 'stop', '--json'], env));
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
    const taskId = String(res.body.task_id);
    await pageRequested; // the first worker runs the task, waiting for the page

    first.child.kill('SIGTERM');
    await expect(first.exited).resolves.toEqual({ code: 0, signal: null });
    const stopLines = first.output().match(/SIGTERM.*/g) ?? [];
    expect(stopLines).toHaveLength(1);
    expect(stopLines[0]).toMatch(
      /SIGTERM: stopped in \d+ ms; a running ingestion task is pending again, for the next worker/,
    );
    // Released, not failed: pending, with nothing indexed yet.
    const stopped = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: taskId, api_key: key.key });
    expect(stopped.body.status).toBe('pending');

    open = true;
    held.splice(0).forEach((r) => r.destroy());
    const second = await startWorker(env);
    workers.push(second);
    await second.until(new RegExp(`task ${taskId} completed`));
    expect(second.output()).toMatch(new RegExp(`re-queuing 1 unfinished task\\(s\\): ${taskId}\\b`));
    const done = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: taskId, api_key: key.key });
    expect(done.body).toMatchObject({ status: 'completed', result: { success: true, indexed: 1 } });
  });
});

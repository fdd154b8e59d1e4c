import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, startServer, type ServerProcess } from './process-helpers';
import {
  type HeldPageSite,
  obliterateQueue,
  projectWithServerKey,
  startHeldPageSite,
  startWorker,
  type WorkerProcess,
} from './worker-fixture';

const REDIS_URL = process.env.REDIS_URL;

(REDIS_URL ? describe : describe.skip)('kbqa worker stopped with SIGTERM mid-task (e2e, BullMQ)', () => {
  jest.setTimeout(120_000);
  const queueName = `kbqa-worker-stop-${process.pid}-${Date.now()}`;
  let dataDir: string;
  let page: HeldPageSite;
  let api: ServerProcess | undefined;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-worker-stop-'));
    page = await startHeldPageSite();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop('SIGKILL');
    await api?.stop();
    await page.close();
    await obliterateQueue(REDIS_URL!, queueName);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 after one line, leaving its running task pending for the next worker, which runs it', async () => {
    const env = {
      KBQA_DATA_DIR: dataDir,
      REDIS_URL: REDIS_URL!,
      KBQA_QUEUE_NAME: queueName,
      KBQA_ALLOW_PRIVATE_HOSTS: page.site.hostPort,
    };
    const key = await projectWithServerKey(env, 'stop');
    api = await startServer({ ...env, KBQA_WORKER: '0' });
    const first = await startWorker(env);
    workers.push(first);
    const res = await postJson(api.baseUrl, '/v1/ingestData', {
      api_key: key,
      type: 'url',
      url: `${page.site.origin}/page`,
    });
    expect(res.status).toBe(200);
    const taskId = String(res.body.task_id);
    await page.requested; // the first worker runs the task, waiting for the page

    first.child.kill('SIGTERM');
    await expect(first.exited).resolves.toEqual({ code: 0, signal: null });
    const stopLines = first.output().match(/SIGTERM.*/g) ?? [];
    expect(stopLines).toHaveLength(1);
    expect(stopLines[0]).toMatch(
      /SIGTERM: stopped in \d+ ms; a running ingestion task is pending again, for the next worker/,
    );
    // Released, not failed: pending, with nothing indexed yet.
    const stopped = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: taskId, api_key: key });
    expect(stopped.body.status).toBe('pending');

    page.release();
    const second = await startWorker(env);
    workers.push(second);
    await second.until(new RegExp(`task ${taskId} completed`));
    expect(second.output()).toMatch(new RegExp(`re-queuing 1 unfinished task\\(s\\): ${taskId}\\b`));
    const done = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: taskId, api_key: key });
    expect(done.body).toMatchObject({ status: 'completed', result: { success: true, indexed: 1 } });
  });
});

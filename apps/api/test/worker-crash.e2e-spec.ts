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

(REDIS_URL ? describe : describe.skip)('A worker killed with SIGKILL mid-task (e2e, BullMQ)', () => {
  jest.setTimeout(120_000);
  const queueName = `kbqa-crash-${process.pid}-${Date.now()}`;
  let dataDir: string;
  let page: HeldPageSite;
  let api: ServerProcess | undefined;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-crash-'));
    page = await startHeldPageSite();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop('SIGTERM');
    await api?.stop();
    await page.close();
    await obliterateQueue(REDIS_URL!, queueName);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has its task run again by another worker after KBQA_QUEUE_STALL_MS', async () => {
    const env = {
      KBQA_DATA_DIR: dataDir,
      REDIS_URL: REDIS_URL!,
      KBQA_QUEUE_NAME: queueName,
      // Well under BullMQ's default stall check (30 s lock, 30 s interval), which the test's own
      // timeout would not outlast: the task being run again shows the setting took effect.
      KBQA_QUEUE_STALL_MS: '2000',
      KBQA_ALLOW_PRIVATE_HOSTS: page.site.hostPort,
    };
    const key = await projectWithServerKey(env, 'crash');
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
    await page.requested; // the first worker runs the task
    await first.stop('SIGKILL');
    page.release();
    const second = await startWorker(env);
    workers.push(second);

    // The stalled job is taken over by the second worker, which logs its completion.
    await second.until(new RegExp(`task ${taskId} completed`));
    const done = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: taskId, api_key: key });
    expect(done.body).toMatchObject({ status: 'completed', result: { success: true, indexed: 1 } });
  });
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { IngestionService } from '../src/ingestion/ingestion.service';
import { startTestApp, type TestApp } from './helpers';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  // Said loudly so a skip is never silent: CI sets REDIS_URL (see .ci/run).
  console.warn(
    'REDIS_URL is not set: the BullMQ tests are SKIPPED. Run with REDIS_URL=redis://127.0.0.1:6379 to include them.',
  );
}
const describeWithRedis = REDIS_URL ? describe : describe.skip;

describeWithRedis('BullMQ ingestion queue (e2e, real Redis)', () => {
  const queueName = `kbqa-test-${process.pid}-${Date.now()}`;
  let queue: Queue;

  beforeAll(() => {
    queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('runs tasks on in-process BullMQ workers', async () => {
    const t: TestApp = await startTestApp({ REDIS_URL: REDIS_URL!, KBQA_QUEUE_NAME: queueName });
    try {
      const p = await t.createProject();
      const health = await request(t.http).get('/health').expect(200);
      expect(health.body.queue).toBe('bullmq');
      const res = await t
        .post('/v1/ingestDocuments', {
          api_key: p.serverKey,
          documents: [{ source: 'a', content: '# A\n\nbullmq' }],
        })
        .expect(200);
      const done = await t.waitForTask(res.body.task_id);
      expect(done.result).toEqual({ error: '', project_id: p.id, success: true, indexed: 1, skipped: 0 });
    } finally {
      await t.close();
    }
  });

  it('queues a task once however often it is enqueued, and `kbqa worker` runs it', async () => {
    const t = await startTestApp({ REDIS_URL: REDIS_URL!, KBQA_QUEUE_NAME: queueName, KBQA_WORKER: '0' });
    try {
      const p = await t.createProject();
      const res = await t
        .post('/v1/ingestDocuments', {
          api_key: p.serverKey,
          documents: [{ source: 'w', content: 'worker process' }],
        })
        .expect(200);
      const taskId: number = res.body.task_id;
      const ingestion = t.app.get(IngestionService);
      await ingestion.requeue({ id: taskId, projectId: p.id });
      await ingestion.requeue({ id: taskId, projectId: p.id });
      expect((await queue.getJobCounts('waiting')).waiting).toBe(1);
      const pending = await t.post('/v1/ingestionStatus', { task_id: taskId }).expect(200);
      expect(pending.body.status).toBe('pending');

      const worker = spawn(process.execPath, [join(__dirname, '..', 'dist', 'cli.js'), 'worker'], {
        env: {
          ...process.env,
          KBQA_DATA_DIR: t.dataDir,
          REDIS_URL: REDIS_URL!,
          KBQA_QUEUE_NAME: queueName,
          KBQA_EMBED_MODEL: 'none',
        },
        stdio: 'ignore',
      });
      const exited = new Promise((r) => worker.once('exit', r));
      try {
        const done = await t.waitForTask(taskId);
        expect(done.result).toEqual({ error: '', project_id: p.id, success: true, indexed: 1, skipped: 0 });
      } finally {
        worker.kill('SIGTERM');
        await exited;
      }
    } finally {
      await t.close();
    }
  });
});

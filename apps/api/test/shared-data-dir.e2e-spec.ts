import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { cli, postJson, startServer, type ServerProcess, waitForOutput } from './process-helpers';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'REDIS_URL is not set: the API-plus-worker test on one data directory is SKIPPED. ' +
      'Run with REDIS_URL=redis://127.0.0.1:6379 to include it.',
  );
}
const describeWithRedis = REDIS_URL ? describe : describe.skip;

const batch = (n: number) =>
  Array.from({ length: 500 }, (_, i) => ({
    source: `page${i}`,
    content: `# Page ${i}\n\nBatch ${n} says how hooks, decorators and plugins fit together on page ${i}.`,
  }));

describeWithRedis('An API process and a separate worker on one data directory (e2e, real processes)', () => {
  jest.setTimeout(180_000);
  const queueName = `kbqa-shared-dir-${process.pid}-${Date.now()}`;
  let dataDir: string;
  let server: ServerProcess | undefined;
  let worker: ReturnType<typeof spawn> | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-shared-dir-'));
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await server?.stop();
    const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
    await queue.obliterate({ force: true });
    await queue.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes every task and answers every deleteSource under concurrent writers', async () => {
    const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: REDIS_URL!, KBQA_QUEUE_NAME: queueName };
    const project = JSON.parse(await cli(['projects', 'create', 'shared', '--json'], env));
    const key = JSON.parse(
      await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    const api = await startServer({ ...env, KBQA_QUEUE_CONCURRENCY: '2' });
    server = api;
    worker = spawn(process.execPath, [join(__dirname, '..', 'dist', 'cli.js'), 'worker'], {
      env: { ...process.env, ...env, KBQA_EMBED_MODEL: 'none', KBQA_QUEUE_CONCURRENCY: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForOutput(worker, /ingestion worker running/, 'kbqa worker');

    // Eight identical batches (same sources, so every task rewrites what the others wrote), taken
    // by both processes, while deleteSource calls remove those sources again from the API process.
    const submitted = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        postJson(api.baseUrl, '/v1/ingestDocuments', { api_key: key.key, documents: batch(n) }),
      ),
    );
    expect(submitted.map((r) => r.status)).toEqual(Array(8).fill(200));

    const deadline = Date.now() + 120_000;
    const failedDeletes: unknown[] = [];
    const results = new Map<number, { status: string; error: string }>();
    for (let round = 0; results.size < submitted.length; round++) {
      const deletes = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          postJson(api.baseUrl, '/v1/deleteSource', {
            api_key: key.key,
            source: `page${(round * 5 + i) % 500}`,
          }),
        ),
      );
      failedDeletes.push(...deletes.filter((r) => r.status !== 200).map((r) => [r.status, r.body]));
      for (const { body } of submitted) {
        if (results.has(body.task_id)) continue;
        const s = await postJson(api.baseUrl, '/v1/ingestionStatus', { task_id: String(body.task_id) });
        if (s.body.status === 'completed' || s.body.status === 'failed')
          results.set(body.task_id, { status: s.body.status, error: s.body.result?.error });
      }
      if (Date.now() > deadline) throw new Error(`tasks unfinished after 120 s: ${results.size} of 8 ended`);
    }
    expect(failedDeletes).toEqual([]);
    expect([...results.values()]).toEqual(Array(8).fill({ status: 'completed', error: '' }));
  });
});

import type { ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { startTestApp, type TestApp } from './helpers';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'REDIS_URL is not set: the BullMQ case of the fairness test is SKIPPED. ' +
      'Run with REDIS_URL=redis://127.0.0.1:6379 to include it.',
  );
}

/** A page server that holds page requests until the test opens it, and says when one arrives. */
async function gatedSite() {
  const page =
    '<html><head><title>Slow page</title></head><body><main><h1>Slow page</h1>' +
    '<p>This page explains how the slow part of the guide works, at length.</p></main></body></html>';
  const held: ServerResponse[] = [];
  let open = false;
  let arrived: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page);
  };
  const server: TestServer = await startServer((req, res) => {
    if (!req.url?.startsWith('/page')) {
      res.writeHead(404).end();
      return;
    }
    if (open) return answer(res);
    held.push(res);
    arrived();
  });
  return {
    server,
    firstRequest,
    /** Answers what is held and every later request. */
    release() {
      open = true;
      for (const res of held.splice(0)) answer(res);
    },
  };
}

const modes: Array<[string, () => Record<string, string>]> = [['in-process queue', () => ({})]];
if (REDIS_URL) {
  const queueName = `kbqa-fair-${process.pid}-${Date.now()}`;
  modes.push(['BullMQ queue', () => ({ REDIS_URL, KBQA_QUEUE_NAME: queueName })]);
}

describe.each(modes)('Fair ingestion across projects, %s (e2e)', (_mode, extraEnv) => {
  let site: Awaited<ReturnType<typeof gatedSite>>;
  let t: TestApp;

  beforeAll(async () => {
    site = await gatedSite();
    t = await startTestApp({ ...extraEnv(), KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort });
  });
  afterAll(async () => {
    site.release();
    const env = extraEnv();
    await t.close();
    await site.server.close();
    if (env.REDIS_URL) {
      const queue = new Queue(env.KBQA_QUEUE_NAME!, { connection: redisConnection(env.REDIS_URL) });
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  const status = async (taskId: number, key: string) =>
    (await t.post('/v1/ingestionStatus', { task_id: String(taskId), api_key: key }).expect(200)).body as {
      status: string;
    };

  it("runs a small task of another project while one project's long task runs", async () => {
    const big = await t.createProject('big');
    const small = await t.createProject('small');
    const url = (n: number) => ({
      api_key: big.serverKey,
      type: 'url',
      url: `${site.server.origin}/page${n}`,
    });
    const first = (await t.post('/v1/ingestData', url(1)).expect(200)).body.task_id as number;
    const second = (await t.post('/v1/ingestData', url(2)).expect(200)).body.task_id as number;
    await site.firstRequest; // the big project's first task is running and held

    const quick = await t
      .post('/v1/ingestDocuments', {
        api_key: small.serverKey,
        documents: [{ source: 'note', content: 'hello' }],
      })
      .expect(200);
    const done = await t.waitForTask(quick.body.task_id, 20_000);
    expect(done.result).toMatchObject({ success: true, indexed: 1 });

    // Meanwhile the big project still holds one turn: its first task runs, its second waits.
    expect((await status(first, big.serverKey)).status).toBe('running');
    expect((await status(second, big.serverKey)).status).toBe('pending');

    site.release();
    const firstDone = await t.waitForTask(first, 20_000);
    expect(firstDone.result).toMatchObject({ success: true });
    const secondDone = await t.waitForTask(second, 20_000);
    expect(secondDone.result).toMatchObject({ success: true });
  });
});

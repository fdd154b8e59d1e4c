import { Queue } from 'bullmq';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const LOW_LIMITS = {
  KBQA_RATE_CHAT_PER_MIN: '4',
  KBQA_RATE_ANON_CHAT_PER_MIN: '2',
  KBQA_RATE_INGEST_PER_MIN: '3',
  KBQA_RATE_FAILED_KEYS_PER_MIN: '5',
  KBQA_TRUST_PROXY: 'true',
};

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'REDIS_URL is not set: the shared (Redis) rate-limit test is SKIPPED. ' +
      'Run with REDIS_URL=redis://127.0.0.1:6379 to include it.',
  );
}

function expect429(res: { status: number; headers: Record<string, string>; body: { code: string } }) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('RATE_LIMITED');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
}

describe('Rate limits (e2e, in memory)', () => {
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    t = await startTestApp(LOW_LIMITS);
    p = await t.createProject('limits');
  });
  afterAll(() => t.close());

  const chat = (key: string, from = '10.0.0.1') =>
    t.post('/v1/newConversation', { api_key: key }).set('x-forwarded-for', from);

  it('limits chat requests per server key, and another key has its own budget', async () => {
    for (let i = 0; i < 4; i++) await chat(p.serverKey).expect(200);
    expect429(await chat(p.serverKey));
    const other = await t.createProject('other');
    await chat(other.serverKey).expect(200);
  });

  it('limits an anon key per client address: one reader cannot spend every reader’s budget', async () => {
    const anon = (await t.createProject('docs-site')).anonKey;
    await chat(anon, '192.0.2.1').expect(200);
    await chat(anon, '192.0.2.1').expect(200);
    expect429(await chat(anon, '192.0.2.1'));
    await chat(anon, '192.0.2.2').expect(200);
  });

  it('limits ingestion requests per key', async () => {
    const q = await t.createProject('ingest');
    const ingest = () =>
      t.post('/v1/ingestDocuments', { api_key: q.serverKey, documents: [{ source: 's', content: 'c' }] });
    for (let i = 0; i < 3; i++) await ingest().expect(200);
    expect429(await ingest());
    // Reading status and sources is not limited.
    await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
  });

  it('stops key guessing from one address, even with a valid key afterwards', async () => {
    const guess = (key: string) =>
      t.post('/v1/getSources', { api_key: key }).set('x-forwarded-for', '198.51.100.7');
    for (let i = 0; i < 5; i++) await guess(`kbqa_sk_${'x'.repeat(40)}${i}`).expect(400);
    expect429(await guess(p.serverKey));
    // Another address is not affected.
    await t
      .post('/v1/getSources', { api_key: p.serverKey })
      .set('x-forwarded-for', '198.51.100.8')
      .expect(200);
  });
});

(REDIS_URL ? describe : describe.skip)('Rate limits shared by every process through Redis (e2e)', () => {
  const queueName = `kbqa-rate-${process.pid}-${Date.now()}`;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const env = { ...LOW_LIMITS, REDIS_URL: REDIS_URL!, KBQA_QUEUE_NAME: queueName, KBQA_WORKER: '0' };
    a = await startTestApp(env);
    // A second API process on the same data directory and Redis.
    b = await startTestApp(env, { dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL!) });
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('counts requests to two API processes against one budget', async () => {
    const p = await a.createProject('shared');
    for (let i = 0; i < 2; i++) await a.post('/v1/newConversation', { api_key: p.serverKey }).expect(200);
    for (let i = 0; i < 2; i++) await b.post('/v1/newConversation', { api_key: p.serverKey }).expect(200);
    expect429(await a.post('/v1/newConversation', { api_key: p.serverKey }));
    expect429(await b.post('/v1/newConversation', { api_key: p.serverKey }));
  });
});

import { readDocsCorpusFile } from '@kbqa/core/testing';
import type { ReadPool } from '@kbqa/read-pool';
import { READ_POOL } from '../src/retrieval/read-pool.module';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const PAGES = ['reference/hooks.md', 'reference/decorators.md', 'reference/logging.md', 'guides/testing.md'];
const QUESTIONS = [
  'How do I add a hook?',
  'What does decorate do?',
  'How can I change the log level?',
  'How do I test my routes with inject?',
];

/** One app with the pool and one without, on the same pages: chat must not tell them apart. */
describe('Read pool (e2e)', () => {
  let pooled: TestApp;
  let inProcess: TestApp;
  let a: TestProject;
  let b: TestProject;

  async function ingest(t: TestApp, p: TestProject, pages: string[]): Promise<void> {
    const documents = pages.map((page) => ({ source: page, content: readDocsCorpusFile(page) }));
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
    await t.waitForTask(res.body.task_id);
  }

  const chat = (t: TestApp, p: TestProject, question: string) =>
    t
      .post('/v1/serviceChat', { api_key: p.serverKey, question, history: [], shouldStream: false })
      .expect(200);

  beforeAll(async () => {
    pooled = await startTestApp({ KBQA_READ_WORKERS: '2' });
    inProcess = await startTestApp({ KBQA_READ_WORKERS: '0' });
    a = await pooled.createProject('pooled');
    b = await inProcess.createProject('in-process');
    await ingest(pooled, a, PAGES);
    await ingest(inProcess, b, PAGES);
  });
  afterAll(async () => {
    await pooled.close();
    await inProcess.close();
  });

  it('runs chat on the pool only when KBQA_READ_WORKERS is above 0', () => {
    expect(pooled.app.get<ReadPool | null>(READ_POOL)?.size).toBe(2);
    expect(inProcess.app.get<ReadPool | null>(READ_POOL)).toBeNull();
  });

  it('answers with the same sources and text through the pool as in process', async () => {
    for (const question of QUESTIONS) {
      const [x, y] = await Promise.all([chat(pooled, a, question), chat(inProcess, b, question)]);
      expect(x.body.sources.length).toBeGreaterThan(0);
      expect(x.body.sources).toEqual(y.body.sources);
      expect(x.body.answer).toEqual(y.body.answer);
    }
  });

  it('finds a page ingested after the pool started', async () => {
    const question = 'How do I validate the request body with a JSON schema?';
    const before = await chat(pooled, a, question);
    expect(before.body.sources.map((s: { link: string }) => s.link)).not.toContain('reference/validation.md');
    await ingest(pooled, a, ['reference/validation.md']);
    const after = await chat(pooled, a, question);
    expect(after.body.sources[0].link).toBe('reference/validation.md');
  });

  it('ends the pool workers when the app closes', async () => {
    const t = await startTestApp({ KBQA_READ_WORKERS: '1' });
    const pool = t.app.get<ReadPool>(READ_POOL);
    expect(pool.size).toBe(1);
    await t.close();
    expect(pool.size).toBe(0);
  });
});

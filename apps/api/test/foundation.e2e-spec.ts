import request from 'supertest';
import { SqliteChunkIndex } from '@kbqa/store-sqlite';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const DOC = (source: string, content: string, metadata?: Record<string, unknown>) => ({
  source,
  content,
  metadata,
});
const MARKDOWN = `# Routes\n\nFastify routes are declared with \`fastify.route()\`.\n\n## Shorthand\n\nUse \`fastify.get(path, handler)\` for GET routes.\n\n\`\`\`js\nfastify.get('/', async () => ({ hello: 'world' }))\n\`\`\`\n`;

describe('Foundation endpoints (e2e)', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;

  beforeAll(async () => {
    t = await startTestApp();
    a = await t.createProject('a');
    b = await t.createProject('b');
  });
  afterAll(() => t.close());

  describe('GET /health', () => {
    it('reports status, version, store, retrieval mode, queue kind and disk state', async () => {
      const res = await request(t.http).get('/health').expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        version: expect.any(String),
        store: 'sqlite',
        retrieval: 'lexical',
        queue: 'in-process',
        queue_state: 'ok',
        disk_state: 'ok',
      });
    });
  });

  describe('ingestDocuments', () => {
    it('returns an integer task id and completes with the chunks indexed', async () => {
      const res = await t
        .post('/v1/ingestDocuments', {
          api_key: a.serverKey,
          documents: [
            DOC('manual/routes', MARKDOWN, { version: 5, author: 'ann' }),
            DOC('manual/empty', 'short note'),
          ],
        })
        .expect(200);
      expect(Number.isInteger(res.body.task_id)).toBe(true);
      const status = await t.waitForTask(res.body.task_id);
      expect(status).toEqual({
        status: 'completed',
        result: { error: '', project_id: a.id, success: true, indexed: 2, skipped: 0 },
      });
      const index = t.app.get(SqliteChunkIndex);
      const hits = await index.search({
        projectId: a.id,
        text: 'shorthand GET routes',
        topK: 3,
        mode: 'lexical',
      });
      expect(hits[0]?.source).toBe('manual/routes');
      expect(hits[0]?.headingPath).toEqual(['Routes']);
    });

    it('replaces a source on re-ingestion instead of duplicating it', async () => {
      const index = t.app.get(SqliteChunkIndex);
      const p = await t.createProject('replace');
      for (const content of [MARKDOWN, MARKDOWN + '\n\nOne more paragraph.']) {
        const res = await t.post('/v1/ingestDocuments', {
          api_key: p.serverKey,
          documents: [DOC('same', content)],
        });
        await t.waitForTask(res.body.task_id);
      }
      const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(sources.body).toHaveLength(1);
      const hits = await index.search({ projectId: p.id, text: 'paragraph', topK: 10, mode: 'lexical' });
      expect(hits).toHaveLength(1);
    });

    it('accepts a body sent as text/plain or without a content type', async () => {
      const body = JSON.stringify({ api_key: a.serverKey, documents: [DOC('plain', 'text body')] });
      await request(t.http)
        .post('/v1/ingestDocuments')
        .set('Content-Type', 'text/plain')
        .send(body)
        .expect(200);
      const res = await request(t.http)
        .post('/v0/ingestDocuments')
        .unset('Content-Type')
        .send(Buffer.from(body));
      expect(res.status).toBe(200);
    });

    it('refuses more than 500 documents with 400', async () => {
      const documents = Array.from({ length: 501 }, (_, i) => DOC(`s${i}`, 'x'));
      const res = await t.post('/v1/ingestDocuments', { api_key: a.serverKey, documents }).expect(400);
      expect(res.body).toEqual({ error: expect.stringContaining('at most 500'), code: 'BAD_REQUEST' });
    });

    it('refuses a body over 2 MB with 413', async () => {
      const documents = [DOC('big', 'x'.repeat(2 * 1024 * 1024 + 10))];
      const res = await t.post('/v1/ingestDocuments', { api_key: a.serverKey, documents }).expect(413);
      expect(res.body).toEqual({ error: expect.any(String), code: 'PAYLOAD_TOO_LARGE' });
    });

    it.each([
      ['content of the wrong type', { documents: [{ source: 's', content: 5 }] }, /content must be a string/],
      ['a missing source', { documents: [{ content: 'x' }] }, /source/],
      ['missing documents', {}, /documents/],
      ['an unknown field', { documents: [DOC('s', 'x')], extra: 1 }, /extra should not exist/],
      [
        'an unknown document field',
        { documents: [{ ...DOC('s', 'x'), colour: 'red' }] },
        /colour should not exist/,
      ],
      [
        'nested metadata',
        { documents: [DOC('s', 'x', { a: { b: 1 } })] },
        /metadata must be an object whose values/,
      ],
      [
        'a bad summarize option',
        { documents: [{ ...DOC('s', 'x'), options: { summarize: 'yes' } }] },
        /summarize must be a boolean/,
      ],
    ])('refuses %s with 400', async (_name, body, message) => {
      const res = await t.post('/v1/ingestDocuments', { api_key: a.serverKey, ...body }).expect(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.error).toMatch(message);
    });

    it('refuses malformed JSON with 400', async () => {
      const res = await request(t.http)
        .post('/v1/ingestDocuments')
        .set('Content-Type', 'application/json')
        .send('{"api_key": ')
        .expect(400);
      expect(res.body).toEqual({ error: 'Malformed JSON in request body', code: 'BAD_REQUEST' });
    });
  });

  describe('keys', () => {
    it('answers a missing, unknown or revoked key with the same 400', async () => {
      const missing = await t.post('/v1/getSources', {}).expect(400);
      expect(missing.body).toEqual({ error: 'api_key is required', code: 'INVALID_API_KEY' });
      const unknown = await t.post('/v1/getSources', { api_key: 'kbqa_sk_' + 'A'.repeat(32) }).expect(400);
      const malformed = await t.post('/v1/getSources', { api_key: 'nonsense' }).expect(400);
      expect(malformed.body).toEqual(unknown.body);
      const p = await t.createProject('revoked');
      const key = await t.projects.createKey(p.id, 'server');
      await t.post('/v1/getSources', { api_key: key.key }).expect(200);
      await t.projects.revokeKey(key.id);
      const revoked = await t.post('/v1/getSources', { api_key: key.key }).expect(400);
      expect(revoked.body).toEqual(unknown.body);
    });

    it('refuses an anon key on server-side endpoints with 403', async () => {
      for (const path of ['/v1/ingestDocuments', '/v1/getSources', '/v1/deleteSource', '/v1/ingestData']) {
        const res = await t.post(path, {
          api_key: a.anonKey,
          documents: [DOC('s', 'x')],
          source: 's',
          url: 'https://x.y',
        });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
        const asAnonField = await t.post(path, { anon_key: a.anonKey });
        expect(asAnonField.status).toBe(403);
      }
    });

    it('refuses a key that is not a string', async () => {
      const res = await t.post('/v1/getSources', { api_key: 42 }).expect(400);
      expect(res.body.code).toBe('INVALID_API_KEY');
    });
  });

  describe('ingestionStatus', () => {
    it('accepts the task id as a string or an integer', async () => {
      const res = await t.post('/v1/ingestDocuments', {
        api_key: a.serverKey,
        documents: [DOC('status', 'x')],
      });
      await t.waitForTask(res.body.task_id);
      const asInt = await t.post('/v1/ingestionStatus', { task_id: res.body.task_id }).expect(200);
      expect(asInt.body.status).toBe('completed');
    });

    it("answers 404 for an unknown task and for another project's task", async () => {
      const unknown = await t.post('/v1/ingestionStatus', { task_id: '999999' }).expect(404);
      expect(unknown.body.code).toBe('NOT_FOUND');
      const res = await t.post('/v1/ingestDocuments', {
        api_key: a.serverKey,
        documents: [DOC('mine', 'x')],
      });
      const other = await t.post('/v1/ingestionStatus', {
        task_id: String(res.body.task_id),
        api_key: b.serverKey,
      });
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
      await t
        .post('/v1/ingestionStatus', { task_id: String(res.body.task_id), api_key: a.serverKey })
        .expect(200);
    });

    it('refuses a malformed task id with 400', async () => {
      for (const task_id of ['abc', -1, 1.5, null, {}]) {
        const res = await t.post('/v1/ingestionStatus', { task_id }).expect(400);
        expect(res.body.code).toBe('BAD_REQUEST');
      }
    });

    it('reports progress fields while a task is not completed', async () => {
      const documents = Array.from({ length: 500 }, (_, i) => DOC(`bulk/${i}`, MARKDOWN.repeat(3)));
      const res = await t.post('/v1/ingestDocuments', { api_key: b.serverKey, documents }).expect(200);
      const first = await t.post('/v1/ingestionStatus', { task_id: String(res.body.task_id) }).expect(200);
      if (first.body.status !== 'completed') {
        expect(first.body).toEqual({
          status: expect.stringMatching(/^(pending|running)$/),
          current: expect.any(Number),
          current_step: expect.any(String),
          metadata: 'PENDING',
          total: 500,
        });
      }
      const done = await t.waitForTask(res.body.task_id);
      expect(done.result).toEqual({ error: '', project_id: b.id, success: true, indexed: 500, skipped: 0 });
    });
  });

  describe('getSources and deleteSource', () => {
    let p: TestProject;
    beforeAll(async () => {
      p = await t.createProject('sources');
      const res = await t.post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [
          DOC('one', 'first doc'),
          DOC('two', 'second doc'),
          DOC('three', 'third doc'),
          DOC('one', 'again'),
        ],
      });
      await t.waitForTask(res.body.task_id);
    });

    it('lists unique sources with ids, empty metadata and an ISO date with offset', async () => {
      const res = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(res.body.map((s: { source: string }) => s.source)).toEqual(['one', 'two', 'three']);
      for (const s of res.body) {
        expect(Number.isInteger(s.id)).toBe(true);
        expect(s.metadata).toEqual([]);
        expect(s.date_added).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      }
      const other = await t.post('/v1/getSources', { api_key: b.serverKey }).expect(200);
      expect(other.body.map((s: { source: string }) => s.source)).not.toContain('one');
    });

    it('needs a source unless delete_all is true', async () => {
      const res = await t.post('/v1/deleteSource', { api_key: p.serverKey }).expect(400);
      expect(res.body).toEqual({
        error: 'source is required unless delete_all is true',
        code: 'BAD_REQUEST',
      });
      await t.post('/v1/deleteSource', { api_key: p.serverKey, delete_all: false }).expect(400);
      await t.post('/v1/deleteSource', { api_key: p.serverKey, delete_all: 'yes' }).expect(400);
    });

    it("does not touch another project's source of the same name", async () => {
      const res = await t.post('/v1/deleteSource', { api_key: b.serverKey, source: 'one' }).expect(200);
      expect(res.body).toEqual({ message: 'Source(s) deleted', deleted: 0 });
      const still = await t.post('/v1/getSources', { api_key: p.serverKey });
      expect(still.body).toHaveLength(3);
    });

    it('deletes one named source with its chunks', async () => {
      const index = t.app.get(SqliteChunkIndex);
      const res = await t.post('/v1/deleteSource', { api_key: p.serverKey, source: 'two' }).expect(200);
      expect(res.body).toEqual({ message: 'Source(s) deleted', deleted: 1 });
      const left = await t.post('/v1/getSources', { api_key: p.serverKey });
      expect(left.body.map((s: { source: string }) => s.source)).toEqual(['one', 'three']);
      expect(await index.search({ projectId: p.id, text: 'second', topK: 5, mode: 'lexical' })).toEqual([]);
    });

    it('deletes all sources with delete_all', async () => {
      const index = t.app.get(SqliteChunkIndex);
      const res = await t.post('/v0/deleteSource', { api_key: p.serverKey, delete_all: true }).expect(200);
      expect(res.body).toEqual({ message: 'Source(s) deleted', deleted: 2 });
      expect((await t.post('/v1/getSources', { api_key: p.serverKey })).body).toEqual([]);
      expect(index.countChunks(p.id)).toBe(0);
    });
  });

  it('answers unknown paths with the JSON error shape', async () => {
    const res = await t.post('/v1/nope', {}).expect(404);
    expect(res.body).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });
});

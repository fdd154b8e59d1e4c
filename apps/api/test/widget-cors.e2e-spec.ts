import request from 'supertest';
import { ANON_KEY_PATHS } from '../src/widget/widget-cors';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

const SITE = 'https://docs.example.com';
const OTHER_SITE = 'https://elsewhere.example';
const REFUSED = { error: `origin ${OTHER_SITE} is not allowed for this project`, code: 'ORIGIN_NOT_ALLOWED' };

describe('Widget origins: CORS on the anon-key endpoints (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('widget');
    other = await t.createProject('other');
    await t.projects.setAllowedOrigins(p.id, [SITE]);
    const documents = [
      {
        source: 'https://docs.example.com/billing',
        content: '# Billing\n\nInvoices are sent on the first working day of each month by email.',
      },
    ];
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
    await t.waitForTask(res.body.task_id);
  });
  afterAll(() => t.close());

  const count = async (table: 'conversations' | 'messages', projectId = p.id) =>
    (await t.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`, [projectId]))[0]!
      .n;
  const from = (origin: string | undefined, path: string, body: object) => {
    const req = request(t.http).post(path);
    if (origin !== undefined) void req.set('Origin', origin);
    return req.send(body);
  };
  const preflight = (origin: string | undefined, path: string) => {
    const req = request(t.http)
      .options(path)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    if (origin !== undefined) void req.set('Origin', origin);
    return req;
  };

  describe('preflight (OPTIONS)', () => {
    it.each(ANON_KEY_PATHS.map((path) => [path]))(
      '%s: 204 with the CORS headers for a listed origin',
      async (path) => {
        const res = await preflight(SITE, path).expect(204);
        expect(res.headers).toMatchObject({
          'access-control-allow-origin': SITE,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '600',
          vary: 'Origin',
        });
        expect(res.text).toBe('');
      },
    );

    it('covers exactly the anon-key endpoints under both prefixes', () => {
      expect([...ANON_KEY_PATHS].sort()).toEqual(
        ['newConversation', 'endConversation', 'serviceChat', 'mendableChat', 'rateMessage']
          .flatMap((n) => [`/v1/${n}`, `/v0/${n}`])
          .sort(),
      );
    });

    it('refuses an unlisted origin, and no origin, with a 403 and no CORS headers', async () => {
      for (const origin of [OTHER_SITE, 'null', undefined, `${SITE}.evil.example`]) {
        const res = await preflight(origin, '/v1/serviceChat').expect(403);
        expect(res.body).toEqual({ error: expect.any(String), code: 'ORIGIN_NOT_ALLOWED' });
        expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    });

    it('is not answered on the other endpoints', async () => {
      for (const path of ['/v1/getSources', '/v1/ingestDocuments', '/v1/messages/byConversationId']) {
        const res = await preflight(SITE, path);
        expect(res.status).toBe(404);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  describe('POST from a page of another origin', () => {
    it('refuses an unlisted origin with 403 ORIGIN_NOT_ALLOWED and creates nothing', async () => {
      const conversations = await count('conversations');
      const res = await from(OTHER_SITE, '/v1/newConversation', { anon_key: p.anonKey }).expect(403);
      expect(res.body).toEqual(REFUSED);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(await count('conversations')).toBe(conversations);
    });

    it('refuses a chat from an unlisted origin before answering or storing anything, text/plain too', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { anon_key: p.anonKey }).expect(200);
      const messages = await count('messages');
      const body = { anon_key: p.anonKey, question: 'When are invoices sent?', history: [] };
      for (const path of ['/v1/serviceChat', '/v0/mendableChat']) {
        const json = await from(OTHER_SITE, path, { ...body, conversation_id: conv.conversation_id });
        expect(json.status).toBe(403);
        expect(json.body).toEqual(REFUSED);
      }
      // A text/plain POST is a "simple" request: browsers send it without asking first.
      const plain = await request(t.http)
        .post('/v1/serviceChat')
        .set('Origin', OTHER_SITE)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify(body))
        .expect(403);
      expect(JSON.parse(plain.text)).toEqual(REFUSED);
      expect(await count('messages')).toBe(messages);
      const ended = await from(OTHER_SITE, '/v1/endConversation', {
        anon_key: p.anonKey,
        conversation_id: conv.conversation_id,
      }).expect(403);
      expect(ended.body).toEqual(REFUSED);
      const [row] = await t.query<{ ended_at: string | null }>(
        'SELECT ended_at FROM conversations WHERE id = ?',
        [conv.conversation_id],
      );
      expect(row?.ended_at).toBeNull();
    });

    it("refuses an origin listed by another project only: the key's own project decides", async () => {
      const res = await from(SITE, '/v1/newConversation', { anon_key: other.anonKey }).expect(403);
      expect(res.body).toEqual({
        error: `origin ${SITE} is not allowed for this project`,
        code: 'ORIGIN_NOT_ALLOWED',
      });
    });

    it('answers a listed origin with Access-Control-Allow-Origin on JSON, SSE and text answers', async () => {
      const conv = await from(SITE, '/v1/newConversation', { anon_key: p.anonKey }).expect(200);
      expect(conv.headers['access-control-allow-origin']).toBe(SITE);
      expect(conv.headers.vary).toBe('Origin');
      const conversationId = conv.body.conversation_id as number;
      const chat = { anon_key: p.anonKey, question: 'When are invoices sent?', history: [] };

      const streamed = await from(SITE, '/v1/serviceChat', { ...chat, conversation_id: conversationId })
        .set('Accept', 'text/event-stream')
        .expect(200);
      expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(streamed.headers['access-control-allow-origin']).toBe(SITE);
      expect(streamed.headers.vary).toBe('Origin');
      const events = parseSse(streamed.text);
      expect(events[0]).toMatchObject({ chunk: '<|source|>' });
      expect(answerText(events)).toContain('first working day');
      const messageId = events.at(-1)!.metadata as number;

      const json = await from(SITE, '/v0/mendableChat', {
        ...chat,
        conversation_id: conversationId,
        shouldStream: false,
      }).expect(200);
      expect(json.headers['access-control-allow-origin']).toBe(SITE);
      expect(json.body.answer.text).toContain('first working day');

      const rated = await from(SITE, '/v0/rateMessage', {
        anon_key: p.anonKey,
        message_id: messageId,
        rating_value: 1,
      }).expect(200);
      expect(rated.text).toBe('Message rating updated');
      expect(rated.headers['access-control-allow-origin']).toBe(SITE);
      const ended = await from(SITE, '/v1/endConversation', {
        anon_key: p.anonKey,
        conversation_id: conversationId,
      }).expect(200);
      expect(ended.headers['access-control-allow-origin']).toBe(SITE);
    });

    it('lets the page read errors after the origin check (validation), with the CORS header', async () => {
      const res = await from(SITE, '/v1/serviceChat', { anon_key: p.anonKey, history: [] }).expect(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.headers['access-control-allow-origin']).toBe(SITE);
    });

    it('never sends CORS headers on the other endpoints, even to a listed origin', async () => {
      const sources = await from(SITE, '/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(sources.headers['access-control-allow-origin']).toBeUndefined();
      const status = await from(SITE, '/v1/ingestionStatus', { task_id: '1' });
      expect(status.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('allows any origin once the operator sets "*", and only then', async () => {
    const open = await t.createProject('open');
    await from('https://random.example', '/v1/newConversation', { anon_key: open.anonKey }).expect(403);
    await preflight('https://random.example', '/v1/newConversation').expect(403);
    await t.projects.setAllowedOrigins(open.id, ['*']);
    const res = await from('https://random.example', '/v1/newConversation', {
      anon_key: open.anonKey,
    }).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://random.example');
    await preflight('https://random.example', '/v1/newConversation').expect(204);
    await t.projects.setAllowedOrigins(open.id, []);
    await preflight('https://random.example', '/v1/newConversation').expect(403);
  });

  it('leaves requests without an Origin and same-origin ones as they were', async () => {
    const plain = await from(undefined, '/v1/newConversation', { anon_key: other.anonKey }).expect(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    for (const origin of ['http://kbqa.internal:8080', 'https://kbqa.internal:8080']) {
      const same = await request(t.http)
        .post('/v1/newConversation')
        .set('Host', 'kbqa.internal:8080')
        .set('Origin', origin)
        .send({ anon_key: other.anonKey })
        .expect(200);
      expect(same.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});

describe('GET /widget.js (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('serves the built widget as cacheable JavaScript, without a key', async () => {
    const res = await request(t.http).get('/widget.js').expect(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.text).toContain('kbqa-widget');
  });

  it('serves the Markdown module beside it, importable from any origin', async () => {
    const res = await request(t.http)
      .get('/widget-markdown.js')
      .set('Origin', 'https://docs.example')
      .expect(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.text).toMatch(/export\s*\{/);
    // The script tag's own file does not carry marked and DOMPurify.
    const widget = await request(t.http).get('/widget.js').expect(200);
    expect(widget.text.length).toBeLessThan(res.text.length / 3);
  });

  it('answers 304 to a matching If-None-Match, and the full file to a stale one', async () => {
    const { headers } = await request(t.http).get('/widget.js').expect(200);
    const fresh = await request(t.http).get('/widget.js').set('If-None-Match', `W/"old", ${headers.etag}`);
    expect(fresh.status).toBe(304);
    expect(fresh.text).toBe('');
    expect(fresh.headers.etag).toBe(headers.etag);
    await request(t.http).get('/widget.js').set('If-None-Match', '"old"').expect(200);
  });
});

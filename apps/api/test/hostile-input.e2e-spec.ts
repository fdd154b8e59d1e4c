import { Logger } from '@nestjs/common';
import { startTestApp, type TestApp, type TestProject } from './helpers';

describe('Hostile request bodies (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  const logged: string[] = [];
  let restore: jest.SpyInstance[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('hostile');
  });
  beforeEach(() => {
    logged.length = 0;
    const record = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
    restore = (['error', 'warn', 'log'] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation(record),
    );
  });
  afterEach(() => restore.forEach((s) => s.mockRestore()));
  afterAll(() => t.close());

  const raw = (path: string, text: string) =>
    t.post(path, undefined).set('content-type', 'application/json').send(text);

  it('answers a body nested 6,000 levels deep with 400 and logs no stack trace', async () => {
    const text = `{"task_id":"1","x":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    for (let i = 0; i < 3; i++) {
      const res = await raw('/v1/ingestionStatus', text).expect(400);
      expect(res.body).toEqual({
        error: 'the request body nests deeper than 32 levels',
        code: 'BAD_REQUEST',
      });
    }
    expect(logged.filter((line) => /at |RangeError|stack/i.test(line))).toEqual([]);
  });

  it('accepts ordinary nesting (documents with metadata)', async () => {
    await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'a', content: 'alpha', metadata: { lang: 'en', level: 2 } }],
      })
      .expect(200);
  });

  it.each(['__proto__', 'constructor'])(
    'refuses a top-level "%s" key with 400, like other unknown fields',
    async (key) => {
      const res = await raw(
        '/v1/getSources',
        `{"api_key":"${p.serverKey}","${key}":{"polluted":true}}`,
      ).expect(400);
      expect(res.body).toEqual({
        error: `the request body may not contain the key "${key}"`,
        code: 'BAD_REQUEST',
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('refuses a prototype key nested in metadata', async () => {
    const res = await raw(
      '/v1/ingestDocuments',
      `{"api_key":"${p.serverKey}","documents":[{"source":"a","content":"b","metadata":{"__proto__":{"x":1}}}]}`,
    ).expect(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('sends X-Content-Type-Options: nosniff on answers, errors and unknown paths', async () => {
    const ok = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    const bad = await t.post('/v1/getSources', { api_key: 'nope' }).expect(400);
    expect(bad.headers['x-content-type-options']).toBe('nosniff');
    const missing = await t.post('/v1/nothing', {}).expect(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });
});

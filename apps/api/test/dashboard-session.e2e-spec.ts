import request from 'supertest';
import { adminTokenFile, writeAdminTokenHash } from '../src/admin/admin-token';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'session-operator-token-0123456789';
/** Every timer API jest can fake, so that faking the rest moves only Date. */
const REAL_TIMERS: Array<Exclude<FakeableAPI, 'Date'>> = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

/** The `kbqa_session=…` pair of a login answer's Set-Cookie, and the whole header. */
function sessionOf(res: request.Response): { cookie: string; header: string } {
  const header = ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('kbqa_session='));
  if (!header) throw new Error('no session cookie was set');
  return { cookie: header.split(';')[0] ?? '', header };
}

describe('dashboard sessions: login, cookie, CSRF, expiry and logout (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN });
  });
  afterAll(() => t.close());

  const login = (token: string) => request(t.http).post('/dashboard/api/login').send({ token });

  it('serves the app under /dashboard with a strict content security policy', async () => {
    const page = await request(t.http).get('/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('/dashboard/app.js');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Client-side routes get the same page; the bundle is JavaScript.
    expect((await request(t.http).get('/dashboard/some/route')).text).toBe(page.text);
    const js = await request(t.http).get('/dashboard/app.js');
    expect(js.headers['content-type']).toMatch(/^application\/javascript/);
    expect(js.text.length).toBeGreaterThan(1000);
    expect((await request(t.http).get('/dashboard')).headers.location).toBe('/dashboard/');
  });

  it('refuses a wrong token without setting a cookie, and says who is logged in without a 401', async () => {
    const wrong = await login('not-the-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('UNAUTHORIZED');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const anon = await request(t.http).get('/dashboard/api/session');
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual({ logged_in: false });
    expect((await request(t.http).get('/admin/v1/projects')).status).toBe(401);
  });

  it('sets an HttpOnly, SameSite=Strict cookie that expires, and opens the operator API with it', async () => {
    const res = await login(TOKEN);
    expect(res.status).toBe(200);
    const { cookie, header } = sessionOf(res);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Strict/);
    expect(header).toMatch(/; Max-Age=43200/);
    expect(header).toMatch(/; Path=\//);
    expect(header).not.toMatch(/Secure/); // plain http here; behind https it is Secure
    expect(res.body.csrf_token).toMatch(/^[\w-]{20,}$/);
    const list = await request(t.http).get('/admin/v1/projects').set('cookie', cookie);
    expect(list.status).toBe(200);
    const session = await request(t.http).get('/dashboard/api/session').set('cookie', cookie);
    expect(session.body).toMatchObject({ logged_in: true, csrf_token: res.body.csrf_token });
    // The session id itself is stored only as a hash.
    const rows = await t.query<{ id_hash: string }>('SELECT id_hash FROM dashboard_sessions');
    expect(rows.some((r) => cookie.includes(r.id_hash))).toBe(false);
  });

  it('needs the CSRF token, and the own origin, for every change made with the cookie', async () => {
    const res = await login(TOKEN);
    const { cookie } = sessionOf(res);
    const csrf = res.body.csrf_token as string;
    const create = () => request(t.http).post('/admin/v1/projects').set('cookie', cookie).send({ name: 'p' });
    expect((await create()).status).toBe(401);
    expect((await create().set('x-csrf-token', 'wrong-token-wrong-token')).status).toBe(401);
    expect((await create().set('x-csrf-token', csrf).set('origin', 'http://evil.example')).status).toBe(401);
    const ok = await create().set('x-csrf-token', csrf);
    expect(ok.status).toBe(201);
    const sameOrigin = create()
      .set('x-csrf-token', csrf)
      .set('host', 'kbqa.test')
      .set('origin', 'http://kbqa.test');
    expect((await sameOrigin).status).toBe(201);
    // A wrong bearer token never falls back to the cookie.
    const both = await request(t.http)
      .get('/admin/v1/projects')
      .set('cookie', cookie)
      .set('authorization', 'Bearer nope');
    expect(both.status).toBe(401);
    // The public API takes keys only, never the session.
    const pub = await request(t.http).post('/v1/getSources').set('cookie', cookie).send({});
    expect(pub.status).toBe(400);
  });

  it('logs out with the CSRF token, after which the cookie opens nothing', async () => {
    const res = await login(TOKEN);
    const { cookie } = sessionOf(res);
    expect((await request(t.http).post('/dashboard/api/logout').set('cookie', cookie)).status).toBe(401);
    const out = await request(t.http)
      .post('/dashboard/api/logout')
      .set('cookie', cookie)
      .set('x-csrf-token', res.body.csrf_token as string);
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/kbqa_session=;.*Max-Age=0/);
    expect((await request(t.http).get('/admin/v1/projects').set('cookie', cookie)).status).toBe(401);
    expect((await request(t.http).get('/dashboard/api/session').set('cookie', cookie)).body).toEqual({
      logged_in: false,
    });
  });
});

describe('dashboard sessions end when they expire or the operator token rotates (e2e)', () => {
  it('expires after KBQA_DASHBOARD_SESSION', async () => {
    const t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_DASHBOARD_SESSION: '1h' });
    try {
      const before = Date.now();
      const res = await request(t.http).post('/dashboard/api/login').send({ token: TOKEN });
      const after = Date.now();
      const { cookie, header } = sessionOf(res);
      expect(header).toMatch(/Max-Age=3600(;|$)/);
      const projects = async () =>
        (await request(t.http).get('/admin/v1/projects').set('cookie', cookie)).status;
      expect(await projects()).toBe(200);
      // Only Date is faked: the server's timers and I/O run as usual while its clock moves on.
      jest.useFakeTimers({ doNotFake: REAL_TIMERS, now: before + 3_600_000 - 1_000 });
      expect(await projects()).toBe(200);
      jest.setSystemTime(after + 3_600_000 + 1_000);
      expect(await projects()).toBe(401);
    } finally {
      jest.useRealTimers();
      await t.close();
    }
  });

  it('ends sessions opened with a token that `kbqa admin token` replaced', async () => {
    const t = await startTestApp();
    try {
      const file = adminTokenFile(t.dataDir);
      await writeAdminTokenHash(file, 'kbqa_admin_first-token-0123456789', { replace: true });
      const res = await request(t.http)
        .post('/dashboard/api/login')
        .send({ token: 'kbqa_admin_first-token-0123456789' });
      const { cookie } = sessionOf(res);
      expect((await request(t.http).get('/admin/v1/projects').set('cookie', cookie)).status).toBe(200);
      await writeAdminTokenHash(file, 'kbqa_admin_second-token-0123456789', { replace: true });
      expect((await request(t.http).get('/admin/v1/projects').set('cookie', cookie)).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});

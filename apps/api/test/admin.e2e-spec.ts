import { startServer as startSite } from '@kbqa/core/testing';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';
import request from 'supertest';
import { adminTokenFile } from '../src/admin/admin-token';
import { startTestApp, type TestApp } from './helpers';
import { cli, startServer } from './process-helpers';

const TOKEN = 'test-operator-token-0123456789';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNAUTHORIZED = {
  error: 'a valid operator token (Authorization: Bearer <token>) or dashboard session is required',
  code: 'UNAUTHORIZED',
};

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/**
 * Every operator route, as the OpenAPI document names it. The document must list exactly these,
 * so a route added later fails here until it is added to this list, and so to the 401 checks.
 * Every row has three items: jest hands a `done` callback to a test function with more
 * parameters than its row has items.
 */
const ROUTES: Array<[Method, string, object | undefined]> = [
  ['post', '/admin/v1/projects', { name: 'refused' }],
  ['get', '/admin/v1/projects', undefined],
  ['get', '/admin/v1/projects/{id}', undefined],
  ['patch', '/admin/v1/projects/{id}', { name: 'refused' }],
  ['post', '/admin/v1/projects/{id}/keys', { kind: 'server' }],
  ['get', '/admin/v1/projects/{id}/keys', undefined],
  ['delete', '/admin/v1/keys/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/tasks', undefined],
  ['get', '/admin/v1/tasks/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/indexes', undefined],
  ['post', '/admin/v1/projects/{id}/indexes', { type: 'folder', path: '/' }],
  ['get', '/admin/v1/indexes/{id}', undefined],
  ['patch', '/admin/v1/indexes/{id}', { auto_sync: true }],
  ['post', '/admin/v1/indexes/{id}/sync', undefined],
  ['delete', '/admin/v1/indexes/{id}', undefined],
  ['post', '/admin/v1/projects/{id}/ingest', { url: 'https://docs.example.com' }],
  ['post', '/admin/v1/projects/{id}/files', undefined],
  ['post', '/admin/v1/projects/{id}/conversations', undefined],
  ['post', '/admin/v1/projects/{id}/chat', { question: 'refused?' }],
  ['put', '/admin/v1/projects/{id}/messages/{message_id}/rating', { rating_value: 1 }],
  ['get', '/admin/v1/projects/{id}/sources', undefined],
  ['delete', '/admin/v1/sources/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/taught', undefined],
  ['post', '/admin/v1/projects/{id}/taught', { question: 'refused', answer: 'refused' }],
  ['patch', '/admin/v1/taught/{id}', { answer: 'refused' }],
  ['delete', '/admin/v1/taught/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/conversations', undefined],
  ['get', '/admin/v1/conversations/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/analytics', undefined],
  ['get', '/admin/v1/projects/{id}/gaps', undefined],
  ['get', '/admin/v1/projects/{id}/tools', undefined],
  [
    'post',
    '/admin/v1/projects/{id}/tools',
    {
      name: 'refused',
      description: 'refused',
      parameters: { type: 'object' },
      method: 'GET',
      url: 'https://api.example.com/',
    },
  ],
  ['get', '/admin/v1/tools/{id}', undefined],
  ['patch', '/admin/v1/tools/{id}', { description: 'refused' }],
  ['delete', '/admin/v1/tools/{id}', undefined],
  ['post', '/admin/v1/tools/{id}/test', { args: {} }],
  ['post', '/admin/v1/projects/{id}/tools/import-openapi', { document: { openapi: '3.0.0', paths: {} } }],
  ['get', '/admin/v1/projects/{id}/tool-sources', undefined],
  ['post', '/admin/v1/projects/{id}/tool-sources', { kind: 'mcp', url: 'https://mcp.example.com/mcp' }],
  ['get', '/admin/v1/tool-sources/{id}/tools', undefined],
  ['delete', '/admin/v1/tool-sources/{id}', undefined],
  ['get', '/admin/v1/projects/{id}/integrations', undefined],
  ['get', '/admin/v1/projects/{id}/integrations/slack', undefined],
  ['put', '/admin/v1/projects/{id}/integrations/slack', { signing_secret: 'refused', bot_token: 'refused' }],
  ['delete', '/admin/v1/projects/{id}/integrations/slack', undefined],
  ['get', '/admin/v1/projects/{id}/integrations/discord', undefined],
  [
    'put',
    '/admin/v1/projects/{id}/integrations/discord',
    { public_key: 'a'.repeat(64), application_id: '1', bot_token: 'refused' },
  ],
  ['delete', '/admin/v1/projects/{id}/integrations/discord', undefined],
];

/** Runs the built CLI; never throws on a non-zero exit. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(__dirname, '..', 'dist', 'cli.js'), ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('Operator API (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Far above what this file's refused requests add up to; the limit has its own test below.
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_RATE_FAILED_KEYS_PER_MIN: '1000' });
  });
  afterAll(() => t.close());

  const call = (method: Method, path: string, body?: object, token: string | null = TOKEN) => {
    let req = request(t.http)[method](path);
    if (token !== null) req = req.set('Authorization', `Bearer ${token}`);
    return body === undefined ? req : req.send(body);
  };

  describe('authentication', () => {
    let projectId: number;
    beforeAll(async () => (projectId = (await t.createProject('guarded')).id));

    it.each(ROUTES)(
      '%s %s: 401 without a token and with a wrong one, the same body',
      async (m, route, body) => {
        const path = route.replace('{id}', String(projectId)).replace('{message_id}', '1');
        const missing = await call(m, path, body, null);
        const wrong = await call(m, path, body, TOKEN.slice(0, -1) + 'x');
        const basic = await request(t.http)
          [m](path)
          .set('Authorization', `Basic ${Buffer.from(`a:${TOKEN}`).toString('base64')}`);
        for (const res of [missing, wrong, basic]) {
          expect(res.status).toBe(401);
          expect(res.body).toEqual(UNAUTHORIZED);
          expect(res.headers['www-authenticate']).toBe('Bearer realm="kbqa-admin"');
        }
        expect((await t.projects.getProject(projectId)).name).toBe('guarded');
        expect((await t.projects.listProjects()).map((p) => p.name)).not.toContain('refused');
      },
    );

    it('does not take an api_key in place of the operator token', async () => {
      const p = await t.createProject('keyed');
      const res = await call('get', '/admin/v1/projects', undefined, p.serverKey);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });
  });

  describe('projects', () => {
    it('creates, shows, lists and renames a project', async () => {
      const created = await call('post', '/admin/v1/projects', { name: '  handbook ' }).expect(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        name: 'handbook',
        export_enabled: false,
        allowed_origins: [],
        created_at: expect.stringMatching(ISO),
      });
      const id = created.body.id as number;
      expect((await call('get', `/admin/v1/projects/${id}`).expect(200)).body).toEqual(created.body);
      const listed = await call('get', '/admin/v1/projects').expect(200);
      expect(listed.body.projects).toContainEqual(created.body);
      const renamed = await call('patch', `/admin/v1/projects/${id}`, { name: 'staff handbook' }).expect(200);
      expect(renamed.body).toEqual({ ...created.body, name: 'staff handbook' });
      expect((await t.projects.getProject(id)).name).toBe('staff handbook');
    });

    it('switches the message export on and off, as getMessagesData then answers', async () => {
      const p = await t.createProject('export');
      const exportData = () => t.post('/v1/getMessagesData', { api_key: p.serverKey });
      expect((await exportData().expect(400)).body.code).toBe('EXPORT_DISABLED');
      const on = await call('patch', `/admin/v1/projects/${p.id}`, { export_enabled: true }).expect(200);
      expect(on.body).toMatchObject({ id: p.id, name: 'export', export_enabled: true });
      expect((await exportData().expect(200)).body).toEqual([]);
      await call('patch', `/admin/v1/projects/${p.id}`, { export_enabled: false }).expect(200);
      expect((await exportData().expect(400)).body.code).toBe('EXPORT_DISABLED');
    });

    it.each([
      [{}, 'name is required'],
      [{ name: 5 }, 'name must be a string'],
      [{ name: '   ' }, 'name must not be blank'],
      [{ name: 'x'.repeat(201) }, 'name must be shorter than or equal to 200 characters'],
      [{ name: 'x', api_key: 'kbqa_sk_x' }, 'property api_key should not exist'],
    ])('refuses a bad new project %j with a 400 naming the field', async (body, error) => {
      const res = await call('post', '/admin/v1/projects', body).expect(400);
      expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
    });

    it('sets the origins allowed to embed the widget, which the anon-key endpoints then answer', async () => {
      const p = await t.createProject('widget');
      const newConversation = () =>
        t.post('/v1/newConversation', { anon_key: p.anonKey }).set('Origin', 'https://docs.example.com');
      expect((await newConversation().expect(403)).body.code).toBe('ORIGIN_NOT_ALLOWED');
      const set = await call('patch', `/admin/v1/projects/${p.id}`, {
        allowed_origins: ['https://docs.example.com/', ' http://127.0.0.1:8080'],
      }).expect(200);
      expect(set.body).toMatchObject({
        id: p.id,
        allowed_origins: ['https://docs.example.com', 'http://127.0.0.1:8080'],
      });
      expect((await call('get', `/admin/v1/projects/${p.id}`).expect(200)).body.allowed_origins).toEqual([
        'https://docs.example.com',
        'http://127.0.0.1:8080',
      ]);
      const res = await newConversation().expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://docs.example.com');
      await call('patch', `/admin/v1/projects/${p.id}`, { allowed_origins: [] }).expect(200);
      expect((await newConversation().expect(403)).body.code).toBe('ORIGIN_NOT_ALLOWED');
    });

    it.each([
      [
        { allowed_origins: ['https://docs.example.com/guide'] },
        '"https://docs.example.com/guide" is not an exact origin (scheme, host and port only, as browsers send it): did you mean https://docs.example.com?',
      ],
      [
        { allowed_origins: ['docs.example.com'] },
        '"docs.example.com" is not an origin: expected http(s)://host[:port], for example https://docs.example.com',
      ],
      [
        { allowed_origins: ['*', 'https://a.example'], name: 'renamed' },
        '"*" (any origin) must be the only entry when it is set',
      ],
      [{ allowed_origins: 'https://a.example' }, 'allowed_origins must be an array'],
      [{ allowed_origins: [5] }, 'each value in allowed_origins must be a string'],
    ])('refuses bad widget origins %j with a 400 naming the value, changing nothing', async (body, error) => {
      const p = await t.createProject('unchanged');
      const res = await call('patch', `/admin/v1/projects/${p.id}`, body).expect(400);
      expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
      expect(await t.projects.getProject(p.id)).toMatchObject({ name: 'unchanged', allowedOrigins: [] });
    });

    it.each([
      [{ export_enabled: 'yes' }, 'export_enabled must be a boolean value'],
      [{ name: '' }, 'name must not be blank'],
      [{ exported: true }, 'property exported should not exist'],
    ])('refuses a bad change %j with a 400 naming the field', async (body, error) => {
      const p = await t.createProject('unchanged');
      const res = await call('patch', `/admin/v1/projects/${p.id}`, body).expect(400);
      expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
      expect(await t.projects.getProject(p.id)).toMatchObject({ name: 'unchanged', exportEnabled: false });
    });

    it('answers 404 for an unknown project and 400 for an id that is not one', async () => {
      for (const [m, body] of [
        ['get', undefined],
        ['patch', { name: 'x' }],
      ] as const) {
        const missing = await call(m, '/admin/v1/projects/999999', body).expect(404);
        expect(missing.body).toEqual({ error: 'project 999999 does not exist', code: 'NOT_FOUND' });
        for (const bad of ['abc', '0', '-1', '1.5', '0x1f']) {
          const res = await call(m, `/admin/v1/projects/${bad}`, body).expect(400);
          expect(res.body).toEqual({ error: 'id must be a positive integer', code: 'BAD_REQUEST' });
        }
      }
    });
  });

  describe('keys', () => {
    it('creates a key that works on the public API, lists it without its secret, revokes it', async () => {
      const project = (await call('post', '/admin/v1/projects', { name: 'keys' }).expect(201)).body;
      const created = await call('post', `/admin/v1/projects/${project.id}/keys`, { kind: 'server' }).expect(
        201,
      );
      expect(created.body).toEqual({
        id: expect.any(Number),
        project_id: project.id,
        kind: 'server',
        key: expect.stringMatching(/^kbqa_sk_[A-Za-z0-9_-]{32}$/),
      });
      const key = created.body.key as string;
      expect((await t.post('/v1/getSources', { api_key: key }).expect(200)).body).toEqual([]);

      const listed = await call('get', `/admin/v1/projects/${project.id}/keys`).expect(200);
      const row = {
        id: created.body.id,
        project_id: project.id,
        kind: 'server',
        prefix: key.slice(0, 14),
        created_at: expect.stringMatching(ISO),
        revoked: false,
        revoked_at: null,
        // getSources above authenticated with it.
        last_used_at: expect.stringMatching(ISO),
      };
      expect(listed.body).toEqual({ keys: [row] });
      expect(JSON.stringify(listed.body)).not.toContain(key);

      const revoked = await call('delete', `/admin/v1/keys/${created.body.id}`).expect(200);
      expect(revoked.body).toEqual({ ...row, revoked: true, revoked_at: expect.stringMatching(ISO) });
      const refused = await t.post('/v1/getSources', { api_key: key }).expect(400);
      expect(refused.body.code).toBe('INVALID_API_KEY');
      // Revoking again is safe and answers the same.
      expect((await call('delete', `/admin/v1/keys/${created.body.id}`).expect(200)).body).toEqual(
        revoked.body,
      );
      expect((await call('get', `/admin/v1/projects/${project.id}/keys`).expect(200)).body.keys).toEqual([
        revoked.body,
      ]);
    });

    it('creates anon keys, which the public API takes for chat only', async () => {
      const p = await t.createProject('anon');
      const created = await call('post', `/admin/v1/projects/${p.id}/keys`, { kind: 'anon' }).expect(201);
      expect(created.body.key).toMatch(/^kbqa_pk_/);
      expect((await t.post('/v1/getSources', { api_key: created.body.key }).expect(403)).body.code).toBe(
        'FORBIDDEN',
      );
      await t.post('/v1/newConversation', { anon_key: created.body.key }).expect(200);
    });

    it('refuses a bad kind, and answers 404 for unknown projects and keys', async () => {
      const p = await t.createProject('kinds');
      for (const body of [{}, { kind: 'admin' }, { kind: 1 }]) {
        const res = await call('post', `/admin/v1/projects/${p.id}/keys`, body).expect(400);
        expect(res.body).toEqual({
          error: 'kind' in body ? 'kind must be "server" or "anon"' : 'kind is required',
          code: 'BAD_REQUEST',
        });
      }
      const missing = { error: 'project 999999 does not exist', code: 'NOT_FOUND' };
      expect(
        (await call('post', '/admin/v1/projects/999999/keys', { kind: 'anon' }).expect(404)).body,
      ).toEqual(missing);
      expect((await call('get', '/admin/v1/projects/999999/keys').expect(404)).body).toEqual(missing);
      expect((await call('delete', '/admin/v1/keys/999999').expect(404)).body).toEqual({
        error: 'key 999999 does not exist',
        code: 'NOT_FOUND',
      });
      expect((await call('delete', '/admin/v1/keys/x').expect(400)).body.error).toBe(
        'id must be a positive integer',
      );
    });
  });

  describe('indexes', () => {
    it('lists, shows, switches auto sync, syncs and deletes an index of a local site', async () => {
      const site = await startSite((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          '<html><head><title>Only page</title></head><body><main><h1>Only page</h1><p>kbqa indexes a single page for the operator API test.</p></main></body></html>',
        );
      });
      const local = await startTestApp({
        KBQA_ADMIN_TOKEN: TOKEN,
        KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
      });
      try {
        const p = await local.createProject('indexes');
        const res = await local
          .post('/v1/ingestData', { api_key: p.serverKey, url: `${site.origin}/page`, type: 'url' })
          .expect(200);
        await local.waitForTask(res.body.task_id);
        const as = (m: Method, path: string, body?: object) => {
          const req = request(local.http)[m](path).set('Authorization', `Bearer ${TOKEN}`);
          return body === undefined ? req : req.send(body);
        };
        const list = await as('get', `/admin/v1/projects/${p.id}/indexes`).expect(200);
        expect(list.body.indexes).toEqual([
          expect.objectContaining({
            type: 'url',
            url: `${site.origin}/page`,
            pages: 1,
            auto_sync: false,
            last_task_id: res.body.task_id,
          }),
        ]);
        const id = list.body.indexes[0].id as number;
        expect((await as('get', `/admin/v1/indexes/${id}`).expect(200)).body).toEqual(list.body.indexes[0]);
        const on = await as('patch', `/admin/v1/indexes/${id}`, { auto_sync: true }).expect(200);
        expect(on.body.auto_sync).toBe(true);
        expect(on.body.next_sync_at).toMatch(ISO);
        await as('patch', `/admin/v1/indexes/${id}`, { auto_sync: 'yes' }).expect(400);
        const sync = await as('post', `/admin/v1/indexes/${id}/sync`).expect(201);
        const status = await local.waitForTask(sync.body.task_id);
        expect(status.result).toMatchObject({ success: true, unchanged: 1, added: 0 });
        const deleted = await as('delete', `/admin/v1/indexes/${id}`).expect(200);
        expect(deleted.body).toEqual({ id, removed_pages: 1 });
        const sources = await local.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
        expect(sources.body).toEqual([]);
        await as('get', `/admin/v1/indexes/${id}`).expect(404);
      } finally {
        await local.close();
        await site.close();
      }
    });
  });

  describe('tasks', () => {
    it('lists a project’s tasks newest first and shows the same report as `kbqa tasks show`', async () => {
      const p = await t.createProject('tasks');
      const ingest = async (source: string) => {
        const res = await t
          .post('/v1/ingestDocuments', {
            api_key: p.serverKey,
            documents: [{ source, content: `# ${source}\n\nkbqa answers questions about ${source}.` }],
          })
          .expect(200);
        await t.waitForTask(res.body.task_id);
        return res.body.task_id as number;
      };
      const first = await ingest('intro');
      const second = await ingest('setup');

      const list = await call('get', `/admin/v1/projects/${p.id}/tasks`).expect(200);
      const summary = (id: number) => ({
        id,
        kind: 'documents',
        status: 'completed',
        success: true,
        created_at: expect.stringMatching(ISO),
        finished_at: expect.stringMatching(ISO),
        indexed: 1,
        skipped: 0,
      });
      expect(list.body).toEqual({ tasks: [summary(second), summary(first)] });
      const limited = await call('get', `/admin/v1/projects/${p.id}/tasks?limit=1`).expect(200);
      expect(limited.body).toEqual({ tasks: [summary(second)] });

      const report = await call('get', `/admin/v1/tasks/${first}`).expect(200);
      expect(report.body).toEqual({
        id: first,
        project_id: p.id,
        kind: 'documents',
        status: 'completed',
        current_step: expect.any(String),
        current: expect.any(Number),
        total: expect.any(Number),
        success: true,
        error: null,
        error_code: null,
        chunks: expect.any(Number),
        indexed_count: 1,
        skipped_count: 0,
        note: null,
        indexed: ['intro'],
        skipped: [],
        created_at: list.body.tasks[1].created_at,
        finished_at: list.body.tasks[1].finished_at,
      });
      const fromCli = JSON.parse(
        await cli(['tasks', 'show', String(first), '--json'], { KBQA_DATA_DIR: t.dataDir }),
      );
      expect(fromCli).toEqual(report.body);
    });

    it('refuses a bad limit and answers 404 for unknown projects and tasks', async () => {
      const p = await t.createProject('task-errors');
      for (const limit of ['0', 'ten', '1001', '1e2', '']) {
        const res = await call('get', `/admin/v1/projects/${p.id}/tasks?limit=${limit}`).expect(400);
        expect(res.body).toEqual({ error: 'limit must be an integer from 1 to 1000', code: 'BAD_REQUEST' });
      }
      expect((await call('get', `/admin/v1/projects/${p.id}/tasks?page=2`).expect(400)).body.error).toBe(
        'property page should not exist',
      );
      expect((await call('get', `/admin/v1/projects/${p.id}/tasks`).expect(200)).body).toEqual({ tasks: [] });
      expect((await call('get', '/admin/v1/projects/999999/tasks').expect(404)).body.code).toBe('NOT_FOUND');
      expect((await call('get', '/admin/v1/tasks/4294967296').expect(404)).body).toEqual({
        error: 'task 4294967296 not found',
        code: 'NOT_FOUND',
      });
    });
  });

  describe('OpenAPI document', () => {
    it('describes exactly the operator routes, with bearer auth, and passes a validator', async () => {
      const res = await request(t.http).get('/admin/v1/openapi.json').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const doc = JSON.parse(res.text);
      expect(doc.openapi).toMatch(/^3\./);
      const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m} ${path}`),
      );
      expect(documented.sort()).toEqual(ROUTES.map(([m, path]) => `${m} ${path}`).sort());
      expect(doc.components.securitySchemes['operator-token']).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      for (const [m, path] of ROUTES) {
        const op = doc.paths[path][m];
        // The validator checks path parameters for Swagger 2 only.
        const pathParams = (op.parameters as Array<{ in: string; name: string }>).filter(
          (x) => x.in === 'path',
        );
        expect(pathParams.map((x) => x.name).sort()).toEqual(
          [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort(),
        );
        expect(op.security).toEqual([{ 'operator-token': [] }]);
        expect(op.responses['401'].content['application/json'].schema.$ref).toBe(
          '#/components/schemas/ErrorResponse',
        );
      }
      expect(doc.components.schemas.CreateProjectDto.required).toEqual(['name']);
      const listConversations = doc.paths['/admin/v1/projects/{id}/conversations'].get;
      expect(
        (listConversations.parameters as Array<{ name: string; in: string }>)
          .filter((x) => x.in === 'query')
          .map((x) => x.name)
          .sort(),
      ).toEqual(['from', 'limit', 'offset', 'q', 'rating', 'to']);
      // The validator dereferences in place, so it gets a copy.
      await expect(SwaggerParser.validate(structuredClone(doc) as OpenAPI.Document)).resolves.toBeDefined();
    });
  });
});

describe('Operator API rate limit (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_RATE_FAILED_KEYS_PER_MIN: '3' });
  });
  afterAll(() => t.close());

  it('counts failed operator tokens and failed API keys in the same bucket per address', async () => {
    const admin = (token: string) =>
      request(t.http).get('/admin/v1/projects').set('Authorization', `Bearer ${token}`);
    await admin(TOKEN).expect(200);
    await admin('wrong-token').expect(401);
    await request(t.http).get('/admin/v1/projects').expect(401);
    await t.post('/v1/getSources', { api_key: 'kbqa_sk_' + 'x'.repeat(32) }).expect(400);
    // Spent: even the right token waits, so a guess past the limit learns nothing.
    const limited = await admin(TOKEN).expect(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('Generated operator token (e2e, the built service and CLI)', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'kbqa-admin-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  // An empty KBQA_ADMIN_TOKEN is unset, whatever the environment running the tests holds.
  const env = () => ({ KBQA_DATA_DIR: dataDir, KBQA_ADMIN_TOKEN: '' });
  const TOKEN_SHAPE = /kbqa_admin_[A-Za-z0-9_-]{20,}/;

  it('keeps only a 0600 hash on first start, never logs a token, and takes a rotated one at once', async () => {
    const server = await startServer(env());
    try {
      const file = adminTokenFile(dataDir);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(server.output()).toContain('it prints an operator token, once');
      expect(server.output()).toContain('pnpm kbqa admin token');
      const projects = (token?: string) =>
        fetch(`${server.baseUrl}/admin/v1/projects`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
      expect((await projects()).status).toBe(401);

      const first = await kbqa(['admin', 'token', '--json'], env());
      expect(first.code).toBe(0);
      const token = (JSON.parse(first.stdout) as { token: string }).token;
      expect(token).toMatch(/^kbqa_admin_[A-Za-z0-9_-]{43}$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const ok = await projects(token);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ projects: [] });

      const second = await kbqa(['admin', 'token'], env());
      expect(second.code).toBe(0);
      const rotated = second.stdout.split('\n')[0]!;
      expect(rotated).toMatch(/^kbqa_admin_/);
      expect((await projects(token)).status).toBe(401);
      expect((await projects(rotated)).status).toBe(200);
      expect(server.output()).not.toMatch(TOKEN_SHAPE);
    } finally {
      await server.stop();
    }
    expect(server.output()).not.toMatch(TOKEN_SHAPE);
  });

  it('keeps the stored token across restarts', async () => {
    const token = JSON.parse((await kbqa(['admin', 'token', '--json'], env())).stdout).token as string;
    const server = await startServer(env());
    try {
      expect(server.output()).not.toContain('it prints an operator token');
      const res = await fetch(`${server.baseUrl}/admin/v1/projects`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses `kbqa admin token` while KBQA_ADMIN_TOKEN decides', async () => {
    const res = await kbqa(['admin', 'token'], { KBQA_DATA_DIR: dataDir, KBQA_ADMIN_TOKEN: TOKEN });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('KBQA_ADMIN_TOKEN is set');
    expect(res.stdout).toBe('');
    expect(existsSync(adminTokenFile(dataDir))).toBe(false);
    const json = await kbqa(['admin', 'token', '--json'], {
      KBQA_DATA_DIR: dataDir,
      KBQA_ADMIN_TOKEN: TOKEN,
    });
    expect(json.code).not.toBe(0);
    expect(JSON.parse(json.stdout).error).toContain('KBQA_ADMIN_TOKEN is set');
  });
});

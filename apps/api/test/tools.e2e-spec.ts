import { startServer, type TestServer } from '@kbqa/core/testing';
import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ToolsService } from '../src/tools/tools.service';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'test-operator-token-0123456789';
const SECRET = 'sk-tool-secret-7f3a9c1e5b';
const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface Received {
  method: string;
  url: string;
  apiKey: string | undefined;
  authorization?: string;
  body: string;
}

/** A local API standing in for a tool's server: records every request, answers by path. */
async function startToolApi(received: Received[]): Promise<TestServer> {
  return startServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const apiKey = req.headers['x-api-key'];
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: apiKey as string | undefined,
        authorization: req.headers['authorization'],
        body,
      });
      // /hop/<status>/…?to=<url>: a redirect with that status to that URL.
      const hop = /^\/hop\/(\d{3})\/[^?]*\?to=(.+)$/.exec(req.url ?? '');
      if (hop) {
        res.writeHead(Number(hop[1]), { location: decodeURIComponent(hop[2]!) }).end();
        return;
      }
      if (req.url?.startsWith('/fail')) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal failure');
        return;
      }
      // Reflects the key it got: the service must not pass it on.
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          path: req.url,
          got_key: apiKey,
          body: body ? (JSON.parse(body) as unknown) : null,
        }),
      );
    });
  });
}

function definition(origin: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'lookup',
    description: 'Look an item up',
    parameters: {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer' } },
      required: ['q'],
    },
    method: 'POST',
    url: `${origin}/items/{q}?n={n}`,
    headers: { 'X-Api-Key': SECRET },
    body: { query: '{q}', count: '{n}' },
    ...extra,
  };
}

/** Runs the built CLI; never throws on a non-zero exit. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('Tools (e2e)', () => {
  const received: Received[] = [];
  const unlisted: Received[] = [];
  let api: TestServer;
  let other: TestServer;
  /** A second allowlisted origin (another port), where redirects of `api` point. */
  let elsewhere: TestServer;
  const atElsewhere: Received[] = [];
  let closedPort: string;
  let t: TestApp;
  let projectId: number;
  /** Every response text of a tools route, checked for the secret at the end. */
  const seen: string[] = [];

  beforeAll(async () => {
    api = await startToolApi(received);
    other = await startToolApi(unlisted);
    elsewhere = await startToolApi(atElsewhere);
    const closed = await startToolApi([]);
    closedPort = closed.hostPort;
    await closed.close();
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      // The second server's port is not listed: its private address must be refused.
      KBQA_ALLOW_PRIVATE_HOSTS: `${api.hostPort},${closedPort},${elsewhere.hostPort}`,
      KBQA_TOOL_TIMEOUT: '5s',
    });
    projectId = (await t.createProject('tools')).id;
  });
  afterAll(async () => {
    await t.close();
    await api.close();
    await other.close();
    await elsewhere.close();
  });

  const call = async (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    const res = body === undefined ? await req : await req.send(body);
    seen.push(res.text);
    return res;
  };

  it('adds a tool and shows its header values only as ••••', async () => {
    const created = await call('post', `/admin/v1/projects/${projectId}/tools`, definition(api.origin));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      project_id: projectId,
      name: 'lookup',
      method: 'POST',
      headers: { 'X-Api-Key': '••••' },
      body: { query: '{q}', count: '{n}' },
      public: false,
    });
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await call('get', `/admin/v1/projects/${projectId}/tools`);
    expect(list.status).toBe(200);
    expect(list.body.tools).toHaveLength(1);
    expect(list.body.tools[0].headers).toEqual({ 'X-Api-Key': '••••' });
    const one = await call('get', `/admin/v1/tools/${created.body.id}`);
    expect(one.body).toEqual(list.body.tools[0]);
  });

  it('refuses a bad definition and a second tool of the same name with 400', async () => {
    const bad = await call('post', `/admin/v1/projects/${projectId}/tools`, {
      ...definition(api.origin),
      url: `${api.origin}/{undeclared}`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'url placeholder {undeclared} is not declared in parameters.properties',
      code: 'BAD_REQUEST',
    });
    const dup = await call('post', `/admin/v1/projects/${projectId}/tools`, definition(api.origin));
    expect(dup.status).toBe(400);
    expect(dup.body.error).toContain('already has a tool named lookup');
    const missing = await call(
      'post',
      `/admin/v1/projects/999999/tools`,
      definition(api.origin, { name: 'x' }),
    );
    expect(missing.status).toBe(404);
  });

  it('calls the tool with the stored header, the filled URL and body, and returns its output', async () => {
    const [tool] = (await call('get', `/admin/v1/projects/${projectId}/tools`)).body.tools as Array<{
      id: number;
    }>;
    received.length = 0;
    const res = await call('post', `/admin/v1/tools/${tool!.id}/test`, { args: { q: 'a b/c?', n: 2 } });
    expect(res.status).toBe(200);
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/items/a%20b%2Fc%3F?n=2',
        apiKey: SECRET,
        body: '{"query":"a b/c?","count":2}',
      },
    ]);
    expect(res.body).toEqual({
      ok: true,
      status: 200,
      has_error: false,
      output: JSON.stringify(
        { path: '/items/a%20b%2Fc%3F?n=2', got_key: '••••', body: { query: 'a b/c?', count: 2 } },
        null,
        2,
      ),
    });
  });

  it('keeps the stored secret on a PATCH that sends •••• back, and marks a tool public', async () => {
    const [tool] = (await call('get', `/admin/v1/projects/${projectId}/tools`)).body.tools as Array<{
      id: number;
    }>;
    const patched = await call('patch', `/admin/v1/tools/${tool!.id}`, {
      headers: { 'X-Api-Key': '••••' },
      description: 'Look items up',
      public: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      description: 'Look items up',
      public: true,
      headers: { 'X-Api-Key': '••••' },
    });
    received.length = 0;
    await call('post', `/admin/v1/tools/${tool!.id}/test`, { args: { q: 'x' } });
    expect(received[0]?.apiKey).toBe(SECRET);
    const stored = await t.query<{ public: number }>('SELECT public FROM tools WHERE id = ?', [tool!.id]);
    expect(stored[0]?.public).toBe(1);
  });

  it('offers anon-key chats only the tools marked public, server-key chats all of them', async () => {
    const created = await call(
      'post',
      `/admin/v1/projects/${projectId}/tools`,
      definition(api.origin, { name: 'internal_only' }),
    );
    expect(created.status).toBe(201);
    const tools = t.app.get(ToolsService);
    const anon = (await tools.usableInChat(projectId, 'anon')).map((x) => x.name);
    const server = (await tools.usableInChat(projectId, 'server')).map((x) => x.name);
    expect(anon).toEqual(['lookup']);
    expect(server).toEqual(['lookup', 'internal_only']);
  });

  it('gives has_error for a 500, a refused connection and bad arguments (these send nothing)', async () => {
    const add = async (name: string, url: string) =>
      (await call('post', `/admin/v1/projects/${projectId}/tools`, definition(api.origin, { name, url })))
        .body as {
        id: number;
      };
    const failing = await add('failing', `${api.origin}/fail/{q}`);
    const res500 = await call('post', `/admin/v1/tools/${failing.id}/test`, { args: { q: 'x' } });
    expect(res500.status).toBe(200);
    expect(res500.body).toMatchObject({
      ok: false,
      status: 500,
      has_error: true,
      output: 'internal failure',
    });

    const down = await add('down', `http://${closedPort}/items/{q}`);
    const refused = await call('post', `/admin/v1/tools/${down.id}/test`, { args: { q: 'x' } });
    expect(refused.body).toMatchObject({ ok: false, status: null, has_error: true });
    expect(refused.body.error).toContain('connection refused');

    const [tool] = (await call('get', `/admin/v1/projects/${projectId}/tools`)).body.tools as Array<{
      id: number;
    }>;
    received.length = 0;
    const badArgs = await call('post', `/admin/v1/tools/${tool!.id}/test`, { args: { n: 'many' } });
    expect(badArgs.body).toMatchObject({ ok: false, status: null, has_error: true });
    expect(badArgs.body.error).toMatch(/^invalid arguments: q: .*; n: /);
    expect(received).toEqual([]);
    const notObject = await call('post', `/admin/v1/tools/${tool!.id}/test`, { args: 'x' });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toEqual({ error: 'args must be a JSON object', code: 'BAD_REQUEST' });
  });

  it('refuses a private address the allowlist does not cover, and that server receives nothing', async () => {
    const created = await call(
      'post',
      `/admin/v1/projects/${projectId}/tools`,
      definition(other.origin, { name: 'unlisted' }),
    );
    expect(created.status).toBe(201);
    const res = await call('post', `/admin/v1/tools/${created.body.id}/test`, { args: { q: 'x' } });
    expect(res.body).toMatchObject({ ok: false, status: null, has_error: true });
    expect(res.body.error).toContain('KBQA_ALLOW_PRIVATE_HOSTS');
    expect(unlisted).toEqual([]);
  });

  it('deletes a tool, then answers 404 for it', async () => {
    const created = await call(
      'post',
      `/admin/v1/projects/${projectId}/tools`,
      definition(api.origin, { name: 'gone' }),
    );
    const del = await call('delete', `/admin/v1/tools/${created.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: 1 });
    const after = await call('get', `/admin/v1/tools/${created.body.id}`);
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ error: `tool ${created.body.id} does not exist`, code: 'NOT_FOUND' });
  });

  it('stores header values sealed, and still uses a plaintext value stored before sealing', async () => {
    const rows = await t.query<{ id: number; headers: string }>(
      "SELECT id, headers FROM tools WHERE name = 'lookup'",
    );
    const stored = JSON.parse(rows[0]!.headers) as Array<{ name: string; value: string }>;
    expect(stored[0]).toEqual({ name: 'X-Api-Key', value: expect.stringMatching(/^enc:v1:/) as unknown });
    expect(rows[0]!.headers).not.toContain(SECRET);
    expect(readFileSync(join(t.dataDir, 'secret.key'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);

    await t.query('UPDATE tools SET headers = ? WHERE id = ?', [
      JSON.stringify([{ name: 'X-Api-Key', value: SECRET }]),
      rows[0]!.id,
    ]);
    received.length = 0;
    const res = await call('post', `/admin/v1/tools/${rows[0]!.id}/test`, { args: { q: 'old' } });
    expect(res.body).toMatchObject({ ok: true, has_error: false });
    expect(received[0]?.apiKey).toBe(SECRET);
  });

  describe('redirects', () => {
    const BEARER = 'Bearer tool-bearer-5e1d0c9a';
    /** Adds a tool whose URL answers `status` with a redirect to `to`, and runs it. */
    const runHop = async (name: string, status: number, to: string) => {
      const created = await call(
        'post',
        `/admin/v1/projects/${projectId}/tools`,
        definition(api.origin, {
          name,
          url: `${api.origin}/hop/${status}/{q}?to=${encodeURIComponent(to)}`,
          headers: { 'X-Api-Key': SECRET, Authorization: BEARER },
        }),
      );
      expect(created.status).toBe(201);
      received.length = 0;
      atElsewhere.length = 0;
      return call('post', `/admin/v1/tools/${created.body.id}/test`, { args: { q: 'x', n: 1 } });
    };

    it('follows a 302 to another origin as a GET without Authorization or the stored headers', async () => {
      const res = await runHop('hop302', 302, `${elsewhere.origin}/landed`);
      expect(res.body).toMatchObject({ ok: true, status: 200, has_error: false });
      expect(received).toEqual([
        expect.objectContaining({ method: 'POST', apiKey: SECRET, authorization: BEARER }),
      ]);
      expect(atElsewhere).toEqual([{ method: 'GET', url: '/landed', body: '' }]);
    });

    it('refuses a 307 to another origin, which receives neither the headers nor the body', async () => {
      const res = await runHop('hop307', 307, `${elsewhere.origin}/landed`);
      expect(res.body).toMatchObject({ ok: false, status: null, has_error: true });
      expect(res.body.error).toContain('another origin');
      expect(received).toHaveLength(1);
      expect(atElsewhere).toEqual([]);
    });

    it('keeps the stored headers and the body on a 307 within the same origin', async () => {
      const res = await runHop('hop307same', 307, '/items/x?n=1');
      expect(res.body).toMatchObject({ ok: true, status: 200 });
      expect(received[1]).toEqual({
        method: 'POST',
        url: '/items/x?n=1',
        apiKey: SECRET,
        authorization: BEARER,
        body: '{"query":"x","count":1}',
      });
      expect(atElsewhere).toEqual([]);
    });
  });

  it('never showed the secret in any response of a tools route', () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const text of seen) expect(text).not.toContain(SECRET);
  });

  describe('CLI', () => {
    let root: string;
    beforeAll(() => (root = mkdtempSync(join(tmpdir(), 'kbqa-tools-cli-'))));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('adds, lists, tests and removes a tool without printing the secret', async () => {
      const env = { KBQA_DATA_DIR: join(root, 'd'), KBQA_ALLOW_PRIVATE_HOSTS: api.hostPort };
      const outputs: string[] = [];
      const run = async (args: string[]) => {
        const r = await kbqa(args, env);
        outputs.push(r.stdout, r.stderr);
        return r;
      };
      const project = JSON.parse((await run(['projects', 'create', 'p', '--json'])).stdout) as { id: number };
      const file = join(root, 'tool.json');
      writeFileSync(file, JSON.stringify(definition(api.origin)));
      const added = await run(['tools', 'add', '--project', String(project.id), '--file', file, '--json']);
      expect(added.code).toBe(0);
      const tool = JSON.parse(added.stdout) as { id: number; headers: Record<string, string> };
      expect(tool.headers).toEqual({ 'X-Api-Key': '••••' });

      const listed = await run(['tools', 'list', '--project', String(project.id)]);
      expect(listed.stdout).toContain(
        `${tool.id}\tlookup\tPOST\t${api.origin}/items/{q}?n={n}\tprivate\tX-Api-Key: ••••`,
      );
      const listedJson = JSON.parse(
        (await run(['tools', 'list', '--project', String(project.id), '--json'])).stdout,
      );
      expect(listedJson.tools).toHaveLength(1);

      received.length = 0;
      const tested = await run(['tools', 'test', String(tool.id), '--args', '{"q":"cli run"}', '--json']);
      expect(tested.code).toBe(0);
      expect(JSON.parse(tested.stdout)).toMatchObject({ ok: true, status: 200, has_error: false });
      expect(received).toEqual([expect.objectContaining({ url: '/items/cli%20run?n=', apiKey: SECRET })]);
      const text = await run(['tools', 'test', String(tool.id), '--args', '{"q":"x"}']);
      expect(text.stdout).toMatch(/^HTTP 200\n\{/);

      const bad = await run(['tools', 'test', String(tool.id), '--args', '{}', '--json']);
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stdout)).toMatchObject({ has_error: true });

      const removed = await run(['tools', 'remove', String(tool.id), '--json']);
      expect(JSON.parse(removed.stdout)).toEqual({ id: tool.id, deleted: true });
      expect(
        JSON.parse((await run(['tools', 'list', '--project', String(project.id), '--json'])).stdout),
      ).toEqual({
        tools: [],
      });
      for (const o of outputs) expect(o).not.toContain(SECRET);
      // Nine CLI runs, each booting the app: over 30 s on a loaded two-core machine.
    }, 120_000);
  });
});

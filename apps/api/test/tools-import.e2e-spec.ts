import { startServer, type TestServer } from '@kbqa/core/testing';
import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { OPENAPI_MAX_SCHEMA_NODES, OPENAPI_MAX_TOOLS_PER_PROJECT } from '../src/tools/openapi-limits';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'test-operator-token-0123456789';
const SECRET = 'sk-import-secret-4d2b8e6f1a';
const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface Received {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: string;
}

function document(serverUrl: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'Items', version: '1' },
    servers: [{ url: serverUrl }],
    paths: {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          summary: 'Read an item',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'lang', in: 'query', required: true, schema: { $ref: '#/components/schemas/Lang' } },
          ],
        },
      },
      '/items': {
        post: {
          operationId: 'createItem',
          summary: 'Create an item',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewItem' } } },
          },
        },
      },
      '/upload': {
        post: {
          operationId: 'upload',
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
        },
      },
    },
    components: {
      schemas: {
        Lang: { type: 'string', enum: ['en', 'fr'] },
        NewItem: {
          type: 'object',
          required: ['name'],
          properties: {
            id: { type: 'integer', readOnly: true },
            name: { type: 'string' },
            count: { type: 'integer' },
          },
        },
      },
    },
  };
}

/** The same document in YAML, with a server URL relative to where it is served. */
const YAML_DOCUMENT = `openapi: 3.1.0
info: {title: Relative, version: '1'}
servers:
  - url: /v2
paths:
  /ping:
    get:
      operationId: ping
      summary: Is it up
`;

/** `S0…S39`, each with two properties referring to the next: 2^40 nodes if every $ref were inlined. */
function schemaBomb(serverUrl: string) {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    const next = { $ref: `#/components/schemas/S${i + 1}` };
    schemas[`S${i}`] = { type: 'object', properties: { l: next, r: next } };
  }
  schemas.S40 = { type: 'string' };
  return {
    openapi: '3.0.3',
    info: { title: 'Bomb', version: '1' },
    servers: [{ url: serverUrl }],
    paths: {
      '/bomb': {
        post: {
          operationId: 'bomb',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } },
        },
      },
    },
    components: { schemas },
  };
}

/** Anchors 8 levels deep, each level aliasing the one below 10 times: 10^8 nodes once expanded. */
function yamlAliasBomb(serverUrl: string): string {
  const lines = [
    'openapi: 3.0.3',
    'info: {title: Aliases, version: "1"}',
    `servers: [{url: "${serverUrl}"}]`,
  ];
  lines.push('x-bomb:', '  l0: &l0 {type: string}');
  for (let level = 1; level <= 8; level++) {
    const props = Array.from({ length: 10 }, (_, i) => `p${i}: *l${level - 1}`).join(', ');
    lines.push(`  l${level}: &l${level} {type: object, properties: {${props}}}`);
  }
  lines.push('paths:', '  /bomb:', '    post:', '      operationId: bomb');
  lines.push("      requestBody: {content: {'application/json': {schema: *l8}}}");
  return `${lines.join('\n')}\n`;
}

/** Runs the built CLI; never throws on a non-zero exit. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('Tools import from OpenAPI (e2e)', () => {
  const received: Received[] = [];
  let api: TestServer;
  let other: TestServer;
  let t: TestApp;
  let projectId: number;
  const seen: string[] = [];

  beforeAll(async () => {
    api = await startServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (req.url === '/spec/openapi.yaml') {
          res.writeHead(200, { 'content-type': 'application/yaml' }).end(YAML_DOCUMENT);
          return;
        }
        if (req.url === '/spec/openapi.json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document('/v1')));
          return;
        }
        const apiKey = req.headers['x-api-key'] as string | undefined;
        received.push({ method: req.method ?? '', url: req.url ?? '', apiKey, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
      });
    });
    other = await startServer((_req, res) => res.end(JSON.stringify(document('/v1'))));
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_ALLOW_PRIVATE_HOSTS: api.hostPort,
      KBQA_TOOL_TIMEOUT: '5s',
    });
    projectId = (await t.createProject('import')).id;
  });
  afterAll(async () => {
    await t.close();
    await api.close();
    await other.close();
  });

  const call = async (method: 'get' | 'post', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    const res = body === undefined ? await req : await req.send(body);
    seen.push(res.text);
    return res;
  };
  const importInto = (project: number, body: object) =>
    call('post', `/admin/v1/projects/${project}/tools/import-openapi`, body);

  it('creates one tool per operation of an inline document and reports the skipped ones', async () => {
    const res = await importInto(projectId, {
      document: document(`${api.origin}/v1`),
      headers: { 'X-Api-Key': SECRET },
    });
    expect(res.status).toBe(201);
    expect(res.body.tools).toHaveLength(2);
    expect(res.body.tools[0]).toMatchObject({
      name: 'getItem',
      description: 'Read an item',
      method: 'GET',
      url: `${api.origin}/v1/items/{id}?lang={lang}`,
      headers: { 'X-Api-Key': '••••' },
      public: false,
      parameters: {
        type: 'object',
        properties: { id: { type: 'string' }, lang: { type: 'string', enum: ['en', 'fr'] } },
        required: ['id', 'lang'],
      },
    });
    expect(res.body.tools[1]).toMatchObject({
      name: 'createItem',
      method: 'POST',
      url: `${api.origin}/v1/items`,
      body: { name: '{name}', count: '{count}' },
      parameters: { required: ['name'] },
    });
    expect(res.body.skipped).toEqual([
      { operation: 'upload', reason: 'request body is multipart/form-data; only JSON bodies are supported' },
    ]);
  });

  it('calls the imported tools with the path, query and body filled and the secret header', async () => {
    const { tools } = (await call('get', `/admin/v1/projects/${projectId}/tools`)).body as {
      tools: Array<{ id: number; name: string }>;
    };
    const id = (name: string) => tools.find((x) => x.name === name)!.id;
    received.length = 0;
    const got = await call('post', `/admin/v1/tools/${id('getItem')}/test`, {
      args: { id: 'a/b c', lang: 'fr' },
    });
    expect(got.body).toMatchObject({ ok: true, status: 200, has_error: false });
    const made = await call('post', `/admin/v1/tools/${id('createItem')}/test`, {
      args: { name: 'pen', count: 3 },
    });
    expect(made.body).toMatchObject({ ok: true, status: 200 });
    expect(received).toEqual([
      { method: 'GET', url: '/v1/items/a%2Fb%20c?lang=fr', apiKey: SECRET, body: '' },
      { method: 'POST', url: '/v1/items', apiKey: SECRET, body: '{"name":"pen","count":3}' },
    ]);
  });

  it('reports names the project already has instead of overwriting them', async () => {
    const res = await importInto(projectId, {
      document: document(`${api.origin}/other`),
      operations: ['getItem'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      tools: [],
      skipped: [
        {
          operation: 'getItem',
          name: 'getItem',
          reason: 'the project already has a tool named getItem; not overwritten',
        },
      ],
      notes: [],
    });
    const stored = await t.query<{ url: string }>("SELECT url FROM tools WHERE name = 'getItem'");
    expect(stored).toEqual([{ url: `${api.origin}/v1/items/{id}?lang={lang}` }]);
  });

  it('imports a YAML document by URL, resolving a relative server URL against it', async () => {
    const project = (await t.createProject('by-url')).id;
    const res = await importInto(project, { url: `${api.origin}/spec/openapi.yaml`, public: true });
    expect(res.status).toBe(201);
    expect(res.body.tools).toEqual([
      expect.objectContaining({ name: 'ping', url: `${api.origin}/v2/ping`, public: true, headers: {} }),
    ]);
  });

  it('refuses a document URL on a private address the allowlist does not cover', async () => {
    const res = await importInto(projectId, { url: `${other.origin}/openapi.json` });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.error).toMatch(
      /^could not fetch the OpenAPI document: refused .*KBQA_ALLOW_PRIVATE_HOSTS/,
    );
  });

  it('answers 400 for bad input and 404 for a missing project', async () => {
    expect((await importInto(projectId, {})).body).toEqual({
      error: 'give either document or url',
      code: 'BAD_REQUEST',
    });
    const swagger = await importInto(projectId, { document: { swagger: '2.0', paths: {} } });
    expect(swagger.status).toBe(400);
    expect(swagger.body.error).toBe('Swagger 2 documents are not supported; convert to OpenAPI 3 first');
    const ops = await importInto(projectId, { document: document(api.origin), operations: 'getItem' });
    expect(ops.status).toBe(400);
    expect(ops.body.error).toBe('operations must be an array of operationIds');
    const missing = await importInto(999999, { document: document(api.origin) });
    expect(missing.status).toBe(404);
  });

  describe('limits', () => {
    const NODE_LIMIT = `the OpenAPI document exceeds the schema node limit: its schemas expand to more than ${OPENAPI_MAX_SCHEMA_NODES} nodes once $refs are inlined; import fewer of its operations (the operations field) or simplify its schemas`;

    it('answers 400 naming the node limit for a $ref schema bomb, and keeps serving', async () => {
      const res = await importInto(projectId, { document: schemaBomb(`${api.origin}/v1`) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: NODE_LIMIT, code: 'BAD_REQUEST' });
      expect((await request(t.http).get('/health')).status).toBe(200);
      const tools = await call('get', `/admin/v1/projects/${projectId}/tools`);
      expect(tools.status).toBe(200);
      expect((tools.body as { tools: Array<{ name: string }> }).tools.map((x) => x.name)).not.toContain(
        'bomb',
      );
    });

    it('answers 400 naming the node limit for a YAML alias bomb, and keeps serving', async () => {
      const res = await importInto(projectId, { document: yamlAliasBomb(`${api.origin}/v1`) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: NODE_LIMIT, code: 'BAD_REQUEST' });
      expect((await request(t.http).get('/health')).status).toBe(200);
    });

    it('creates tools up to the per-project cap and reports the rest as skipped', async () => {
      const project = (await t.createProject('capped')).id;
      const paths: Record<string, unknown> = {};
      for (let i = 0; i <= OPENAPI_MAX_TOOLS_PER_PROJECT; i++)
        paths[`/op${i}`] = { get: { operationId: `op${i}` } };
      const doc = {
        openapi: '3.0.3',
        info: { title: 'Many', version: '1' },
        servers: [{ url: api.origin }],
        paths,
      };
      const res = await importInto(project, { document: doc });
      expect(res.status).toBe(201);
      expect(res.body.tools).toHaveLength(OPENAPI_MAX_TOOLS_PER_PROJECT);
      expect(res.body.skipped).toEqual([
        {
          operation: `op${OPENAPI_MAX_TOOLS_PER_PROJECT}`,
          name: `op${OPENAPI_MAX_TOOLS_PER_PROJECT}`,
          reason: `the project has reached the limit of ${OPENAPI_MAX_TOOLS_PER_PROJECT} tools; not created`,
        },
      ]);
      // The report says that a chat will not offer all of them.
      expect(res.body.notes).toEqual([
        `the project has ${OPENAPI_MAX_TOOLS_PER_PROJECT} tools; a chat offers at most 64 of them, ` +
          'the ones whose names and descriptions best match the question',
      ]);
    });
  });

  it('never showed the secret in a response', () => {
    for (const text of seen) expect(text).not.toContain(SECRET);
  });

  describe('CLI', () => {
    let root: string;
    beforeAll(() => (root = mkdtempSync(join(tmpdir(), 'kbqa-import-cli-'))));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('imports from a file and from a URL with a secret header it never prints', async () => {
      const env = { KBQA_DATA_DIR: join(root, 'd'), KBQA_ALLOW_PRIVATE_HOSTS: api.hostPort };
      const project = JSON.parse((await kbqa(['projects', 'create', 'p', '--json'], env)).stdout) as {
        id: number;
      };
      const file = join(root, 'openapi.json');
      writeFileSync(file, JSON.stringify(document(`${api.origin}/v1`)));
      const fromFile = await kbqa(
        [
          'tools',
          'import',
          '--project',
          String(project.id),
          '--openapi',
          file,
          '--header',
          `X-Api-Key: ${SECRET}`,
        ],
        env,
      );
      expect(fromFile.code).toBe(0);
      expect(fromFile.stdout).toContain(`created `);
      expect(fromFile.stdout).toContain('\tgetItem\tGET\t');
      expect(fromFile.stdout).toContain('X-Api-Key: ••••');
      expect(fromFile.stdout).toContain('skipped upload: request body is multipart/form-data');

      const fromUrl = await kbqa(
        [
          'tools',
          'import',
          '--project',
          String(project.id),
          '--openapi',
          `${api.origin}/spec/openapi.yaml`,
          '--json',
        ],
        env,
      );
      expect(fromUrl.code).toBe(0);
      expect(
        (JSON.parse(fromUrl.stdout) as { tools: Array<{ name: string }> }).tools.map((x) => x.name),
      ).toEqual(['ping']);
      for (const o of [fromFile.stdout, fromFile.stderr, fromUrl.stdout, fromUrl.stderr]) {
        expect(o).not.toContain(SECRET);
      }
      // Three CLI runs, each booting the app: slow on a loaded two-core machine.
    }, 90_000);
  });
});

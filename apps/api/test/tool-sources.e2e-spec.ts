import { startServer, type TestServer } from '@kbqa/core/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ToolsService } from '../src/tools/tools.service';
import { MCP_SECRET, startMcpServer } from './fake-mcp';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'test-operator-token-0123456789';
const SECRET = MCP_SECRET;
const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** Runs the built CLI; never throws on a non-zero exit. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('Tool sources (e2e)', () => {
  const authSeen: Array<string | undefined> = [];
  const unlistedSeen: Array<string | undefined> = [];
  let mcp: TestServer;
  let unlisted: TestServer;
  let downPort: string;
  let t: TestApp;
  let projectId: number;
  let sourceId: number;
  const seen: string[] = [];

  beforeAll(async () => {
    mcp = await startMcpServer(authSeen);
    unlisted = await startMcpServer(unlistedSeen);
    const down = await startServer((_req, res) => res.end());
    downPort = down.hostPort;
    await down.close();
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_ALLOW_PRIVATE_HOSTS: `${mcp.hostPort},${downPort}`,
      KBQA_TOOL_TIMEOUT: '5s',
    });
    projectId = (await t.createProject('sources')).id;
  });
  afterAll(async () => {
    await t.close();
    await mcp.close();
    await unlisted.close();
  });

  const call = async (method: 'get' | 'post' | 'delete', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    const res = body === undefined ? await req : await req.send(body);
    seen.push(res.text);
    return res;
  };

  it('adds an MCP server as a source and shows its header values only as ••••', async () => {
    const res = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'mcp',
      url: `${mcp.origin}/mcp`,
      headers: { Authorization: SECRET },
      name: 'helper',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      project_id: projectId,
      kind: 'mcp',
      name: 'helper',
      url: `${mcp.origin}/mcp`,
      headers: { Authorization: '••••' },
      public: false,
    });
    sourceId = res.body.id as number;
    const [row] = await t.query<{ headers: string }>('SELECT headers FROM tool_sources WHERE id = ?', [
      sourceId,
    ]);
    expect(row!.headers).toMatch(/"value":"enc:v1:/);
    expect(row!.headers).not.toContain(SECRET);
    const list = await call('get', `/admin/v1/projects/${projectId}/tool-sources`);
    expect(list.body.tool_sources).toEqual([res.body]);
  });

  it("lists the server's tools live, sending the stored header", async () => {
    authSeen.length = 0;
    const res = await call('get', `/admin/v1/tool-sources/${sourceId}/tools`);
    expect(res.status).toBe(200);
    expect(res.body.tools.map((x: { name: string }) => x.name)).toEqual(['shout', 'lookup', 'explode']);
    expect(res.body.tools[0]).toMatchObject({
      description: 'Upper-cases a text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(authSeen.length).toBeGreaterThan(0);
    expect(authSeen.every((a) => a === SECRET)).toBe(true);
  });

  it('offers the source tools in chatTools, prefixed when an HTTP tool has the name, and runs them', async () => {
    const created = await call('post', `/admin/v1/projects/${projectId}/tools`, {
      name: 'lookup',
      description: 'HTTP lookup',
      parameters: { type: 'object' },
      method: 'GET',
      url: `${mcp.origin}/lookup`,
    });
    expect(created.status).toBe(201);
    const tools = await t.app.get(ToolsService).chatTools(projectId, 'server');
    expect(tools.map((x) => x.name)).toEqual(['lookup', 'shout', 'helper_lookup', 'explode']);
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(await byName.get('shout')!.run({ text: 'hi there' })).toEqual({
      ok: true,
      status: null,
      output: 'HI THERE\ndone',
      has_error: false,
    });
    expect(await byName.get('helper_lookup')!.run({})).toMatchObject({ ok: true, output: 'from mcp' });
    expect(await byName.get('explode')!.run({})).toEqual({
      ok: false,
      status: null,
      output: 'boom (••••)',
      has_error: true,
      error: 'the MCP tool reported an error',
    });
    const bad = await byName.get('shout')!.run({ text: 3 });
    expect(bad).toMatchObject({ ok: false, has_error: true });
  });

  it('gives anon-key chats only public sources', async () => {
    const tools = await t.app.get(ToolsService).chatTools(projectId, 'anon');
    expect(tools).toEqual([]);
  });

  it('leaves out a source that cannot be listed instead of failing the chat', async () => {
    const down = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'mcp',
      url: `http://${downPort}/mcp`,
    });
    expect(down.status).toBe(201);
    expect(down.body.name).toBe('127_0_0_1');
    const tools = await t.app.get(ToolsService).chatTools(projectId, 'server');
    expect(tools.map((x) => x.name)).toEqual(['lookup', 'shout', 'helper_lookup', 'explode']);
    const live = await call('get', `/admin/v1/tool-sources/${down.body.id}/tools`);
    expect(live.status).toBe(502);
    expect(live.body.code).toBe('FETCH_FAILED');
    expect(live.body.error).toMatch(/^could not list the tools of source 127_0_0_1: /);
    expect((await call('delete', `/admin/v1/tool-sources/${down.body.id}`)).body).toEqual({ deleted: 1 });
  });

  it('refuses a source on a private address the allowlist does not cover, which receives nothing', async () => {
    const res = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'mcp',
      url: `${unlisted.origin}/mcp`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.error).toContain('KBQA_ALLOW_PRIVATE_HOSTS');
    expect(unlistedSeen).toEqual([]);
  });

  it('answers 400 for bad input and 404 for what does not exist', async () => {
    const kind = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'ftp',
      url: 'x',
    });
    expect(kind.body).toEqual({ error: 'kind must be one of mcp', code: 'BAD_REQUEST' });
    const dup = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'mcp',
      url: `${mcp.origin}/mcp`,
      name: 'helper',
    });
    expect(dup.body).toEqual({
      error: `project ${projectId} already has a tool source named helper`,
      code: 'BAD_REQUEST',
    });
    const scheme = await call('post', `/admin/v1/projects/${projectId}/tool-sources`, {
      kind: 'mcp',
      url: 'file:///etc/passwd',
    });
    expect(scheme.body).toEqual({ error: 'url must be an http(s) URL', code: 'BAD_REQUEST' });
    expect((await call('get', '/admin/v1/tool-sources/999999/tools')).status).toBe(404);
    const gone = await call('delete', '/admin/v1/tool-sources/999999');
    expect(gone.body).toEqual({ error: 'tool source 999999 does not exist', code: 'NOT_FOUND' });
    expect((await call('get', '/admin/v1/projects/999999/tool-sources')).status).toBe(404);
  });

  it('never showed the secret in a response', () => {
    expect(seen.length).toBeGreaterThan(8);
    for (const text of seen) expect(text).not.toContain(SECRET);
  });

  describe('CLI', () => {
    let root: string;
    beforeAll(() => (root = mkdtempSync(join(tmpdir(), 'kbqa-sources-cli-'))));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('adds, lists, shows the tools of and removes a source without printing the secret', async () => {
      const env = { KBQA_DATA_DIR: join(root, 'd'), KBQA_ALLOW_PRIVATE_HOSTS: mcp.hostPort };
      const outputs: string[] = [];
      const run = async (args: string[]) => {
        const r = await kbqa(args, env);
        outputs.push(r.stdout, r.stderr);
        return r;
      };
      const project = JSON.parse((await run(['projects', 'create', 'p', '--json'])).stdout) as { id: number };
      const p = String(project.id);
      const added = await run([
        'tools',
        'sources',
        'add',
        '--project',
        p,
        '--mcp',
        `${mcp.origin}/mcp`,
        '--header',
        `Authorization: ${SECRET}`,
        '--json',
      ]);
      expect(added.code).toBe(0);
      const source = JSON.parse(added.stdout) as { id: number; name: string };
      const listed = await run(['tools', 'sources', 'list', '--project', p]);
      expect(listed.stdout).toContain(
        `${source.id}\t${source.name}\tmcp\t${mcp.origin}/mcp\tprivate\tAuthorization: ••••`,
      );
      const tools = await run(['tools', 'sources', 'tools', String(source.id)]);
      expect(tools.code).toBe(0);
      expect(tools.stdout).toContain('shout\tUpper-cases a text');
      const removed = await run(['tools', 'sources', 'remove', String(source.id), '--json']);
      expect(JSON.parse(removed.stdout)).toEqual({ id: source.id, deleted: true });
      const refused = await run([
        'tools',
        'sources',
        'add',
        '--project',
        p,
        '--mcp',
        `${unlisted.origin}/mcp`,
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('KBQA_ALLOW_PRIVATE_HOSTS');
      for (const o of outputs) expect(o).not.toContain(SECRET);
      // Six CLI runs, each booting the app: slow on a loaded two-core machine.
    }, 120_000);
  });
});

import { request as httpRequest, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';

/** The log without colours, as a person reads it. */
const plain = (output: string) => output.replace(/\x1b\[[0-9;]*m/g, '');

/** The lines that a start printed up to and including its ready line. */
function startupLines(output: string): string[] {
  const lines = plain(output).split('\n');
  return lines.slice(0, lines.findIndex((l) => /listening on http/.test(l)) + 1);
}

/** Polls a task until `done` says so, failing with what it last saw after 30 s. */
async function waitFor(baseUrl: string, taskId: number, key: string, done: (status: string) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await postJson(baseUrl, '/v1/ingestionStatus', { task_id: String(taskId), api_key: key });
    if (done(s.body.status)) return s.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${JSON.stringify(s.body)} after 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves with the exit code once the process has exited. */
const exitCode = (server: ServerProcess) =>
  new Promise<number | null>((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) resolve(server.child.exitCode);
    else server.child.once('exit', (code) => resolve(code));
  });

describe('Start-up and shutdown (e2e, real processes)', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kbqa-startup-'));
    dirs.push(dir);
    return dir;
  };
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ REDIS_URL: '', ...env });
    servers.push(server);
    return server;
  };

  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('prints a few lines: version, store, queue, retrieval, dashboard and how to log in; no route map', async () => {
    const dataDir = fresh();
    const server = await start({ KBQA_DATA_DIR: dataDir });
    const lines = startupLines(server.output());
    expect(lines.length).toBeLessThanOrEqual(8);
    const text = lines.join('\n');
    expect(text).toMatch(/kbqa \d+\.\d+\.\d+/);
    expect(text).toContain(`store: SQLite ${join(dataDir, 'kbqa.sqlite')}`);
    expect(text).toMatch(/queue: in-process/);
    expect(text).toMatch(/retrieval: lexical; embedding model: none/);
    expect(text).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard\//);
    // The first start names the command that makes an operator token, and never prints one.
    expect(text).toMatch(new RegExp(`KBQA_DATA_DIR=${dataDir} pnpm kbqa admin token`));
    expect(server.output()).not.toMatch(/kbqa_admin_/);
    expect(server.output()).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader|Mapped \{/);
    await server.stop();

    const again = await start({ KBQA_DATA_DIR: dataDir });
    expect(startupLines(again.output()).join('\n')).toMatch(/dashboard: .*makes a new one\)/);
    expect(again.output()).not.toMatch(/it prints an operator token/);
  });

  it('logs the route map with KBQA_LOG_LEVEL=debug', async () => {
    const server = await start({ KBQA_DATA_DIR: fresh(), KBQA_LOG_LEVEL: 'debug' });
    expect(plain(server.output())).toMatch(/RouterExplorer\] Mapped \{\/v1\/serviceChat, POST\} route/);
  });

  it('stops on SIGTERM with exit code 0 and one line, after finishing a request in flight', async () => {
    const dataDir = fresh();
    const env = { KBQA_DATA_DIR: dataDir };
    const project = JSON.parse(await cli(['projects', 'create', 'stop', '--json'], env));
    const { key } = JSON.parse(
      await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    const server = await start(env);
    const before = server.output().length;
    // A chat whose body is half sent when the signal comes: it is in flight.
    const body = JSON.stringify({
      api_key: key,
      question: 'What is kbqa?',
      history: [],
      shouldStream: false,
    });
    const { port } = new URL(server.baseUrl);
    const response = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/serviceChat',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 100);
    });
    expect(await response).toBe(200);
    expect(await exitCode(server)).toBe(0);
    const after = plain(server.output().slice(before)).trim().split('\n');
    expect(after).toEqual([expect.stringMatching(/SIGTERM: stopped in \d+ ms/)]);
  });

  describe('with an ingestion running', () => {
    let site: TestServer;
    const held: ServerResponse[] = [];
    let open = false;
    let requested: () => void = () => undefined;
    const pageRequested = new Promise<void>((r) => (requested = r));
    const answer = (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Held</title></head><body><main><h1>Held</h1><p>A held page.</p></main></body></html>',
      );
    };

    beforeAll(async () => {
      site = await startSite((req, res) => {
        if (req.url !== '/page') return void res.writeHead(404).end();
        if (open) return answer(res);
        held.push(res);
        requested();
      });
    });
    afterAll(async () => {
      open = true;
      held.splice(0).forEach(answer);
      await site.close();
    });

    it('stops on SIGINT leaving the task pending, and the next start finishes it', async () => {
      const env = { KBQA_DATA_DIR: fresh(), KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort };
      const project = JSON.parse(await cli(['projects', 'create', 'resume', '--json'], env));
      const { key } = JSON.parse(
        await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
      );
      const server = await start(env);
      const submitted = await postJson(server.baseUrl, '/v1/ingestData', {
        api_key: key,
        type: 'url',
        url: `${site.origin}/page`,
      });
      expect(submitted.status).toBe(200);
      const taskId = submitted.body.task_id as number;
      await pageRequested;
      expect((await waitFor(server.baseUrl, taskId, key, () => true)).status).toBe('running');

      server.child.kill('SIGINT');
      expect(await exitCode(server)).toBe(0);
      expect(plain(server.output())).toMatch(/SIGINT: stopped in \d+ ms/);
      open = true;
      held.splice(0).forEach((res) => res.destroy());
      const status = JSON.parse(await cli(['tasks', 'show', String(taskId), '--json'], env));
      expect(status).toMatchObject({ status: 'pending' });

      const next = await start(env);
      const done = await waitFor(next.baseUrl, taskId, key, (s) => s === 'completed');
      expect(done.result).toMatchObject({ success: true });
    });
  });
});

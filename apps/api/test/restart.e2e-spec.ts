import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';

/** One paragraph per document, small enough to be exactly one chunk. */
const docs = (batch: number) =>
  Array.from({ length: 500 }, (_, i) => ({
    source: `batch${batch}/doc${i}`,
    content: `Document ${batch}-${i} explains request hooks, reply serializers and plugin encapsulation in detail.`,
  }));

/** Polls a task until `done` says so, failing with what it last saw after 60 s. */
async function waitFor(baseUrl: string, taskId: number, key: string, done: (status: string) => boolean) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await postJson(baseUrl, '/v1/ingestionStatus', { task_id: String(taskId), api_key: key });
    if (done(s.body.status)) return s.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${JSON.stringify(s.body)} after 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Restart recovery (e2e, real processes)', () => {
  let dataDir: string;
  let server: ServerProcess | undefined;
  let site: TestServer;
  const held: ServerResponse[] = [];
  let open = false;
  let requested: () => void = () => undefined;
  const pageRequested = new Promise<void>((r) => (requested = r));
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>Held</title></head><body><main><h1>Held</h1><p>A page held open.</p></main></body></html>',
    );
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-restart-'));
    site = await startSite((req, res) => {
      if (req.url !== '/page') return void res.writeHead(404).end();
      if (open) return answer(res);
      held.push(res);
      requested();
    });
  });
  afterAll(async () => {
    await server?.stop();
    open = true;
    held.splice(0).forEach(answer);
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes tasks interrupted by a crash, with no duplicate chunks', async () => {
    const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '', KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort };
    const project = JSON.parse(await cli(['projects', 'create', 'restart', '--json'], env));
    const key = JSON.parse(
      await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
    );
    expect(key).toEqual({
      id: expect.any(Number),
      key: expect.stringMatching(/^kbqa_sk_/),
      kind: 'server',
      project_id: project.id,
    });

    server = await startServer(env);
    const base = server.baseUrl;
    const submit = async (body: Record<string, unknown>, path = '/v1/ingestDocuments') => {
      const res = await postJson(base, path, { api_key: key.key, ...body });
      expect(res.status).toBe(200);
      return res.body.task_id as number;
    };
    // Two batches, then a page whose request the site holds open (the task is then running),
    // then more batches, which wait their project's turn behind it.
    const before = [await submit({ documents: docs(0) }), await submit({ documents: docs(1) })];
    for (const id of before) await waitFor(base, id, key.key, (s) => s === 'completed');
    const page = await submit({ type: 'url', url: `${site.origin}/page` }, '/v1/ingestData');
    await pageRequested;
    const after: number[] = [];
    for (let b = 2; b < 6; b++) after.push(await submit({ documents: docs(b) }));
    expect((await waitFor(base, page, key.key, () => true)).status).toBe('running');

    await server.kill(); // a crash: SIGKILL mid-task
    open = true;
    held.splice(0).forEach((res) => res.destroy());

    server = await startServer(env);
    for (const id of [page, ...after]) {
      const s = await waitFor(server.baseUrl, id, key.key, (status) => status === 'completed');
      expect(s.result).toMatchObject({ error: '', project_id: project.id, success: true, skipped: 0 });
    }
    const db = new Database(join(dataDir, 'kbqa.sqlite'), { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM sources')).toBe(6 * 500 + 1);
      expect(count('SELECT count(*) AS n FROM chunks')).toBe(6 * 500 + 1);
      expect(count('SELECT count(*) AS n FROM documents')).toBe(6 * 500 + 1);
      expect(count("SELECT count(*) AS n FROM ingestion_tasks WHERE status <> 'completed'")).toBe(0);
    } finally {
      db.close();
    }
  });
});

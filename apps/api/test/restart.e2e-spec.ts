import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';

/** One paragraph per document, small enough to be exactly one chunk. */
const docs = (batch: number) =>
  Array.from({ length: 500 }, (_, i) => ({
    source: `batch${batch}/doc${i}`,
    content: `Document ${batch}-${i} explains request hooks, reply serializers and plugin encapsulation in detail.`,
  }));

describe('Restart recovery (e2e, real processes)', () => {
  let dataDir: string;
  let server: ServerProcess | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'kbqa-restart-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes tasks interrupted by a crash, with no duplicate chunks', async () => {
    const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '' };
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
    const taskIds: number[] = [];
    for (let b = 0; b < 12; b++) {
      const res = await postJson(server.baseUrl, '/v1/ingestDocuments', {
        api_key: key.key,
        documents: docs(b),
      });
      expect(res.status).toBe(200);
      taskIds.push(res.body.task_id);
    }
    // Crash while the queue is mid-way: some tasks done, one running, the rest pending.
    for (;;) {
      const states = await Promise.all(
        taskIds.map((id) => postJson(server!.baseUrl, '/v1/ingestionStatus', { task_id: String(id) })),
      );
      const completed = states.filter((s) => s.body.status === 'completed').length;
      const running = states.some((s) => s.body.status === 'running');
      if (completed >= 1 && running) break;
      if (completed === taskIds.length)
        throw new Error('all tasks finished before the crash; make the batch larger');
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.kill();

    server = await startServer(env);
    for (const id of taskIds) {
      for (;;) {
        const s = await postJson(server.baseUrl, '/v1/ingestionStatus', { task_id: String(id) });
        if (s.body.status === 'completed') {
          expect(s.body.result).toMatchObject({
            error: '',
            project_id: project.id,
            success: true,
            skipped: 0,
          });
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const db = new Database(join(dataDir, 'kbqa.sqlite'), { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM sources')).toBe(12 * 500);
      expect(count('SELECT count(*) AS n FROM chunks')).toBe(12 * 500);
      expect(count('SELECT count(*) AS n FROM documents')).toBe(12 * 500);
      expect(count("SELECT count(*) AS n FROM ingestion_tasks WHERE status <> 'completed'")).toBe(0);
    } finally {
      db.close();
    }
  });
});

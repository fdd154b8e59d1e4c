import { startServer, type TestServer } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';

describe('Task ids and keyless ingestionStatus (e2e)', () => {
  let site: TestServer;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('gone');
    });
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort });
    p = await t.createProject('ids');
  });
  afterAll(async () => {
    await t.close();
    await site.close();
  });

  it('hands out random ids, not sequential ones', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await t
        .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: [{ source: `s${i}`, content: 'x' }] })
        .expect(200);
      ids.push(res.body.task_id);
    }
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(2 ** 32);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Sequential ids would be in increasing order; 20 random ones are (1 in 20!).
    expect([...ids].sort((a, b) => a - b)).not.toEqual(ids);
    await t.waitForTask(ids[ids.length - 1]!);
  });

  it("shows a failed task's error text only to a caller with the project's key", async () => {
    const res = await t
      .post('/v1/ingestData', { api_key: p.serverKey, type: 'url', url: `${site.origin}/secret-path` })
      .expect(200);
    const withKey = await t.waitForTask(res.body.task_id);
    expect(withKey.result).toMatchObject({ success: false, error: expect.stringContaining('404') });
    expect((withKey.result as { error: string }).error).toContain('secret-path');

    const keyless = await t.post('/v1/ingestionStatus', { task_id: String(res.body.task_id) }).expect(200);
    expect(keyless.body.result.success).toBe(false);
    expect(keyless.body.result.error).not.toContain('secret-path');
    expect(keyless.body.result.error).toContain('api_key');
  });
});

import type { ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@kbqa/core/testing';
import request from 'supertest';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const TOKEN = 'test-operator-token-0123456789';

const page = (title: string, link?: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>${`The ${title} page explains routing, hooks and plugins in some detail. `.repeat(12)}</p>` +
  `${link ? `<a href="${link}">next</a>` : ''}</main></body></html>`;

/**
 * A three-page chain, `/` → `/a` → `/b`. The crawler asks for a page only when the runner pulls
 * the next document, after writing the one before; so when `/b` is asked for, `/` is written.
 * `/b` is held until the test lets it go.
 */
const PAGES: Record<string, string> = {
  '/': page('Home', '/a'),
  '/a': page('Alpha', '/b'),
  '/b': page('Beta'),
};

describe('deleteSource while a crawl runs (e2e, a local site on 127.0.0.1)', () => {
  let site: TestServer;
  let t: TestApp;
  let p: TestProject;
  let held: ServerResponse | undefined;
  let bRequested!: Promise<void>;
  let heard: () => void;

  const answer = (res: ServerResponse, path: string) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGES[path]);
  };

  beforeAll(async () => {
    bRequested = new Promise((resolve) => (heard = resolve));
    site = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!(path in PAGES)) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      } else if (path === '/b' && !held) {
        held = res;
        heard();
      } else answer(res, path);
    });
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort, KBQA_ADMIN_TOKEN: TOKEN });
    p = await t.createProject('crawl');
  });
  afterAll(async () => {
    if (held && !held.writableEnded) held.destroy();
    await t.close();
    await site.close();
  });

  it('says in the report how many of the sources it added were deleted while it ran', async () => {
    const start = `${site.origin}/`;
    const res = await t.post('/v1/ingestData', { api_key: p.serverKey, url: start }).expect(200);
    const taskId = res.body.task_id as number;

    await bRequested;
    const deleted = await t.post('/v1/deleteSource', { api_key: p.serverKey, source: start }).expect(200);
    expect(deleted.body).toEqual({ message: 'Source(s) deleted', deleted: 1 });
    answer(held!, '/b');

    const done = await t.waitForTask(taskId, 60_000);
    expect(done.result).toEqual({
      error: '',
      project_id: p.id,
      success: true,
      indexed: 3,
      skipped: 0,
      added: 3,
      updated: 0,
      unchanged: 0,
      removed: 0,
      failed: 0,
      deleted_during_run: 1,
    });
    const sources = (await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200)).body as Array<{
      source: string;
    }>;
    expect(sources.map((s) => s.source).sort()).toEqual([`${site.origin}/a`, `${site.origin}/b`]);

    const report = await request(t.http)
      .get(`/admin/v1/tasks/${taskId}`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(report.body).toMatchObject({
      indexed_count: 3,
      counts: { added: 3 },
      deleted_during_run: 1,
      note: expect.stringMatching(
        /^1 source\(s\) this task wrote were deleted \(deleteSource\) while it ran/,
      ),
    });

    // A crawl that nothing deleted from says nothing of it.
    const again = await t.post('/v1/ingestData', { api_key: p.serverKey, url: start }).expect(200);
    const resynced = await t.waitForTask(again.body.task_id as number, 60_000);
    expect(resynced.result).not.toHaveProperty('deleted_during_run');
  });
});

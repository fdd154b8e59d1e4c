import { DOCS_CORPUS_DIR as CORPUS } from '@kbqa/core/testing';
import {
  readCorpus,
  renderDocsSite,
  renderSitemap,
  startSiteServer,
  type SiteServer,
} from '@kbqa/html/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { cli } from './process-helpers';

describe('ingestData (e2e, local sites on 127.0.0.1)', () => {
  let plain: SiteServer;
  let docusaurus: SiteServer;
  let t: TestApp;
  let p: TestProject;
  let sitemapPages: number;

  beforeAll(async () => {
    const pages = renderDocsSite(CORPUS);
    plain = await startSiteServer({ pages });
    const paths = readCorpus(CORPUS).map((page) => page.path);
    sitemapPages = paths.length;
    plain.close = plain.close.bind(plain);
    const docPages = renderDocsSite(CORPUS, { flavor: 'docusaurus' });
    docusaurus = await startSiteServer({
      pages: docPages,
      handle: (_req, res, path) => {
        if (path !== '/sitemap.xml') return false;
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(renderSitemap(paths.map((x) => docusaurus.origin + x)));
        return true;
      },
    });
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: `${plain.host},${docusaurus.host}` });
    p = await t.createProject('web');
  });
  afterAll(async () => {
    await t.close();
    await plain.close();
    await docusaurus.close();
  });

  const ingest = async (body: Record<string, unknown>) => {
    const res = await t.post('/v1/ingestData', { api_key: p.serverKey, ...body }).expect(200);
    expect(Number.isInteger(res.body.task_id)).toBe(true);
    const status: Record<string, unknown> = await t.waitForTask(res.body.task_id, 60_000);
    return { result: status.result, taskId: res.body.task_id as number };
  };

  it('crawls a documentation site (the default type) and answers from its pages', async () => {
    const done = await ingest({ url: `${plain.origin}/`, include_paths: ['/docs/reference/*', '/'] });
    const sources = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
    const urls = sources.body.map((s: { source: string }) => s.source);
    expect(done.result).toEqual({
      error: '',
      project_id: p.id,
      success: true,
      indexed: urls.length,
      skipped: expect.any(Number),
      added: urls.length,
      updated: 0,
      unchanged: 0,
      removed: 0,
      failed: 0,
    });
    // Guides are linked from every page but excluded by include_paths.
    const report = JSON.parse(
      await cli(['tasks', 'show', String(done.taskId), '--json'], { KBQA_DATA_DIR: t.dataDir }),
    );
    expect(report).toMatchObject({
      id: done.taskId,
      status: 'completed',
      success: true,
      indexed_count: urls.length,
    });
    expect([...report.indexed].sort()).toEqual([...urls].sort());
    expect(report.skipped).toContainEqual({
      url: `${plain.origin}/docs/guides/testing`,
      code: 'FILTERED',
      reason: expect.stringMatching(/exclud|include/i),
    });
    expect(report.skipped_count).toBe((done.result as { skipped: number }).skipped);
    expect(report.skipped_count).toBeGreaterThan(0);
    expect(urls).toContain(`${plain.origin}/docs/reference/hooks`);
    expect(
      urls.every((u: string) => u === `${plain.origin}/` || u.startsWith(`${plain.origin}/docs/reference/`)),
    ).toBe(true);
    const chat = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'What does the onRequest hook do?',
        history: [],
        shouldStream: false,
      })
      .expect(200);
    expect(chat.body.sources[0].link).toBe(`${plain.origin}/docs/reference/hooks`);
  });

  it('excludes a folder named without * and everything under it, and reports a pattern that matched nothing', async () => {
    const q = await t.createProject('excluded');
    const res = await t
      .post('/v1/ingestData', {
        api_key: q.serverKey,
        url: `${plain.origin}/`,
        exclude_paths: ['/docs/guides', '/docs/graphql'],
      })
      .expect(200);
    const done = await t.waitForTask(res.body.task_id, 60_000);
    const sources = await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
    const urls: string[] = sources.body.map((s: { source: string }) => s.source);
    expect(urls).toContain(`${plain.origin}/docs/reference/hooks`);
    expect(urls.filter((u) => u.startsWith(`${plain.origin}/docs/guides`))).toEqual([]);
    expect(done.result).toMatchObject({
      error: '',
      success: true,
      indexed: urls.length,
      unmatched_exclude_paths: ['/docs/graphql'],
    });
    expect(done.result).not.toHaveProperty('unmatched_include_paths');
    const report = JSON.parse(
      await cli(['tasks', 'show', String(res.body.task_id), '--json'], { KBQA_DATA_DIR: t.dataDir }),
    );
    expect(report.note).toBe('exclude_paths "/docs/graphql" matched no URL this load met');
    expect(report.skipped).toContainEqual({
      url: `${plain.origin}/docs/guides/deployment/serverless`,
      code: 'FILTERED',
      reason: 'matched by excludePaths',
    });
  });

  it('ingests one page with type url, and every page of a sitemap with type sitemap', async () => {
    const one = await ingest({ url: `${plain.origin}/docs/guides/testing`, type: 'url' });
    expect(one.result).toEqual({
      error: '',
      project_id: p.id,
      success: true,
      indexed: 1,
      skipped: 0,
      ...{ added: 1, updated: 0, unchanged: 0, removed: 0, failed: 0 },
    });
    const sitemapSite = await startSiteServer({
      pages: renderDocsSite(CORPUS),
      handle: (_req, res, path) => {
        if (path !== '/sitemap.xml') return false;
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          renderSitemap([
            `${plain.origin}/docs/guides/deployment/serverless`,
            `${plain.origin}/docs/guides/database`,
          ]),
        );
        return true;
      },
    });
    try {
      const res = await t.post('/v1/ingestData', {
        api_key: p.serverKey,
        url: `${sitemapSite.origin}/sitemap.xml`,
        type: 'sitemap',
      });
      // The sitemap's host is not allowlisted: refused at once, saying how to allow it.
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(`add ${sitemapSite.host} to KBQA_ALLOW_PRIVATE_HOSTS`);
    } finally {
      await sitemapSite.close();
    }
    const allowed = await ingest({ url: `${docusaurus.origin}/sitemap.xml`, type: 'sitemap' });
    // Every page the Docusaurus site's sitemap lists.
    expect(allowed.result).toMatchObject({
      error: '',
      project_id: p.id,
      success: true,
      indexed: sitemapPages,
    });
  });

  it('ingests a Docusaurus site through its sitemap', async () => {
    const q = await t.createProject('docusaurus');
    const res = await t
      .post('/v1/ingestData', { api_key: q.serverKey, url: `${docusaurus.origin}/`, type: 'docusaurus' })
      .expect(200);
    const done = await t.waitForTask(res.body.task_id, 60_000);
    const sources = await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
    // Every page of the corpus, the home page included.
    expect(sources.body).toHaveLength(sitemapPages);
    expect(done.result).toMatchObject({
      error: '',
      project_id: q.id,
      success: true,
      indexed: sources.body.length,
    });
  });

  it('refuses private addresses that are not allowlisted with a 400 saying how to allow them', async () => {
    const strict = await startTestApp();
    try {
      const q = await strict.createProject('strict');
      for (const [url, shown] of [
        [`${plain.origin}/`, plain.host],
        ['http://127.1/', '127.0.0.1'],
        ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
        ['http://10.0.0.1/', '10.0.0.1'],
        ['http://169.254.169.254/latest', '169.254.169.254'],
        ['http://localhost:4102/', 'localhost:4102'],
      ]) {
        for (const type of ['url', 'website-crawler', 'sitemap', 'docusaurus']) {
          const res = await strict.post('/v1/ingestData', { api_key: q.serverKey, url, type }).expect(400);
          expect(res.body).toEqual({
            error: expect.stringContaining(`add ${shown} to KBQA_ALLOW_PRIVATE_HOSTS`),
            code: 'BAD_REQUEST',
          });
        }
      }
      expect(await strict.query('SELECT id FROM ingestion_tasks')).toEqual([]);
      expect(plain.requests.filter((r) => r.startsWith('/?strict'))).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it.each([
    ['an unknown type', { url: 'https://example.com', type: 'ftp' }, /type must be one of/],
    ['a missing url', { type: 'url' }, /url/],
    [
      'include_paths with type url',
      { url: 'https://example.com', type: 'url', include_paths: ['/a'] },
      /only to type website-crawler/,
    ],
    ['a file:// url', { url: 'file:///etc/passwd', type: 'url' }, /http/i],
    ['a github url of another host', { url: 'https://gitlab.com/a/b', type: 'github' }, /github/i],
    ['an ext:: git url', { url: 'ext::sh -c id', type: 'github' }, /./],
    [
      'a youtube url that is not a video',
      { url: 'https://www.youtube.com/feed/trending', type: 'youtube' },
      /./,
    ],
  ])('refuses %s with 400 before any task exists', async (_name, body, message) => {
    const before = await t.query<{ n: number }>('SELECT count(*) AS n FROM ingestion_tasks');
    const res = await t.post('/v1/ingestData', { api_key: p.serverKey, ...body }).expect(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.error).toMatch(message);
    expect(await t.query('SELECT count(*) AS n FROM ingestion_tasks')).toEqual(before);
  });
});

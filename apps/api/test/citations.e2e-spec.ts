import { startServer, type TestServer } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const PAGES: Record<string, { title: string; text: string }> = {
  pipes: { title: 'Pipes', text: 'A pipe transforms the input of a route handler before the handler runs.' },
  guards: { title: 'Guards', text: 'A guard decides whether a request may reach its route handler at all.' },
};

/**
 * A docs site whose sitemap lists pages without a trailing slash while each page names the
 * slashed form canonical: the shape that made chat cite `…/docs/pipes/` while getSources listed
 * `…/docs/pipes`.
 */
async function slashSite(): Promise<TestServer> {
  const server: TestServer = await startServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
          Object.keys(PAGES)
            .map((name) => `<url><loc>${server.origin}/docs/${name}</loc></url>`)
            .join('') +
          '</urlset>',
      );
      return;
    }
    const name = /^\/docs\/(\w+)\/?$/.exec(path)?.[1];
    const page = name ? PAGES[name] : undefined;
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<html><head><title>${page.title}</title><link rel="canonical" href="${server.origin}/docs/${name}/"></head>` +
        `<body><main><h1>${page.title}</h1><p>${page.text}</p></main></body></html>`,
    );
  });
  return server;
}

describe('Citations and sources agree (e2e)', () => {
  let site: TestServer;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    site = await slashSite();
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort });
    p = await t.createProject('citations');
  });
  afterAll(async () => {
    await t.close();
    await site.close();
  });

  it('cites links that getSources lists and deleteSource deletes', async () => {
    for (const type of ['sitemap', 'url']) {
      const url = type === 'sitemap' ? `${site.origin}/sitemap.xml` : `${site.origin}/docs/pipes`;
      const res = await t.post('/v1/ingestData', { api_key: p.serverKey, type, url }).expect(200);
      expect((await t.waitForTask(res.body.task_id)).result).toMatchObject({ success: true });
    }
    const listed = async () =>
      (
        (await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200)).body as Array<{
          source: string;
        }>
      ).map((s) => s.source);
    // The url ingestion of /docs/pipes replaced the sitemap's page: one form, one source.
    expect((await listed()).sort()).toEqual([`${site.origin}/docs/guards`, `${site.origin}/docs/pipes`]);

    const answer = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'What does a pipe transform?',
        shouldStream: false,
      })
      .expect(200);
    const cited = (answer.body.sources as Array<{ link: string }>).map((s) => s.link);
    expect(cited).toContain(`${site.origin}/docs/pipes`);
    for (const link of cited) expect(await listed()).toContain(link);

    const deleted = await t.post('/v1/deleteSource', { api_key: p.serverKey, source: cited[0] }).expect(200);
    expect(deleted.body.deleted).toBe(1);
    expect(await listed()).not.toContain(cited[0]);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser, launchBrowser } from './browser';
import { startTestApp, type TestApp, type TestProject } from './helpers';

/** Two versions of one page, raw documents labelled as a versioned site's loader labels them. */
const DOCS = [
  {
    source: 'https://docs.example.com/docs/1.x/server',
    content:
      '# Server\n\nTo open the server call listen with a port number: server.listen(3000) binds the socket.',
    metadata: { version: '1.x', version_default: 0 },
  },
  {
    source: 'https://docs.example.com/docs/server',
    content:
      '# Server\n\nTo open the server call start with an options object: server.start({ port: 3000 }) binds it.',
    metadata: { version: '2.x', version_default: 1 },
  },
];

/** A page of the docs site at `path`, naming its version as Docusaurus does, with the widget. */
function hostPage(api: string, anonKey: string, meta: string, attributes: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title>${meta}
<link rel="icon" href="data:,"></head><body><h1>Server</h1>
<script src="${api}/widget.js" data-anon-key="${anonKey}" ${attributes} defer></script></body></html>`;
}

describeBrowser('Widget asks about the version of the page it is on (e2e, Chromium)', () => {
  let t: TestApp;
  let p: TestProject;
  let host: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('widget-versions');
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(res.body.task_id);
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pages: Record<string, string> = {
      '/docs/1.x/server': hostPage(
        api,
        p.anonKey,
        '<meta name="docusaurus_version" content="1.x">',
        'data-version="auto"',
      ),
      '/v1/guide': hostPage(api, p.anonKey, '', 'data-version="auto" data-version-pattern="^/v(\\d+)/"'),
      '/docs/server': hostPage(api, p.anonKey, '<meta name="docusaurus_version" content="2.x">', ''),
    };
    const hostServer = createServer((req, res) => {
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((r) => hostServer.listen(0, '127.0.0.1', r));
    host = { server: hostServer, origin: `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}` };
    await t.projects.setAllowedOrigins(p.id, [host.origin]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (host) await new Promise<void>((r) => host.server.close(() => r()));
    await new Promise<void>((r) => (t.app.getHttpServer() as Server).close(() => r()));
    await t.close();
  });

  async function askOn(path: string): Promise<string> {
    const page: Page = await browser.newPage();
    try {
      await page.goto(`${host.origin}${path}`);
      await page.getByRole('button', { name: /Ask the docs/ }).click();
      await page.getByLabel('Your question').fill('How do I open the server?');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Good answer' }).waitFor({ state: 'visible' });
      return await page
        .getByRole('dialog')
        .evaluate((el) => (el as unknown as { innerText: string }).innerText);
    } finally {
      await page.close();
    }
  }

  it('answers from version 1.x on a page whose Docusaurus meta tag says 1.x', async () => {
    const text = await askOn('/docs/1.x/server');
    expect(text).toContain('server.listen(3000)');
    expect(text).not.toContain('server.start(');
  });

  it('reads the version from the path with data-version-pattern', async () => {
    const text = await askOn('/v1/guide');
    // The pattern gives "1", a version the project does not have: the default one answers, saying so.
    expect(text).toContain('Version 1 of the documentation does not cover this');
    expect(text).toContain('server.start(');
  });

  it('sends no version without data-version: the default version answers', async () => {
    const text = await askOn('/docs/server');
    expect(text).toContain('server.start(');
    expect(text).not.toContain('server.listen(3000)');
  });
});

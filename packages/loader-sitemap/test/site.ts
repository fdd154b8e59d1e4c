import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@kbqa/core/testing';

type Handler = (req: IncomingMessage, res: ServerResponse, origin: string) => void;

export const page = (title: string, text: string, canonical?: string): string =>
  `<!doctype html><html><head><title>${title}</title>${canonical ? `<link rel="canonical" href="${canonical}">` : ''}</head>
<body><nav>Home | Docs</nav><main><h1>${title}</h1><p>${text}</p></main></body></html>`;

export const urlset = (urls: string[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((u) => `<url><loc>${u}</loc><lastmod>2026-01-01</lastmod></url>`)
    .join('')}</urlset>`;

export const sitemapIndex = (urls: string[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls
    .map((u) => `<sitemap><loc>${u}</loc></sitemap>`)
    .join('')}</sitemapindex>`;

const JS_ONLY = `<!doctype html><html><head><title>App</title><script src="/main.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`;

/** 10 MiB of zeros per gzip member; members concatenate into one valid gzip stream. */
export function gzipBomb(members: number): Buffer {
  const member = gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

export interface TestSite extends TestServer {
  /** Requests per path, to prove a sitemap was (not) fetched. */
  hits: Map<string, number>;
}

/** A small documentation site with sitemaps of every awkward shape, on 127.0.0.1. */
export async function startSite(): Promise<TestSite> {
  const hits = new Map<string, number>();
  const xml =
    (body: string | Buffer, type = 'application/xml'): Handler =>
    (_req, res) =>
      res.writeHead(200, { 'content-type': type }).end(body);
  const html =
    (body: string): Handler =>
    (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  const bomb = gzipBomb(20);

  const routes: Record<string, Handler> = {
    '/robots.txt': (_req, res) => res.end('User-agent: *\nDisallow: /private\n'),
    '/docs/a': html(
      page('Page A', 'Alpha explains how to install the tool and configure its storage folder.'),
    ),
    '/docs/b': html(
      page('Page B', 'Bravo explains how to back up the database and restore it later.', '/docs/b'),
    ),
    '/docs/c': html(page('Page C', 'Charlie lists the command line flags and what each one changes.')),
    '/private/x': html(page('Private', 'Robots.txt keeps this page out of the index entirely.')),
    '/app': html(JS_ONLY),
    '/file.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4'),
    '/small.xml': (_req, res, o) => xml(urlset([`${o}/docs/a`, `${o}/docs/b`]))(_req, res, o),
    '/sitemap.xml': (_req, res, o) =>
      xml(
        urlset([
          `${o}/docs/a`,
          `${o}/docs/b?ref=sitemap&amp;x=1`,
          `${o}/docs/b`,
          `${o}/docs/a`,
          `${o}/private/x`,
          `${o}/file.pdf`,
          `${o}/app`,
          'ftp://example.com/file',
        ]),
      )(_req, res, o),
    '/c.xml.gz': (_req, res, o) => xml(gzipSync(urlset([`${o}/docs/c`])), 'application/gzip')(_req, res, o),
    '/index.xml': (_req, res, o) =>
      xml(
        sitemapIndex([
          `${o}/sitemap.xml`,
          `${o}/c.xml.gz`,
          `http://localhost:${new URL(o).port}/foreign.xml`,
          `https://elsewhere.example/sitemap.xml`,
          `${o}/index.xml`,
          `${o}/missing.xml`,
        ]),
      )(_req, res, o),
    '/loop-a.xml': (_req, res, o) => xml(sitemapIndex([`${o}/loop-b.xml`]))(_req, res, o),
    '/loop-b.xml': (_req, res, o) => xml(sitemapIndex([`${o}/loop-a.xml`, `${o}/small.xml`]))(_req, res, o),
    '/bomb.xml.gz': xml(bomb, 'application/gzip'),
    '/bomb-encoded.xml': (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(bomb),
    '/bomb-index.xml': (_req, res, o) =>
      xml(sitemapIndex([`${o}/bomb.xml.gz`, `${o}/small.xml`]))(_req, res, o),
    '/entities.xml': (_req, res, o) =>
      xml(
        `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>` +
          `<urlset><url><loc>${o}/docs/a?q=&lol3;</loc></url><url><loc>${o}/docs/b?x=1&amp;y=&#50;</loc></url></urlset>`,
      )(_req, res, o),
    '/text.txt': (_req, res, o) => xml(`${o}/docs/a\n${o}/docs/c\n`, 'text/plain')(_req, res, o),
    '/page.html': html(page('Not a sitemap', 'This is an ordinary page, not a sitemap file.')),
    '/empty.xml': xml(urlset([])),
    '/js-only.xml': (_req, res, o) => xml(urlset([`${o}/app`]))(_req, res, o),
  };
  // /deep/0.xml → /deep/1.xml → … → /deep/11.xml, the last one listing a page.
  for (let n = 0; n <= 11; n++) {
    routes[`/deep/${n}.xml`] = (_req, res, o) =>
      xml(n < 11 ? sitemapIndex([`${o}/deep/${n + 1}.xml`]) : urlset([`${o}/docs/a`]))(_req, res, o);
  }

  let origin = '';
  const server = await startServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes[path];
    if (handler) handler(req, res, origin);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
  });
  origin = server.origin;
  return { ...server, hits };
}

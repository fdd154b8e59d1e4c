import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LoadedDocument, LoadRequest } from '@kbqa/core';
import { collect, describeLoaderContract, DOCS_CORPUS_DIR as CORPUS } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import {
  CHROME_PHRASES,
  readCorpus,
  renderDocsSite,
  renderSitemap,
  startSiteServer,
  type SiteFile,
  type SiteServer,
  type SiteServerOptions,
} from '@kbqa/html/testing';
import { DocusaurusLoader, type DocusaurusLoaderOptions } from './docusaurus.loader';

const CORPUS_PATHS = readCorpus(CORPUS).map((p) => p.path);

function fetcherFor(server: SiteServer): SafeFetcher {
  return new SafeFetcher({
    allowPrivateHosts: [server.host],
    retries: 0,
    requestTimeoutMs: 1500,
    connectTimeoutMs: 1500,
    perHostConcurrency: 8,
  });
}

type Load = Awaited<ReturnType<typeof collect>>;

function load(
  server: SiteServer,
  request: Omit<LoadRequest, 'url'> & { path?: string },
  options: Partial<DocusaurusLoaderOptions> = {},
): Promise<Load> {
  const { path = '/', ...rest } = request;
  return collect(new DocusaurusLoader({ fetcher: fetcherFor(server), ...options }), {
    url: server.origin + path,
    ...rest,
  });
}

const sources = (docs: LoadedDocument[], origin: string): string[] =>
  docs.map((d) => d.source.slice(origin.length)).sort();
const reasonOf = (l: Load, url: string): string | undefined => l.skipped.find((s) => s.url === url)?.reason;

const simplePage = (title: string, body: string, head = ''): string =>
  `<!doctype html><html><head><meta name="generator" content="Docusaurus v3.5.2"><title>${title} | Site</title>${head}</head><body><nav class="navbar"><a href="/">Home</a></nav><main><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div></article></main></body></html>`;
const text = (topic: string): string =>
  `<p>${`This page documents ${topic} with enough words to be real content. `.repeat(3)}</p>`;

/** A Docusaurus site: the corpus as docs, plus blog, tag and search pages, under `basePath`. */
function docusaurusSite(
  basePath: string,
  origin: () => string,
): SiteServerOptions & { files: Map<string, SiteFile> } {
  const pages = renderDocsSite(CORPUS, { flavor: 'docusaurus', basePath });
  pages.set(`${basePath}/blog/release-5`, simplePage('Tidepool 3 released', text('the release')));
  pages.set(`${basePath}/blog/tags/release`, simplePage('Tag: release', text('a tag')));
  pages.set(`${basePath}/docs/tags/hooks`, simplePage('Tag: hooks', text('a docs tag')));
  pages.set(`${basePath}/search`, simplePage('Search', text('searching')));
  return {
    pages,
    files: new Map<string, SiteFile>(),
    // The sitemap names absolute URLs, known once the server listens.
    handle: (_req, res, path) => {
      if (path !== `${basePath}/sitemap.xml`) return false;
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(renderSitemap([...pages.keys()].map((p) => origin() + p)));
      return true;
    },
  };
}

describe(DocusaurusLoader.name, () => {
  describe('on a Docusaurus site at the root', () => {
    let server: SiteServer;
    let origin = '';
    beforeAll(async () => {
      const site = docusaurusSite('', () => origin);
      server = await startSiteServer(site);
      origin = server.origin;
    });
    afterAll(() => server.close());

    it('ingests every docs page of the sitemap as the article markdown, without blog, tags or search', async () => {
      const result = await load(server, {});
      expect(sources(result.documents, origin)).toEqual([...CORPUS_PATHS].sort());
      const routes = result.documents.find((d) => d.source === `${origin}/docs/reference/routes`);
      expect(routes).toMatchObject({ title: 'Routes', link: `${origin}/docs/reference/routes` });
      expect(routes?.content).toContain('### Full declaration\n\n```js\napp.route(options);\n```');
      for (const doc of result.documents)
        for (const phrase of CHROME_PHRASES) expect(doc.content).not.toContain(phrase);
      expect(reasonOf(result, `${origin}/blog/release-5`)).toBe('not a docs page (blog)');
      expect(reasonOf(result, `${origin}/blog/tags/release`)).toBe('not a docs page (blog)');
      expect(reasonOf(result, `${origin}/docs/tags/hooks`)).toBe('not a docs page (tags)');
      expect(reasonOf(result, `${origin}/search`)).toBe('not a docs page (search)');
      expect(server.requests.filter((r) => r.startsWith('/blog') || r.startsWith('/search'))).toEqual([]);
    });

    it('reports SCRAPING progress against the number of pages listed', async () => {
      const { progress } = await load(server, {});
      expect(progress[0]).toMatchObject({ step: 'SCRAPING', current: 0, total: CORPUS_PATHS.length });
      expect(progress.at(-1)).toMatchObject({ current: CORPUS_PATHS.length, total: CORPUS_PATHS.length });
    });

    it('finds the sitemap from a page URL deep in the site', async () => {
      const result = await load(server, { path: '/docs/reference/routes' });
      expect(result.documents).toHaveLength(CORPUS_PATHS.length);
    });

    it('takes the blog when the URL given is under it', async () => {
      const result = await load(server, { path: '/blog/' });
      expect(sources(result.documents, origin)).toContain('/blog/release-5');
      expect(reasonOf(result, `${origin}/docs/tags/hooks`)).toBe('not a docs page (tags)');
    });

    it('honours includePaths, excludePaths and the page cap', async () => {
      const included = await load(server, {
        includePaths: ['/docs/guides/*'],
        excludePaths: ['/docs/guides/index'],
      });
      const guides = CORPUS_PATHS.filter((p) => p.startsWith('/docs/guides/') && p !== '/docs/guides/index');
      expect(sources(included.documents, origin)).toEqual([...guides].sort());
      expect(reasonOf(included, `${origin}/docs/guides/index`)).toBe('matched by excludePaths');
      expect(reasonOf(included, `${origin}/docs/reference/routes`)).toBe('not matched by includePaths');
      expect(included.unmatched).toEqual({});

      // Without *, a folder and everything under it; a pattern matching no sitemap URL is reported.
      const folder = await load(server, { excludePaths: ['/docs/guides', '/docs/graphql'] });
      expect(sources(folder.documents, origin).some((p) => p.startsWith('/docs/guides'))).toBe(false);
      expect(sources(folder.documents, origin)).toContain('/docs/reference/routes');
      expect(folder.unmatched).toEqual({ excludePaths: ['/docs/graphql'] });

      const capped = await load(server, {}, { maxPages: 3 });
      expect(capped.documents).toHaveLength(3);
      expect(capped.skipped.filter((s) => s.reason === 'page limit of 3 reached')).toHaveLength(
        CORPUS_PATHS.length - 3,
      );
    });
  });

  describe('on a Docusaurus site under a path', () => {
    let server: SiteServer;
    let origin = '';
    beforeAll(async () => {
      const site = docusaurusSite('/site', () => origin);
      // A different site at the root must not be mistaken for this one.
      site.files.set('/sitemap.xml', {
        type: 'application/xml',
        body: renderSitemap(['http://elsewhere.test/']),
      });
      server = await startSiteServer(site);
      origin = server.origin;
    });
    afterAll(() => server.close());

    it('reads <base>/sitemap.xml and keeps pages under the base', async () => {
      for (const path of ['/site/', '/site', '/site/docs/reference/hooks']) {
        const result = await load(server, { path });
        expect(result.documents).toHaveLength(CORPUS_PATHS.length);
        expect(result.documents.every((d) => d.source.startsWith(`${origin}/site`))).toBe(true);
      }
    });
  });

  describe('on a site with edge cases', () => {
    let server: SiteServer;
    let origin = '';
    beforeAll(async () => {
      const pages = new Map<string, string>([
        [
          '/docs/intro',
          simplePage('Intro', text('the introduction'), '<link rel="canonical" href="/docs/intro">'),
        ],
        [
          '/docs/intro-print',
          simplePage('Intro', text('the introduction'), '<link rel="canonical" href="/docs/intro/">'),
        ],
        ['/docs/final', simplePage('Final', text('where redirects end'))],
        // A misconfigured site that names its home page canonical on every page.
        ['/docs/rooted-a', simplePage('Rooted A', text('first rooted'), '<link rel="canonical" href="/">')],
        ['/docs/rooted-b', simplePage('Rooted B', text('second rooted'), '<link rel="canonical" href="/">')],
        ['/docs/private/secret', simplePage('Secret', text('secrets'))],
        ['/docs/huge', simplePage('Huge', `<p>${'y'.repeat(1000)}</p>`.repeat(3000))],
        ['/docs/after-slow', simplePage('After slow', text('what comes after'))],
        [
          '/docs/app',
          '<!doctype html><html><head><title>App</title></head><body><noscript>Enable JavaScript to use this site.</noscript><div id="__docusaurus"></div><div id="root"></div><script src="/main.js"></script></body></html>',
        ],
      ]);
      const listed = [
        '/docs/intro',
        '/docs/intro/',
        '/docs/intro?utm_source=x#top',
        '/docs/intro-print',
        '/docs/rooted-a',
        '/docs/rooted-b',
        '/docs/redirect',
        '/docs/loop',
        '/docs/private/secret',
        '/docs/huge',
        '/docs/slow',
        '/docs/after-slow',
        '/docs/app',
        '/docs/manual.pdf',
        '/docs/data',
        '/docs/gone',
      ];
      const files = new Map<string, SiteFile>([
        [
          '/robots.txt',
          { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private/\nSitemap: /maps/index.xml\n' },
        ],
        [
          '/maps/index.xml',
          {
            type: 'application/xml',
            body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>ORIGIN/maps/docs.xml.gz</loc></sitemap><sitemap><loc>http://other.test/maps/x.xml</loc></sitemap></sitemapindex>`,
          },
        ],
        ['/docs/data', { type: 'application/json', body: '{}' }],
      ]);
      server = await startSiteServer({
        pages,
        files,
        handle: (_req, res, path) => {
          if (path === '/maps/index.xml' || path === '/maps/docs.xml.gz') {
            const body =
              path === '/maps/index.xml'
                ? String(files.get(path)?.body).replace('ORIGIN', origin)
                : gzipSync(renderSitemap(listed.map((p) => origin + p)));
            res.writeHead(200, {
              'content-type': path.endsWith('.gz') ? 'application/gzip' : 'application/xml',
            });
            res.end(body);
            return true;
          }
          const redirects: Record<string, string> = {
            '/docs/redirect': '/docs/redirect-2',
            '/docs/redirect-2': '/docs/final',
            '/docs/loop': '/docs/loop-2',
            '/docs/loop-2': '/docs/loop',
          };
          if (redirects[path]) {
            res.writeHead(301, { location: redirects[path] });
            res.end();
            return true;
          }
          if (path === '/sitemap.xml') {
            // The host answers unknown paths with its app shell, as static hosts often do.
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<!doctype html><html><body><div id="__docusaurus"></div></body></html>');
            return true;
          }
          return path === '/docs/slow';
        },
      });
      origin = server.origin;
    });
    afterAll(() => server.close());

    it('finds the sitemap through robots.txt and reports every page it passes over', async () => {
      const result = await load(server, { path: '/docs/' }, { maxPageBytes: 1_000_000 });
      const o = origin;
      expect(result.documents.map((d) => d.link?.slice(o.length)).sort()).toEqual([
        '/docs/after-slow',
        '/docs/final',
        '/docs/intro',
        '/docs/rooted-a',
        '/docs/rooted-b',
      ]);
      expect(result.documents.find((d) => d.title === 'Final')?.source).toBe(`${o}/docs/final`);
      const reasons = Object.fromEntries(
        result.skipped.map((s) => [s.url.slice(o.length), `${s.code} ${s.reason}`]),
      );
      expect(reasons).toMatchObject({
        '/docs/intro-print': `DUPLICATE duplicate of ${o}/docs/intro`,
        '/docs/loop': expect.stringMatching(/^FAILED redirect loop/),
        '/docs/private/secret': expect.stringMatching(/^ROBOTS disallowed by robots\.txt/),
        '/docs/huge': expect.stringMatching(/^TOO_LARGE body of .* is larger than/),
        '/docs/slow': expect.stringMatching(/^FAILED request to .* timed out/),
        '/docs/app': 'NO_CONTENT no extractable text; the page needs JavaScript',
        '/docs/manual.pdf': 'NOT_HTML not an HTML page (.pdf link, not fetched)',
        '/docs/data': 'NOT_HTML not an HTML page (application/json)',
        '/docs/gone': 'GONE HTTP 404',
      });
      expect(reasonOf(result, 'http://other.test/maps/x.xml')).toEqual(
        expect.stringContaining('nested sitemap on another host'),
      );
      // The listed variants of /docs/intro collapse into one fetch.
      expect(server.requests.filter((r) => r.startsWith('/docs/intro'))).toEqual(
        expect.arrayContaining(['/docs/intro', '/docs/intro-print']),
      );
      expect(server.requests.filter((r) => r.startsWith('/docs/intro')).length).toBe(2);
      expect(server.requests).not.toContain('/docs/private/secret');
      expect(server.requests).not.toContain('/docs/manual.pdf');
    }, 30_000);

    it('fails with NOT_FOUND when no sitemap can be found', async () => {
      const bare = await startSiteServer({ pages: new Map([['/', simplePage('Home', text('home'))]]) });
      try {
        const error = await load(bare, {}).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'NOT_FOUND' });
        // A missing robots.txt (404) is simply none: no problem to report.
        expect((error as Error).message).not.toContain('could not be read');
      } finally {
        await bare.close();
      }
    });

    it.each([
      ['answers 500', (res: ServerResponse) => void res.writeHead(500).end(), 'HTTP 500'],
      ['never answers', () => undefined, 'TIMEOUT'],
    ])(
      'says robots.txt could not be read when it %s, instead of treating it as absent',
      async (_what, answer, why) => {
        const held: ServerResponse[] = [];
        const site = await startSiteServer({
          pages: new Map([['/', simplePage('Home', text('home'))]]),
          handle: (_req, res, path) => {
            if (path !== '/robots.txt') return false;
            held.push(res);
            answer(res);
            return true;
          },
        });
        try {
          const error = await load(site, {}).catch((e: unknown) => e);
          expect(error).toMatchObject({ code: 'NOT_FOUND' });
          expect((error as Error).message).toContain(`robots.txt, which could not be read: ${why}`);
        } finally {
          held.forEach((res) => res.destroy());
          await site.close();
        }
      },
    );
  });

  describe('validate', () => {
    const loader = new DocusaurusLoader({ fetcher: new SafeFetcher() });
    it('refuses what is not an http(s) URL and malformed path patterns', () => {
      expect(() => loader.validate({ url: 'ftp://example.com/' })).toThrow(/only http and https/);
      expect(() => loader.validate({ url: 'https://example.com', excludePaths: ['blog'] })).toThrow(
        /excludePaths/,
      );
      expect(() => loader.validate({ url: 'https://docs.example.com/' })).not.toThrow();
    });
  });

  describeLoaderContract('DocusaurusLoader', {
    setup: async () => {
      let origin = '';
      const server = await startSiteServer(docusaurusSite('', () => origin));
      origin = server.origin;
      return {
        loader: new DocusaurusLoader({ fetcher: fetcherFor(server), maxPages: 5 }),
        request: { url: `${origin}/` },
        // maxPages 5 on a larger site: the pages past the limit are reported skipped.
        skipping: { url: `${origin}/` },
        teardown: () => server.close(),
      };
    },
    invalidRequest: { url: 'javascript:alert(1)' },
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LoadContext, LoadedDocument, LoadRequest } from '@kbqa/core';
import { collect, describeLoaderContract, DOCS_CORPUS_DIR as CORPUS } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import {
  readCorpus,
  renderDocsSite,
  startSiteServer,
  type SiteServer,
  CHROME_PHRASES,
} from '@kbqa/html/testing';
import { WebsiteCrawlerLoader, type WebsiteCrawlerOptions } from './website-crawler.loader';

const DOCS = renderDocsSite(CORPUS);
const CORPUS_PATHS = readCorpus(CORPUS).map((p) => p.path);

function fetcherFor(server: SiteServer, other?: SiteServer): SafeFetcher {
  return new SafeFetcher({
    allowPrivateHosts: [server.host, ...(other ? [other.host] : [])],
    retries: 0,
    requestTimeoutMs: 1500,
    connectTimeoutMs: 1500,
    perHostConcurrency: 8,
  });
}

type Crawl = Awaited<ReturnType<typeof collect>>;

function crawl(
  server: SiteServer,
  request: Omit<LoadRequest, 'url'> & { path?: string },
  options: Partial<WebsiteCrawlerOptions> = {},
): Promise<Crawl> {
  const { path = '/', ...rest } = request;
  return collect(new WebsiteCrawlerLoader({ fetcher: fetcherFor(server), ...options }), {
    url: server.origin + path,
    ...rest,
  });
}

const paths = (docs: LoadedDocument[], origin: string): string[] =>
  docs.map((d) => d.source.slice(origin.length)).sort();
const reasonOf = (c: Crawl, origin: string, path: string): string | undefined =>
  c.skipped.find((s) => s.url === origin + path)?.reason;

const page = (title: string, body: string, head = ''): string =>
  `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body><nav><a href="/">Home</a></nav><main><h1>${title}</h1>${body}</main></body></html>`;
const text = (topic: string): string =>
  `<p>${`This page explains ${topic} in enough words to count as real content for the crawler. `.repeat(3)}</p>`;

describe(WebsiteCrawlerLoader.name, () => {
  describe('on a rendered docs site', () => {
    let server: SiteServer;
    beforeAll(async () => {
      server = await startSiteServer({ pages: DOCS });
    });
    afterAll(() => server.close());

    it('indexes every page of the site once, as markdown without chrome', async () => {
      const result = await crawl(server, {});
      expect(paths(result.documents, server.origin)).toEqual(
        [...CORPUS_PATHS].map((p) => (p === '/' ? '/' : p)).sort(),
      );
      const routes = result.documents.find((d) => d.source === `${server.origin}/docs/reference/routes`);
      expect(routes?.title).toBe('Routes');
      expect(routes?.link).toBe(`${server.origin}/docs/reference/routes`);
      expect(routes?.content).toContain('### Full declaration\n\n```js\napp.route(options);\n```');
      for (const doc of result.documents)
        for (const phrase of CHROME_PHRASES) expect(doc.content).not.toContain(phrase);
      // The GitHub, Twitter and Discord links of the chrome lead elsewhere: neither fetched nor reported.
      expect(result.skipped.filter((s) => !s.url.startsWith(server.origin))).toEqual([]);
    });

    it('reports SCRAPING progress with pages done out of pages discovered', async () => {
      const { progress } = await crawl(server, {});
      expect(progress.length).toBe(CORPUS_PATHS.length);
      expect(progress.every((p) => p.step === 'SCRAPING' && p.current <= p.total)).toBe(true);
      expect(progress.at(-1)).toMatchObject({ current: CORPUS_PATHS.length, total: CORPUS_PATHS.length });
    });

    it('follows only includePaths and leaves out excludePaths', async () => {
      const included = await crawl(server, { includePaths: ['/docs/reference/*'] });
      const reference = CORPUS_PATHS.filter((p) => p.startsWith('/docs/reference/'));
      expect(paths(included.documents, server.origin)).toEqual([...reference].sort());
      expect(reasonOf(included, server.origin, '/')).toMatch(/start page not matched by includePaths/);
      expect(reasonOf(included, server.origin, '/docs/guides/testing')).toBe('not matched by includePaths');

      const excluded = await crawl(server, { excludePaths: ['/docs/guides/*', '/docs/reference/lts'] });
      const docs = paths(excluded.documents, server.origin);
      expect(docs.some((p) => p.startsWith('/docs/guides/'))).toBe(false);
      expect(docs).not.toContain('/docs/reference/lts');
      expect(docs).toContain('/docs/reference/routes');
      expect(reasonOf(excluded, server.origin, '/docs/reference/lts')).toBe('matched by excludePaths');
    });

    it('stops at the page cap and reports the pages left out', async () => {
      const result = await crawl(server, {}, { maxPages: 5 });
      expect(result.documents).toHaveLength(5);
      const capped = result.skipped.filter((s) => s.reason === 'page limit of 5 reached');
      expect(capped.length).toBe(CORPUS_PATHS.length - 5);
    });

    it('stops at the depth cap', async () => {
      const flat = await crawl(server, { path: '/docs/reference/routes' }, { maxDepth: 0 });
      expect(paths(flat.documents, server.origin)).toEqual(['/docs/reference/routes']);
      // The sidebar of every page links every other page.
      expect(flat.skipped.filter((s) => s.reason === 'deeper than maxDepth 0').length).toBe(
        CORPUS_PATHS.length - 1,
      );
    });
  });

  describe('on a site with a section and a sibling of a longer name', () => {
    let server: SiteServer;
    const links = [
      '/docs/graphql',
      '/docs/graphql/schema',
      '/docs/graphql/queries',
      '/docs/graphql-old',
      '/docs/rest',
    ]
      .map((path) => `<a href="${path}">${path}</a>`)
      .join(' ');
    beforeAll(async () => {
      const pages = new Map<string, string>([['/', page('Home', text('the home page') + links)]]);
      for (const path of [
        '/docs/graphql',
        '/docs/graphql/schema',
        '/docs/graphql/queries',
        '/docs/graphql-old',
        '/docs/rest',
      ])
        pages.set(path, page(path, text(path) + links));
      server = await startSiteServer({ pages });
    });
    afterAll(() => server.close());

    it('leaves out a folder named without * in excludePaths, and everything under it, not its longer-named sibling', async () => {
      const result = await crawl(server, { excludePaths: ['/docs/graphql'] });
      expect(paths(result.documents, server.origin)).toEqual(['/', '/docs/graphql-old', '/docs/rest']);
      for (const path of ['/docs/graphql', '/docs/graphql/schema', '/docs/graphql/queries'])
        expect(reasonOf(result, server.origin, path)).toBe('matched by excludePaths');
      expect(result.unmatched).toEqual({});
    });

    it('follows only a folder named without * in includePaths, and everything under it', async () => {
      const result = await crawl(server, { includePaths: ['/docs/graphql/'] });
      expect(paths(result.documents, server.origin)).toEqual([
        '/docs/graphql',
        '/docs/graphql/queries',
        '/docs/graphql/schema',
      ]);
      expect(reasonOf(result, server.origin, '/docs/graphql-old')).toBe('not matched by includePaths');
    });

    it('reports the patterns that matched no URL of the crawl, as given', async () => {
      const result = await crawl(server, {
        includePaths: ['/docs/*', '/', '/guides'],
        excludePaths: ['/docs/graphq/', '/docs/rest', '*.pdf'],
      });
      expect(paths(result.documents, server.origin)).not.toContain('/docs/rest');
      expect(result.unmatched).toEqual({
        includePaths: ['/guides'],
        excludePaths: ['/docs/graphq/', '*.pdf'],
      });
    });

    it('reports an include pattern that matched nothing before failing for want of pages', async () => {
      const unmatched: Array<[string, string[]]> = [];
      const context: LoadContext = {
        signal: new AbortController().signal,
        progress: () => undefined,
        unmatchedPaths: (field, patterns) => unmatched.push([field, patterns]),
      };
      const loader = new WebsiteCrawlerLoader({ fetcher: fetcherFor(server) });
      const load = async () => {
        for await (const doc of loader.load({ url: `${server.origin}/`, includePaths: ['/dcos'] }, context))
          void doc;
      };
      await expect(load()).rejects.toMatchObject({ code: 'NO_CONTENT' });
      expect(unmatched).toEqual([['includePaths', ['/dcos']]]);
    });
  });

  describe('on a site of edge cases', () => {
    let server: SiteServer;
    let other: SiteServer;
    let big: string;

    beforeAll(async () => {
      other = await startSiteServer({ pages: new Map([['/', page('Elsewhere', text('another origin'))]]) });
      big = page('Huge', `<p>${'x'.repeat(1000)}</p>`.repeat(3000));
      const hub = page(
        'Hub',
        text('the hub') +
          [
            '/redirect-1',
            '/loop-a',
            '/landing',
            '/landing/',
            '/landing?b=2&a=1',
            '/landing?a=1&b=2#part',
            '/LANDING-print',
            '/copy',
            '/copy-too',
            '/home-canonical',
            '/private/secret',
            '/huge',
            '/slow',
            '/after-slow',
            '/files/manual.pdf',
            '/files/logo.png',
            '/api/data.json',
            '/api/data',
            '/app',
            '/empty',
            '/missing',
            `${other.origin}/`,
            'https://example.com/outside',
            'mailto:docs@example.com',
          ]
            .map((href) => `<a href="${href}">${href}</a>`)
            .join(' '),
      );
      const pages = new Map<string, string>([
        ['/', hub],
        ['/landing', page('Landing', text('landing'), '<link rel="canonical" href="/landing">')],
        ['/copy', page('Copy', text('copies'))],
        [
          '/home-canonical',
          page('Home canonical', text('a page claiming to be home'), '<link rel="canonical" href="/">'),
        ],
        ['/copy-too', page('Copy', text('copies'))],
        ['/LANDING-print', page('Landing', text('landing'), '<link rel="canonical" href="/landing/">')],
        ['/chain-end', page('Chain end', text('redirect targets'))],
        ['/private/secret', page('Secret', text('secrets'))],
        ['/huge', big],
        ['/after-slow', page('After slow', text('what follows a slow page'))],
        [
          '/app',
          '<!doctype html><html><head><title>App</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/main.js"></script></body></html>',
        ],
        ['/empty', '<!doctype html><html><head><title>Empty</title></head><body><main></main></body></html>'],
      ]);
      const files = new Map([
        ['/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' }],
        ['/api/data', { type: 'application/json', body: '{"a":1}' }],
      ]);
      server = await startSiteServer({
        pages,
        files,
        handle: (_req, res, path) => {
          const redirects: Record<string, string> = {
            '/redirect-1': '/redirect-2',
            '/redirect-2': '/chain-end',
            '/loop-a': '/loop-b',
            '/loop-b': '/loop-a',
          };
          const location = redirects[path];
          if (location) {
            res.writeHead(path === '/redirect-1' ? 301 : 302, { location });
            res.end();
            return true;
          }
          // Never answers: the fetcher's request timeout ends it, and close() drops the socket.
          return path === '/slow';
        },
      });
    });
    afterAll(async () => {
      await server.close();
      await other.close();
    });

    it('indexes what it should and reports everything else with its reason', async () => {
      const result = await crawl(server, {}, { maxPageBytes: 1_000_000 });
      const o = server.origin;
      const links = result.documents
        .map((d) => d.link?.slice(o.length).replace(/^\/copy-too$/, '/copy'))
        .sort();
      // A canonical naming the home page from another page is ignored, not a duplicate.
      expect(links).toEqual(['/', '/after-slow', '/chain-end', '/copy', '/home-canonical', '/landing']);
      const reason = (path: string): string | undefined => reasonOf(result, o, path);

      // One document for the landing page whatever the variant or canonical alias; the first
      // variant fetched (under concurrency, either) is its source.
      const landing = result.documents.filter((d) => d.title === 'Landing');
      expect(landing).toHaveLength(1);
      expect([`${o}/landing`, `${o}/landing?a=1&b=2`]).toContain(landing[0]?.source);
      const landingSkips = result.skipped.filter((s) => /landing/i.test(s.url)).map((s) => s.reason);
      expect(landingSkips).toEqual([`duplicate of ${o}/landing`, `duplicate of ${o}/landing`]);
      // Pages without a canonical dedupe by identical text.
      expect(result.skipped.filter((s) => /^same content as .*\/copy/.test(s.reason))).toHaveLength(1);
      expect(reason('/redirect-1')).toBeUndefined();

      const coded = (path: string) => {
        const item = result.skipped.find((s) => s.url === o + path);
        return item && `${item.code} ${item.reason}`;
      };
      expect(coded('/loop-a')).toMatch(/^FAILED redirect loop/);
      expect(coded('/private/secret')).toMatch(/^ROBOTS disallowed by robots\.txt/);
      expect(coded('/huge')).toMatch(/^TOO_LARGE body of .* is larger than/);
      expect(coded('/slow')).toMatch(/^FAILED request to .* timed out/);
      expect(reason('/files/manual.pdf')).toBe('not an HTML page (.pdf link, not fetched)');
      expect(reason('/files/logo.png')).toBe('not an HTML page (.png link, not fetched)');
      expect(reason('/api/data.json')).toBe('not an HTML page (.json link, not fetched)');
      expect(reason('/api/data')).toBe('not an HTML page (application/json)');
      expect(reason('/app')).toBe('no extractable text; the page needs JavaScript');
      expect(reason('/empty')).toBe('no extractable text');
      expect(reason('/missing')).toBe('HTTP 404');

      // Nothing fetched twice, nothing fetched that robots.txt or the extension rules out.
      const fetched = server.requests.filter((r) => r !== '/robots.txt');
      expect(new Set(fetched).size).toBe(fetched.length);
      expect(fetched).not.toContain('/private/secret');
      expect(fetched.some((r) => r.startsWith('/files/') || r === '/api/data.json')).toBe(false);
      expect(fetched.filter((r) => r.startsWith('/landing')).sort()).toEqual([
        '/landing',
        '/landing?a=1&b=2',
      ]);
      // Other origins are never fetched.
      expect(other.requests).toEqual([]);
      expect(result.documents.every((d) => d.source.startsWith(o))).toBe(true);
    }, 30_000);

    it('follows the start page to the origin it redirects to and crawls there', async () => {
      const alias = await startSiteServer({
        pages: new Map(),
        handle: (req, res) => {
          res.writeHead(301, { location: `${server.origin}${req.url ?? '/'}` });
          res.end();
          return true;
        },
      });
      try {
        const loader = new WebsiteCrawlerLoader({
          fetcher: new SafeFetcher({ allowPrivateHosts: [alias.host, server.host], retries: 0 }),
          maxPages: 3,
        });
        const docs: LoadedDocument[] = [];
        const context: LoadContext = { signal: new AbortController().signal, progress: () => undefined };
        for await (const doc of loader.load({ url: `${alias.origin}/landing` }, context)) docs.push(doc);
        expect(docs.length).toBeGreaterThan(0);
        expect(docs.every((d) => d.source.startsWith(server.origin))).toBe(true);
        expect(alias.requests.filter((r) => r !== '/robots.txt')).toEqual(['/landing']);
      } finally {
        await alias.close();
      }
    });

    it('requests the start URL with its trailing slash as given', async () => {
      const site = await startSiteServer({
        pages: new Map(),
        handle: (req, res) => {
          const found = req.url === '/prefix-start/';
          res.writeHead(found ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
          res.end(found ? page('Prefix start', text('the prefix')) : page('Not found', ''));
          return true;
        },
      });
      try {
        const result = await crawl(site, { path: '/prefix-start/' }, { maxPages: 3 });
        expect(site.requests).toContain('/prefix-start/');
        expect(site.requests).not.toContain('/prefix-start');
        expect(result.documents.map((d) => d.title)).toEqual(['Prefix start']);
        expect(result.documents[0]?.link).toBe(`${site.origin}/prefix-start/`);
      } finally {
        await site.close();
      }
    });

    it('fails the load with the start page error when nothing could be indexed', async () => {
      const loader = new WebsiteCrawlerLoader({ fetcher: fetcherFor(server) });
      const context: LoadContext = { signal: new AbortController().signal, progress: () => undefined };
      const run = async (path: string): Promise<void> => {
        for await (const _ of loader.load({ url: server.origin + path }, context)) void _;
      };
      await expect(run('/private/secret')).rejects.toMatchObject({ code: 'FETCH_REFUSED' });
      await expect(run('/app')).rejects.toMatchObject({ code: 'NO_CONTENT' });
    });
  });

  describe('validate', () => {
    const loader = new WebsiteCrawlerLoader({ fetcher: new SafeFetcher() });

    it('refuses what is not an http(s) URL and malformed path patterns', () => {
      expect(() => loader.validate({ url: 'ftp://example.com/' })).toThrow(/only http and https/);
      expect(() => loader.validate({ url: 'not a url' })).toThrow(/not a valid URL/);
      expect(() => loader.validate({ url: 'https://example.com', includePaths: ['docs/*'] })).toThrow(
        /includePaths/,
      );
      expect(() => loader.validate({ url: 'https://example.com', excludePaths: ['/blog/*'] })).not.toThrow();
    });
  });

  let contractServer: SiteServer | undefined;
  describeLoaderContract('WebsiteCrawlerLoader', {
    setup: async () => {
      contractServer = await startSiteServer({ pages: DOCS });
      const server = contractServer;
      return {
        loader: new WebsiteCrawlerLoader({ fetcher: fetcherFor(server), maxPages: 5 }),
        request: { url: `${server.origin}/` },
        // maxPages 5 on a larger site: the pages past the limit are reported skipped.
        skipping: { url: `${server.origin}/` },
        teardown: () => server.close(),
      };
    },
    invalidRequest: { url: 'file:///etc/passwd' },
  });
});

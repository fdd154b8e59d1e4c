import { afterEach, describe, expect, it } from '@jest/globals';
import { KbqaError, type LoadedDocument, type LoadProgress, type SkippedItem } from '@kbqa/core';
import { describeLoaderContract } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import { SitemapLoader, type SitemapLoaderOptions } from './sitemap.loader';
import { startSite, type TestSite } from '../test/site';

describeLoaderContract(SitemapLoader.name, {
  async setup() {
    const site = await startSite();
    const fetcher = new SafeFetcher({ allowPrivateHosts: [site.hostPort], retries: 0 });
    return {
      loader: new SitemapLoader({ fetcher }),
      request: { url: `${site.origin}/small.xml` },
      skipping: { url: `${site.origin}/sitemap.xml` },
      teardown: async () => {
        fetcher.close();
        await site.close();
      },
    };
  },
  invalidRequest: { url: 'file:///etc/sitemap.xml' },
});

describe(SitemapLoader.name, () => {
  let site: TestSite | undefined;
  let fetcher: SafeFetcher | undefined;
  afterEach(async () => {
    fetcher?.close();
    await site?.close();
    site = undefined;
    fetcher = undefined;
  });

  async function load(
    path: string,
    options: Omit<SitemapLoaderOptions, 'fetcher'> = {},
  ): Promise<{ documents: LoadedDocument[]; skipped: SkippedItem[]; progress: LoadProgress[] }> {
    site ??= await startSite();
    fetcher ??= new SafeFetcher({ allowPrivateHosts: [site.hostPort], retries: 0 });
    const loader = new SitemapLoader({ fetcher, ...options });
    const documents: LoadedDocument[] = [];
    const skipped: SkippedItem[] = [];
    const progress: LoadProgress[] = [];
    const context = {
      signal: new AbortController().signal,
      progress: (p: LoadProgress) => progress.push(p),
      skipped: (s: SkippedItem) => skipped.push(s),
    };
    for await (const doc of loader.load({ url: `${site.origin}${path}` }, context)) documents.push(doc);
    return { documents, skipped, progress };
  }

  async function failure(
    path: string,
    options: Omit<SitemapLoaderOptions, 'fetcher'> = {},
  ): Promise<KbqaError> {
    try {
      await load(path, options);
    } catch (error) {
      if (error instanceof KbqaError) return error;
      throw error;
    }
    throw new Error('expected the load to fail');
  }

  it('yields one document per HTML page and skips the rest with reasons', async () => {
    const { documents, skipped, progress } = await load('/sitemap.xml');
    const o = site!.origin;
    // A page is known by its canonical URL, as source and link alike.
    expect(documents.map((d) => d.source)).toEqual([`${o}/docs/a`, `${o}/docs/b`]);
    expect(documents[0]).toMatchObject({ title: 'Page A', link: `${o}/docs/a` });
    expect(documents[0]?.content).toContain('Alpha explains');
    expect(documents[1]?.link).toBe(`${o}/docs/b`);

    const reasons = new Map(skipped.map((s) => [s.url, s.reason]));
    expect(reasons.get(`${o}/docs/b`)).toContain('same page as');
    expect(reasons.get(`${o}/private/x`)).toContain('robots.txt');
    expect(reasons.get(`${o}/file.pdf`)).toContain('not an HTML page');
    expect(reasons.get(`${o}/app`)).toContain('may need JavaScript');
    expect(reasons.get('ftp://example.com/file')).toBe('not an http(s) URL');
    expect(progress.at(-1)).toMatchObject({ current: 6, total: 6 });
    // The total is known once the sitemap is read: it never grows page by page.
    expect(progress.filter((p) => p.total > 0).map((p) => p.total)).toEqual(
      Array(progress.filter((p) => p.total > 0).length).fill(6),
    );
  });

  it('loads every page below a sitemap index, gzipped sitemaps included', async () => {
    const { documents, skipped } = await load('/index.xml', { pageConcurrency: 2 });
    expect(documents.map((d) => new URL(d.source).pathname).sort()).toEqual([
      '/docs/a',
      '/docs/b',
      '/docs/c',
    ]);
    expect(skipped.filter((s) => s.reason.includes('another host'))).toHaveLength(2);
    expect(site!.hits.get('/foreign.xml')).toBeUndefined();
  });

  it('skips a sitemap bomb below an index and loads the other sitemaps', async () => {
    const { documents, skipped } = await load('/bomb-index.xml', { maxFileBytes: 1024 * 1024 });
    expect(documents).toHaveLength(2);
    expect(skipped.some((s) => s.url.endsWith('/bomb.xml.gz') && s.reason.includes('larger than'))).toBe(
      true,
    );
  });

  it('fails with TOO_LARGE when the sitemap itself is a bomb', async () => {
    expect((await failure('/bomb.xml.gz', { maxFileBytes: 1024 * 1024 })).code).toBe('TOO_LARGE');
  });

  it('fails with NO_CONTENT when no page has content', async () => {
    const error = await failure('/js-only.xml');
    expect(error.code).toBe('NO_CONTENT');
    expect((await failure('/empty.xml')).message).toContain('lists no pages');
  });

  it('loads nothing past 10 levels of sitemap nesting', async () => {
    const error = await failure('/deep/0.xml');
    expect(error.code).toBe('NO_CONTENT');
    expect(site!.hits.get('/deep/11.xml')).toBeUndefined();
  });

  it('passes the URL cap to the sitemap reader', async () => {
    const { documents } = await load('/sitemap.xml', { maxUrls: 1 });
    expect(documents).toHaveLength(1);
  });

  it('stops when the task is cancelled mid-load', async () => {
    site = await startSite();
    fetcher = new SafeFetcher({ allowPrivateHosts: [site.hostPort], retries: 0 });
    const loader = new SitemapLoader({ fetcher, pageConcurrency: 1 });
    const controller = new AbortController();
    const context = { signal: controller.signal, progress: () => undefined };
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const doc of loader.load({ url: `${site!.origin}/index.xml` }, context)) {
        seen.push(doc.source);
        controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toHaveLength(1);
  });

  it.each(['ftp://example.com/sitemap.xml', 'not a url', 'https://user:pw@example.com/sitemap.xml'])(
    'refuses %s in validate() with BAD_REQUEST',
    (url) => {
      const loader = new SitemapLoader({ fetcher: new SafeFetcher() });
      let thrown: unknown;
      try {
        loader.validate({ url });
      } catch (error) {
        thrown = error;
      }
      expect((thrown as KbqaError).code).toBe('BAD_REQUEST');
    },
  );
});

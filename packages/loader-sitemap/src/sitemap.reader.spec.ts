import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KbqaError, type SkippedItem } from '@kbqa/core';
import { SafeFetcher } from '@kbqa/fetcher';
import {
  decodeXmlText,
  looksLikeSitemap,
  parseSitemap,
  readSitemap,
  type SitemapLimits,
} from './sitemap.reader';
import { startSite, type TestSite } from '../test/site';

let site: TestSite;
let fetcher: SafeFetcher;

beforeAll(async () => {
  site = await startSite();
  fetcher = new SafeFetcher({ allowPrivateHosts: [site.hostPort], retries: 0 });
});

afterAll(async () => {
  fetcher.close();
  await site.close();
});

async function read(
  path: string,
  limits: SitemapLimits = {},
): Promise<{ urls: string[]; skipped: SkippedItem[] }> {
  const skipped: SkippedItem[] = [];
  const urls: string[] = [];
  for await (const url of readSitemap(`${site.origin}${path}`, fetcher, {
    ...limits,
    onSkipped: (s) => skipped.push(s),
  })) {
    urls.push(url);
  }
  return { urls, skipped };
}

async function failure(path: string, limits: SitemapLimits = {}): Promise<KbqaError> {
  try {
    await read(path, limits);
  } catch (error) {
    if (error instanceof KbqaError) return error;
    throw error;
  }
  throw new Error('expected the read to fail');
}

describe('readSitemap', () => {
  it('yields the page URLs of a urlset once each, decoding XML entities', async () => {
    const { urls, skipped } = await read('/sitemap.xml');
    const o = site.origin;
    expect(urls).toEqual([
      `${o}/docs/a`,
      `${o}/docs/b?ref=sitemap&x=1`,
      `${o}/docs/b`,
      `${o}/private/x`,
      `${o}/file.pdf`,
      `${o}/app`,
    ]);
    expect(skipped).toEqual([
      { url: 'ftp://example.com/file', code: 'INVALID_URL', reason: 'not an http(s) URL' },
    ]);
  });

  it('reads a sitemap index with a gzipped sitemap, ignoring foreign hosts, loops and broken entries', async () => {
    site.hits.clear();
    const { urls, skipped } = await read('/index.xml');
    expect(urls).toContain(`${site.origin}/docs/a`);
    expect(urls).toContain(`${site.origin}/docs/c`);
    const reasons = skipped.map((s) => s.reason).join('\n');
    expect(reasons).toContain('another host');
    expect(reasons).toContain('loop');
    expect(reasons).toContain('HTTP 404');
    expect(skipped.filter((s) => s.reason.includes('another host'))).toHaveLength(2);
    expect(site.hits.get('/foreign.xml')).toBeUndefined();
    expect(site.hits.get('/index.xml')).toBe(1);
  });

  it('detects a loop between two sitemap indexes', async () => {
    site.hits.clear();
    const { urls, skipped } = await read('/loop-a.xml');
    expect(urls).toEqual([`${site.origin}/docs/a`, `${site.origin}/docs/b`]);
    expect(skipped.some((s) => s.reason.includes('loop'))).toBe(true);
    expect(site.hits.get('/loop-a.xml')).toBe(1);
    expect(site.hits.get('/loop-b.xml')).toBe(1);
  });

  it('stops at 10 levels of nesting', async () => {
    const tooDeep = await read('/deep/0.xml');
    expect(tooDeep.urls).toEqual([]);
    expect(tooDeep.skipped).toEqual([
      { url: `${site.origin}/deep/11.xml`, code: 'LIMIT', reason: 'sitemap nested more than 10 levels deep' },
    ]);
    const deepest = await read('/deep/1.xml');
    expect(deepest.urls).toEqual([`${site.origin}/docs/a`]);
  });

  it('fails a gzipped sitemap bomb with TOO_LARGE without inflating it all', async () => {
    const error = await failure('/bomb.xml.gz', { maxFileBytes: 1024 * 1024 });
    expect(error.code).toBe('TOO_LARGE');
    const encoded = await failure('/bomb-encoded.xml', { maxFileBytes: 1024 * 1024 });
    expect(encoded.code).toBe('TOO_LARGE');
  });

  it('skips a nested sitemap bomb and keeps reading the others', async () => {
    const { urls, skipped } = await read('/bomb-index.xml', { maxFileBytes: 1024 * 1024 });
    expect(urls).toEqual([`${site.origin}/docs/a`, `${site.origin}/docs/b`]);
    expect(skipped[0]?.url).toBe(`${site.origin}/bomb.xml.gz`);
  });

  it('does not expand entities declared in a DOCTYPE', async () => {
    const { urls } = await read('/entities.xml');
    expect(urls).toEqual([`${site.origin}/docs/a?q=&lol3;`, `${site.origin}/docs/b?x=1&y=2`]);
  });

  it('caps the number of URLs', async () => {
    const { urls, skipped } = await read('/sitemap.xml', { maxUrls: 2 });
    expect(urls).toHaveLength(2);
    expect(skipped.some((s) => s.reason.includes('URL cap of 2'))).toBe(true);
  });

  it('caps the bytes of all sitemap files together', async () => {
    site.hits.clear();
    // loop-a.xml fits; loop-b.xml gets only what is left of the budget and is too large for it.
    const { urls, skipped } = await read('/loop-a.xml', { maxTotalBytes: 300 });
    expect(urls).toEqual([]);
    expect(skipped).toEqual([
      { url: `${site.origin}/loop-b.xml`, code: 'TOO_LARGE', reason: expect.stringContaining('larger than') },
    ]);
    expect(site.hits.get('/small.xml')).toBeUndefined();
  });

  it('reads a text sitemap', async () => {
    const { urls } = await read('/text.txt');
    expect(urls).toEqual([`${site.origin}/docs/a`, `${site.origin}/docs/c`]);
  });

  it('fails when the first file is missing or not a sitemap', async () => {
    expect((await failure('/missing.xml')).code).toBe('FETCH_FAILED');
    expect((await failure('/page.html')).code).toBe('UNSUPPORTED');
  });

  it('refuses a private sitemap host that is not allowlisted', async () => {
    const other = new SafeFetcher({ retries: 0 });
    try {
      const pages = readSitemap(`${site.origin}/small.xml`, other);
      await expect(pages.next()).rejects.toMatchObject({ code: 'FETCH_REFUSED' });
    } finally {
      other.close();
    }
  });
});

describe('parseSitemap', () => {
  it('tells a sitemap index from a urlset', () => {
    expect(
      parseSitemap('<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>', 'x'),
    ).toEqual({ kind: 'index', locations: ['https://a.example/s.xml'] });
    expect(parseSitemap('\uFEFF<urlset><url><loc> https://a.example/p </loc></url></urlset>', 'x')).toEqual({
      kind: 'urlset',
      locations: ['https://a.example/p'],
      lastmods: new Map(),
    });
    expect(
      parseSitemap(
        '<urlset><url><loc>https://a.example/p</loc><lastmod>2026-11-01</lastmod></url><url><loc>https://a.example/q</loc></url></urlset>',
        'x',
      ).lastmods,
    ).toEqual(new Map([['https://a.example/p', '2026-11-01']]));
  });

  it('decodes only predefined entities and character references', () => {
    expect(decodeXmlText('a&amp;b&lt;&#x41;&#66;&custom;')).toBe('a&b<AB&custom;');
  });
});

describe('looksLikeSitemap', () => {
  it('tells sitemaps (namespaced or not) from HTML app shells', () => {
    expect(
      looksLikeSitemap('<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'),
    ).toBe(true);
    expect(looksLikeSitemap('<sm:sitemapindex>')).toBe(true);
    expect(looksLikeSitemap('<!doctype html><html><body><div id="__docusaurus"></div></body></html>')).toBe(
      false,
    );
  });
});

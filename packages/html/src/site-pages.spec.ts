import { describe, expect, it } from '@jest/globals';
import type { FetchOptions, FetchResponse, WebFetcher } from '@kbqa/core';
import type { ExtractedPage } from './extract';
import {
  emptyPageReason,
  fetchSitePage,
  SeenContent,
  SitePageIndex,
  siteLoaderSettings,
  usableCanonical,
} from './site-pages';

function fakeFetcher(allowed: boolean, calls: Array<{ url: string; options?: FetchOptions }>): WebFetcher {
  return {
    isAllowedByRobots: () => Promise.resolve(allowed),
    fetch: (url: string, options?: FetchOptions) => {
      calls.push({ url, options });
      return Promise.resolve({ url, status: 200 } as FetchResponse);
    },
  } as unknown as WebFetcher;
}

describe(fetchSitePage.name, () => {
  it('asks robots.txt first and refuses with FETCH_REFUSED without fetching', async () => {
    const calls: Array<{ url: string }> = [];
    await expect(
      fetchSitePage(fakeFetcher(false, calls), 'https://docs.test/private', new AbortController().signal),
    ).rejects.toMatchObject({ code: 'FETCH_REFUSED', message: expect.stringContaining('robots.txt') });
    expect(calls).toEqual([]);
  });

  it('fetches allowed pages preferring HTML, with the size cap when given', async () => {
    const calls: Array<{ url: string; options?: FetchOptions }> = [];
    const fetcher = fakeFetcher(true, calls);
    await fetchSitePage(fetcher, 'https://docs.test/a', new AbortController().signal, 1234);
    await fetchSitePage(fetcher, 'https://docs.test/b', new AbortController().signal);
    expect(calls[0]!.options).toMatchObject({ accept: expect.stringContaining('text/html'), maxBytes: 1234 });
    expect(calls[1]!.options).not.toHaveProperty('maxBytes');
  });
});

describe(emptyPageReason.name, () => {
  it('tells JavaScript shells and empty pages from pages with text', () => {
    expect(emptyPageReason({ needsJavaScript: true, textLength: 3, markdown: 'abc' })).toContain(
      'JavaScript',
    );
    expect(emptyPageReason({ needsJavaScript: false, textLength: 0, markdown: '  ' })).toBe(
      'no extractable text',
    );
    expect(emptyPageReason({ needsJavaScript: false, textLength: 5, markdown: 'Hello' })).toBeUndefined();
  });
});

describe(SeenContent.name, () => {
  it('returns the first URL that had the same text, and records new texts', () => {
    const seen = new SeenContent();
    expect(seen.claim('# Page\n\nText', 'https://a.test/1')).toBeUndefined();
    expect(seen.claim('# Other', 'https://a.test/2')).toBeUndefined();
    expect(seen.claim('# Page\n\nText', 'https://a.test/copy')).toBe('https://a.test/1');
  });
});

describe(siteLoaderSettings.name, () => {
  const fetcher = fakeFetcher(true, []);
  // A Docusaurus article followed by a feedback block inside <main>: Docusaurus extraction keeps
  // only the article, the generic one all of <main>.
  const html =
    '<html><body><main><div class="theme-doc-markdown markdown"><h1>Install</h1><p>' +
    'Run the installer to set everything up on your machine, then start it. '.repeat(4) +
    '</p></div><section><h2>Feedback</h2><p>Tell us on the forum whether this page helped you.</p></section>' +
    '</main></body></html>';

  it("applies the loader's page limit and concurrency defaults and refuses limits below one", () => {
    expect(siteLoaderSettings({ fetcher }, 1000)).toMatchObject({ maxPages: 1000, concurrency: 8 });
    expect(siteLoaderSettings({ fetcher, maxPages: 12.7, concurrency: 3 }, 1000)).toMatchObject({
      maxPages: 12,
      concurrency: 3,
    });
    expect(() => siteLoaderSettings({ fetcher, maxPages: 0 }, 1000)).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    expect(() => siteLoaderSettings({ fetcher, concurrency: Number.NaN }, 1000)).toThrow(/positive number/);
  });

  it("sets the loader's forced extraction options over the caller's", () => {
    const forced = siteLoaderSettings({ fetcher, extractOptions: { docusaurus: false } }, 10, {
      docusaurus: true,
    });
    const plain = siteLoaderSettings({ fetcher, extractOptions: { docusaurus: false } }, 10);
    expect(forced.extract(html, 'https://docs.test/install').markdown).not.toContain('Feedback');
    expect(forced.extract(html, 'https://docs.test/install').markdown).toContain('Run the installer');
    expect(plain.extract(html, 'https://docs.test/install').markdown).toContain('Feedback');
  });

  it('uses a given extraction instead of the default one', () => {
    const extract = () => ({ markdown: 'custom', title: 't', links: [], textLength: 6 }) as never;
    expect(siteLoaderSettings({ fetcher, extract }, 10).extract(html, 'https://docs.test/')).toMatchObject({
      markdown: 'custom',
    });
  });
});

describe(usableCanonical.name, () => {
  it('normalizes the canonical URL and ignores one naming the site root for another page', () => {
    expect(usableCanonical('https://docs.test/guide/#top', 'https://docs.test/guide?x=1')).toBe(
      'https://docs.test/guide',
    );
    expect(usableCanonical('https://docs.test/', 'https://docs.test/guide')).toBeUndefined();
    expect(usableCanonical('https://docs.test/', 'https://docs.test/')).toBe('https://docs.test/');
    expect(usableCanonical(undefined, 'https://docs.test/guide')).toBeUndefined();
  });
});

describe(SitePageIndex.name, () => {
  const origin = 'https://docs.test';
  const page = (markdown: string, canonicalUrl?: string): ExtractedPage => ({
    title: 'T',
    markdown,
    canonicalUrl,
    links: [],
    textLength: markdown.length,
    needsJavaScript: false,
  });

  it('indexes a page once under its canonical URL, which is its source and its link alike', () => {
    const pages = new SitePageIndex();
    const first = pages.accept(page('# Intro', `${origin}/intro`), `${origin}/intro-print`, origin);
    expect(first).toEqual({
      document: { source: `${origin}/intro`, content: '# Intro', title: 'T', link: `${origin}/intro` },
    });
    expect(pages.accept(page('# Intro, printable', `${origin}/intro`), `${origin}/intro`, origin)).toEqual({
      skipped: `duplicate of ${origin}/intro`,
      code: 'DUPLICATE',
    });
    expect(pages.accept(page('# Other'), `${origin}/intro-print`, origin)).toEqual({
      skipped: `duplicate of ${origin}/intro-print`,
      code: 'DUPLICATE',
    });
  });

  it('does not make every page a duplicate of the home page when they all name it canonical', () => {
    const pages = new SitePageIndex();
    for (const path of ['/a', '/b', '/c']) {
      const outcome = pages.accept(page(`# Page ${path}`, `${origin}/`), `${origin}${path}`, origin);
      expect(outcome).toHaveProperty('document.link', `${origin}${path}`);
    }
  });

  it('keys, sources and links a page by its own URL when the canonical is on another origin', () => {
    const pages = new SitePageIndex();
    const mirror = pages.accept(page('# A', 'https://main.test/a'), `${origin}/a`, origin);
    expect(mirror).toHaveProperty('document.link', `${origin}/a`);
    expect(mirror).toHaveProperty('document.source', `${origin}/a`);
    expect(pages.accept(page('# B', 'https://main.test/a'), `${origin}/b`, origin)).toHaveProperty(
      'document.source',
      `${origin}/b`,
    );
  });

  it('passes over empty pages and pages with the text of an indexed one', () => {
    const pages = new SitePageIndex();
    expect(pages.accept(page('  '), `${origin}/empty`, origin)).toEqual({
      skipped: 'no extractable text',
      code: 'NO_CONTENT',
    });
    pages.accept(page('# Same'), `${origin}/one`, origin);
    expect(pages.accept(page('# Same'), `${origin}/two`, origin)).toEqual({
      skipped: `same content as ${origin}/one`,
      code: 'DUPLICATE',
    });
  });
});

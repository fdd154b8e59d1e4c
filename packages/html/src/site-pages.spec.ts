import { describe, expect, it } from '@jest/globals';
import type { FetchOptions, FetchResponse, WebFetcher } from '@kbqa/core';
import { emptyPageReason, fetchSitePage, SeenContent } from './site-pages';

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

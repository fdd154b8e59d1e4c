import { createHash } from 'node:crypto';
import { KbqaError, type FetchResponse, type WebFetcher } from '@kbqa/core';
import type { ExtractedPage } from './extract';
import { HTML_ACCEPT } from './page-document';

/**
 * Fetches one page of a site the way every site loader must: robots.txt first (a refusal is a
 * FETCH_REFUSED error), HTML preferred, an optional size cap. Errors are the fetcher's
 * KbqaErrors; the caller decides whether a failed page is skipped or fatal.
 */
export async function fetchSitePage(
  fetcher: WebFetcher,
  url: string,
  signal: AbortSignal,
  maxBytes?: number,
): Promise<FetchResponse> {
  if (!(await fetcher.isAllowedByRobots(url, signal))) {
    throw new KbqaError('FETCH_REFUSED', `disallowed by robots.txt: ${url}`);
  }
  return fetcher.fetch(url, { signal, accept: HTML_ACCEPT, ...(maxBytes !== undefined ? { maxBytes } : {}) });
}

/** Why an extracted page has nothing worth indexing, or undefined when it has. */
export function emptyPageReason(
  page: Pick<ExtractedPage, 'needsJavaScript' | 'textLength' | 'markdown'>,
): string | undefined {
  if (page.needsJavaScript) return 'no extractable text; the page needs JavaScript';
  if (page.textLength === 0 || !page.markdown.trim()) return 'no extractable text';
  return undefined;
}

/** Remembers the pages' texts of one load, so that the same text under two URLs is indexed once. */
export class SeenContent {
  private readonly firstUrl = new Map<string, string>();

  /** The URL that already had this text, or undefined after recording `url` as its first. */
  claim(markdown: string, url: string): string | undefined {
    const digest = createHash('sha1').update(markdown).digest('hex');
    const earlier = this.firstUrl.get(digest);
    if (earlier === undefined) this.firstUrl.set(digest, url);
    return earlier;
  }
}

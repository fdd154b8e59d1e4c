import { createHash } from 'node:crypto';
import {
  KbqaError,
  type FetchResponse,
  type LoadedDocument,
  type PageVersion,
  type SkipCode,
  type WebFetcher,
  stampVersion,
  versionHintMetadata,
} from '@kbqa/core';
import { extractContent, type ExtractedPage, type ExtractOptions } from './extract';
import { HTML_ACCEPT } from './page-document';
import { normalizeUrl } from './url-rules';

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
  known?: PageVersion,
): Promise<FetchResponse> {
  if (!(await fetcher.isAllowedByRobots(url, signal))) {
    throw new KbqaError('FETCH_REFUSED', `disallowed by robots.txt: ${url}`);
  }
  const headers = conditionalHeaders(known);
  return fetcher.fetch(url, {
    signal,
    accept: HTML_ACCEPT,
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    ...(headers ? { headers } : {}),
  });
}

/**
 * The headers of a conditional request for a page fetched before (`If-None-Match` from its
 * ETag, `If-Modified-Since` from its Last-Modified): an unchanged page then answers 304 without
 * a body. Undefined when nothing is known.
 */
export function conditionalHeaders(known: PageVersion | undefined): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (known?.etag) headers['if-none-match'] = known.etag;
  if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/** What a later sync of a fetched page compares against: its validators and where it came from. */
export function responseVersion(res: FetchResponse, source: string, links?: string[]): PageVersion {
  const version: PageVersion = {};
  if (res.url !== source) version.url = res.url;
  if (res.headers['etag']) version.etag = res.headers['etag'];
  if (res.headers['last-modified']) version.lastModified = res.headers['last-modified'];
  version.bodyHash = bodyHash(res);
  if (links) version.links = links;
  return version;
}

function bodyHash(res: FetchResponse): string {
  return createHash('sha256').update(res.body).digest('hex');
}

/**
 * Whether a page fetched during a sync is the one the index holds: a 304 to the conditional
 * request, or a 200 with the very bytes fetched last time (servers without validators). Either
 * way it is kept without extracting, chunking or embedding it again.
 */
export function isUnchanged(res: FetchResponse, known: PageVersion | undefined): boolean {
  if (!known) return false;
  if (res.status === 304) return true;
  return res.status === 200 && known.bodyHash !== undefined && known.bodyHash === bodyHash(res);
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

/**
 * The normalized canonical URL of a page, unless it names the site root for a page that is not (a
 * common misconfiguration that would make every page a duplicate of the home page).
 */
export function usableCanonical(canonicalUrl: string | undefined, pageUrl: string): string | undefined {
  const canonical = normalizeUrl(canonicalUrl ?? '');
  if (!canonical) return undefined;
  const target = new URL(canonical);
  if (target.pathname === '/' && !target.search && new URL(pageUrl).pathname !== '/') return undefined;
  return canonical;
}

/**
 * The URL a page is known by within a site load: its usable canonical URL when that is on the
 * site's origin, else the URL it was fetched from.
 */
export function sitePageKey(canonical: string | undefined, pageUrl: string, origin: string): string {
  return canonical && new URL(canonical).origin === origin ? canonical : pageUrl;
}

/** A page a site load indexes, or the reason it does not. */
export type SitePageOutcome = { document: LoadedDocument } | { skipped: string; code: SkipCode };

/**
 * The pages one site load has indexed, and the rule every site loader indexes a page by: a page
 * is keyed by its usable canonical URL when that is on the site's origin (else by its final URL),
 * and passed over when it duplicates an indexed page by key or final URL, has no text, or has the
 * same text as one. The key is both the document's source and its link: the link a chat cites
 * is then exactly a source that getSources lists and deleteSource accepts.
 */
export class SitePageIndex {
  private readonly indexed = new Set<string>();
  private readonly contents = new SeenContent();

  /** `versionPattern`: the index's `version_pattern`, so copies of a page per version are kept. */
  constructor(private readonly versionPattern?: RegExp) {}

  /**
   * Records a page a sync found unchanged (a 304) under its source and the URL it was fetched
   * from, so that another URL of it is still a duplicate.
   */
  keep(source: string, pageUrl: string): void {
    this.indexed.add(source);
    this.indexed.add(pageUrl);
  }

  /**
   * Indexes `page` (fetched from `pageUrl` after redirects, on `origin`) or says why not; `res`
   * gives the document its version (validators and links) for the next sync.
   */
  accept(page: ExtractedPage, pageUrl: string, origin: string, res?: FetchResponse): SitePageOutcome {
    const hints = page.versionHints ?? {};
    const stamp = stampVersion(pageUrl, hints, { pattern: this.versionPattern });
    // A version's copy of a page is its own page: Read the Docs points every version's canonical
    // URL at the default version, and unchanged pages have the same text in every version.
    const canonical = stamp ? undefined : usableCanonical(page.canonicalUrl, pageUrl);
    const key = sitePageKey(canonical, pageUrl, origin);
    if (this.indexed.has(key) || this.indexed.has(pageUrl))
      return { skipped: `duplicate of ${key}`, code: 'DUPLICATE' };
    const empty = emptyPageReason(page);
    if (empty) return { skipped: empty, code: 'NO_CONTENT' };
    const same = this.contents.claim(
      stamp ? `${stamp.version}\u0000${page.markdown}` : page.markdown,
      pageUrl,
    );
    if (same) return { skipped: `same content as ${same}`, code: 'DUPLICATE' };
    this.indexed.add(key);
    this.indexed.add(pageUrl);
    return {
      document: {
        source: key,
        content: page.markdown,
        title: page.title || new URL(pageUrl).pathname,
        link: key,
        ...(res ? { version: responseVersion(res, key, page.links) } : {}),
        ...(page.versionHints ? { metadata: versionHintMetadata(page.versionHints) } : {}),
      },
    };
  }
}

/** Replaces a site loader's HTML extraction (tests, other converters). */
export type SiteExtractFn = (html: string, url: string) => ExtractedPage;

/** What every site loader (website crawler, Docusaurus) is configured with. */
export interface SiteLoaderOptions {
  /** The API passes @kbqa/fetcher's SafeFetcher; address policy, redirects and robots.txt apply through it. */
  fetcher: WebFetcher;
  /** Pages fetched at most; each loader has its own default. */
  maxPages?: number;
  /** Pages fetched at once; the fetcher may limit requests per host further. Default 8. */
  concurrency?: number;
  /** Body cap of each page in bytes (after decompression); the fetcher's default when unset. */
  maxPageBytes?: number;
  /** Options of the default extraction (@kbqa/html's `extractContent`). */
  extractOptions?: ExtractOptions;
  /** Replaces the extraction. */
  extract?: SiteExtractFn;
}

/** {@link SiteLoaderOptions} checked, with the loader's defaults applied. */
export interface SiteLoaderSettings {
  fetcher: WebFetcher;
  maxPages: number;
  concurrency: number;
  maxPageBytes: number | undefined;
  extract: SiteExtractFn;
}

/**
 * Settings of a site loader: `maxPages` falls back to the loader's default, `forcedExtractOptions`
 * are set over the caller's extraction options (Docusaurus always extracts its article). A limit
 * that is not a positive number is a BAD_REQUEST.
 */
export function siteLoaderSettings(
  options: SiteLoaderOptions,
  defaultMaxPages: number,
  forcedExtractOptions: ExtractOptions = {},
): SiteLoaderSettings {
  const extractOptions: ExtractOptions = { ...options.extractOptions, ...forcedExtractOptions };
  return {
    fetcher: options.fetcher,
    maxPages: positiveInt(options.maxPages, defaultMaxPages),
    concurrency: positiveInt(options.concurrency, 8),
    maxPageBytes: options.maxPageBytes,
    extract: options.extract ?? ((html, url) => extractContent(html, url, extractOptions)),
  };
}

function positiveInt(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1)
    throw new KbqaError('BAD_REQUEST', `expected a positive number, got ${value}`);
  return Math.floor(value);
}

import {
  KbqaError,
  parseVersionPattern,
  skipCodeOf,
  type FetchResponse,
  type KnownSource,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SkippedItem,
  type SourceLoader,
  abortedError,
} from '@kbqa/core';
import {
  decodeHtml,
  fetchSitePage,
  isUnchanged,
  nonHtmlExtension,
  normalizeUrl,
  pageProblem,
  pathMatcher,
  reportUnmatchedPaths,
  SitePageIndex,
  siteLoaderSettings,
  type SiteExtractFn,
  type SiteLoaderOptions,
  type SiteLoaderSettings,
  validateSiteRequest,
  type ExtractedPage,
} from '@kbqa/html';
import { looksLikeSitemap, readSitemap, type SitemapLimits } from '@kbqa/loader-sitemap';

export type DocusaurusExtractFn = SiteExtractFn;

/** `maxPages` defaults to 5,000; `extractOptions.docusaurus` is always set. */
export interface DocusaurusLoaderOptions extends SiteLoaderOptions {
  /** Limits of the sitemap read (nested sitemaps, bytes). */
  sitemap?: Omit<SitemapLimits, 'onSkipped' | 'maxUrls'>;
}

/** Path segments of Docusaurus pages that are not documentation. */
const NON_DOC_SEGMENTS = ['blog', 'tags', 'search'];
/** Parent directories tried for `sitemap.xml`, from the given URL's directory up to the root. */
const MAX_SITEMAP_PARENTS = 4;

/**
 * Ingests a Docusaurus site through its sitemap: finds it (the given URL if it is one, else
 * `sitemap.xml` in the URL's directory and each parent up to the origin root, then the
 * `Sitemap:` lines of robots.txt), keeps the listed pages of the same origin under the
 * sitemap's directory, leaves out blog, tag and search pages unless the given URL is under
 * them, applies `includePaths` / `excludePaths`, and yields the Docusaurus article of each
 * page as markdown. Pages passed over are reported through `context.skipped` with the reason.
 */
export class DocusaurusLoader implements SourceLoader {
  readonly type = 'docusaurus' as const;
  private readonly site: SiteLoaderSettings;
  private readonly sitemapLimits: Omit<SitemapLimits, 'onSkipped' | 'maxUrls'>;

  constructor(options: DocusaurusLoaderOptions) {
    this.site = siteLoaderSettings(options, 5000, { docusaurus: true });
    this.sitemapLimits = options.sitemap ?? {};
  }

  validate(request: LoadRequest): void {
    validateSiteRequest(request, 'loaded');
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    this.validate(request);
    const { signal } = context;
    if (signal.aborted) throw abortedError();
    const skip = (item: SkippedItem): void => context.skipped?.(item);
    const given = new URL(normalizeUrl(request.url)!);

    const { url: sitemapUrl, base } = await this.findSitemap(given, signal);
    const pages = await this.pagesOf(sitemapUrl, base, given, request, context, signal);
    context.progress({ step: 'SCRAPING', current: 0, total: pages.length, message: `sitemap ${sitemapUrl}` });

    const indexed = new SitePageIndex(
      request.versionPattern ? parseVersionPattern(request.versionPattern) : undefined,
    );
    let done = 0;
    let yielded = 0;
    let kept = 0;
    let closed = false;
    const load = async (url: string): Promise<LoadedDocument | undefined> => {
      try {
        const known = context.known?.(url);
        const outcome = await this.page(url, indexed, skip, signal, known);
        if (outcome !== 'unchanged') return outcome;
        kept += 1;
        if (known) context.unchanged?.(known.source);
        return undefined;
      } finally {
        done += 1;
        // A consumer that stopped early hears nothing from pages still in flight.
        if (!closed) context.progress({ step: 'SCRAPING', current: done, total: pages.length, message: url });
      }
    };
    try {
      for await (const doc of pool(pages, this.site.concurrency, load, signal)) {
        if (!doc) continue;
        yielded += 1;
        yield doc;
      }
    } finally {
      closed = true;
    }
    if (yielded === 0 && kept === 0) {
      throw new KbqaError(
        'NO_CONTENT',
        `none of the ${pages.length} pages of ${sitemapUrl} had extractable text`,
      );
    }
  }

  /**
   * The first candidate that answers with a sitemap, and the path the site lives under: the
   * directory of a `sitemap.xml` found by walking up, `/` for one named by robots.txt or given.
   */
  private async findSitemap(given: URL, signal: AbortSignal): Promise<{ url: string; base: string }> {
    const candidates: string[] = [];
    if (/\.xml(\.gz)?$/i.test(given.pathname)) candidates.push(given.href);
    let dir = given.pathname.endsWith('/') ? given.pathname : given.pathname.replace(/[^/]*$/, '');
    if (!/\.xml(\.gz)?$/i.test(given.pathname) && !given.pathname.endsWith('/')) {
      candidates.push(`${given.origin}${given.pathname}/sitemap.xml`);
    }
    for (let i = 0; i < MAX_SITEMAP_PARENTS && dir.length > 0; i++) {
      candidates.push(`${given.origin}${dir}sitemap.xml`);
      if (dir === '/') break;
      dir = dir.replace(/[^/]*\/$/, '');
    }
    if (!candidates.includes(`${given.origin}/sitemap.xml`)) candidates.push(`${given.origin}/sitemap.xml`);

    for (const candidate of candidates) {
      if (!(await this.isSitemap(candidate, signal))) continue;
      const named = candidate === given.href;
      return { url: candidate, base: named ? '/' : new URL(candidate).pathname.replace(/[^/]*$/, '') };
    }
    const robots = await this.robotsSitemaps(given.origin, signal);
    for (const candidate of robots.sitemaps) {
      if (await this.isSitemap(candidate, signal)) return { url: candidate, base: '/' };
    }
    const robotsNote = robots.problem
      ? `robots.txt, which could not be read: ${robots.problem}`
      : 'robots.txt';
    throw new KbqaError(
      'NOT_FOUND',
      `no sitemap found for ${given.href} (tried ${candidates.join(', ')} and ${robotsNote}); is it a Docusaurus site?`,
    );
  }

  private async isSitemap(url: string, signal: AbortSignal): Promise<boolean> {
    try {
      const res = await this.site.fetcher.fetch(url, {
        signal,
        ignoreRobots: true,
        accept: 'application/xml,text/xml;q=0.9,*/*;q=0.1',
        maxBytes: this.sitemapLimits.maxFileBytes ?? 10 * 1024 * 1024,
      });
      if (res.status < 200 || res.status >= 300) return false;
      // Hosts that answer every path with the app's index.html must not count as a sitemap.
      return (
        (res.body[0] === 0x1f && res.body[1] === 0x8b) || looksLikeSitemap(res.body.toString('utf8', 0, 4096))
      );
    } catch (error) {
      if (signal.aborted) throw abortedError();
      const err = KbqaError.from(error);
      if (err.code === 'FETCH_REFUSED' && !/robots/i.test(err.message)) throw err;
      return false;
    }
  }

  /**
   * The sitemaps robots.txt names. Only a 4xx means there is no robots.txt; a 5xx, a timeout or
   * a failed connection is a problem worth saying when no sitemap is found at all.
   */
  private async robotsSitemaps(
    origin: string,
    signal: AbortSignal,
  ): Promise<{ sitemaps: string[]; problem?: string }> {
    try {
      const res = await this.site.fetcher.fetch(`${origin}/robots.txt`, {
        signal,
        ignoreRobots: true,
        accept: 'text/plain',
        maxBytes: 512 * 1024,
      });
      if (res.status >= 400 && res.status < 500 && res.status !== 429) return { sitemaps: [] };
      if (res.status < 200 || res.status >= 300) return { sitemaps: [], problem: `HTTP ${res.status}` };
      const sitemaps = [...res.body.toString('utf8').matchAll(/^\s*sitemap\s*:\s*(\S+)/gim)]
        .map((m) => normalizeUrl(m[1] ?? '', origin))
        .filter((u): u is string => u !== undefined && new URL(u).origin === origin);
      return { sitemaps };
    } catch (error) {
      if (signal.aborted) throw abortedError();
      const err = KbqaError.from(error);
      if (err.code === 'FETCH_REFUSED') throw err;
      return { sitemaps: [], problem: `${err.code}: ${err.message}` };
    }
  }

  /**
   * The sitemap's page URLs this request covers, normalized and de-duplicated; include and exclude
   * patterns that matched none of its URLs are reported to the context.
   */
  private async pagesOf(
    sitemapUrl: string,
    base: string,
    given: URL,
    request: LoadRequest,
    context: LoadContext,
    signal: AbortSignal,
  ): Promise<string[]> {
    const skip = (item: SkippedItem): void => context.skipped?.(item);
    const origin = given.origin;
    const givenRelative = given.pathname.startsWith(base) ? given.pathname.slice(base.length) : '';
    // Blog, tags and search are left out unless the given URL is under one of them.
    const allowed = new Set(NON_DOC_SEGMENTS.filter((s) => new RegExp(`(^|/)${s}(/|$)`).test(givenRelative)));
    const excludedSegment = (relative: string): string | undefined =>
      NON_DOC_SEGMENTS.find((s) => !allowed.has(s) && new RegExp(`(^|/)${s}(/|$)`).test(relative));
    const include = pathMatcher(request.includePaths, 'includePaths');
    const exclude = pathMatcher(request.excludePaths, 'excludePaths');

    const pages: string[] = [];
    const seen = new Set<string>();
    const limits: SitemapLimits = {
      ...this.sitemapLimits,
      onSkipped: skip,
      maxUrls: Number.MAX_SAFE_INTEGER,
    };
    for await (const loc of readSitemap(sitemapUrl, this.site.fetcher, limits, signal)) {
      const url = normalizeUrl(loc);
      if (!url) {
        skip({ url: loc, code: 'INVALID_URL', reason: 'not an absolute http(s) URL' });
        continue;
      }
      if (seen.has(url)) continue;
      seen.add(url);
      const { pathname } = new URL(url);
      if (new URL(url).origin !== origin) {
        skip({ url, code: 'OFF_SITE', reason: `listed in the sitemap but not on ${origin}` });
        continue;
      }
      if (!`${pathname}/`.startsWith(base)) {
        skip({ url, code: 'OFF_SITE', reason: `outside the site at ${base}` });
        continue;
      }
      const segment = excludedSegment(pathname.slice(base.length));
      if (segment) {
        skip({ url, code: 'FILTERED', reason: `not a docs page (${segment})` });
        continue;
      }
      if (include && !include(pathname)) {
        skip({ url, code: 'FILTERED', reason: 'not matched by includePaths' });
        continue;
      }
      if (exclude?.(pathname)) {
        skip({ url, code: 'FILTERED', reason: 'matched by excludePaths' });
        continue;
      }
      const ext = nonHtmlExtension(pathname);
      if (ext) {
        skip({ url, code: 'NOT_HTML', reason: `not an HTML page (.${ext} link, not fetched)` });
        continue;
      }
      if (pages.length >= this.site.maxPages) {
        skip({ url, code: 'LIMIT', reason: `page limit of ${this.site.maxPages} reached` });
        continue;
      }
      pages.push(url);
    }
    reportUnmatchedPaths(context, include, exclude);
    return pages;
  }

  private async page(
    url: string,
    pages: SitePageIndex,
    skip: (item: SkippedItem) => void,
    signal: AbortSignal,
    known?: KnownSource,
  ): Promise<LoadedDocument | 'unchanged' | undefined> {
    let res: FetchResponse;
    try {
      res = await fetchSitePage(this.site.fetcher, url, signal, this.site.maxPageBytes, known?.version);
    } catch (error) {
      if (signal.aborted) throw abortedError();
      const err = KbqaError.from(error);
      skip({ url, code: skipCodeOf(err), reason: err.message });
      return undefined;
    }
    if (known && isUnchanged(res, known.version)) {
      pages.keep(known.source, url);
      return 'unchanged';
    }
    const finalUrl = normalizeUrl(res.url) ?? url;
    const origin = new URL(url).origin;
    if (new URL(finalUrl).origin !== origin) {
      skip({ url, code: 'OFF_SITE', reason: `redirected to another origin: ${finalUrl}` });
      return undefined;
    }
    const failure = pageProblem(res);
    if (failure) {
      skip({ url, ...failure });
      return undefined;
    }
    let page: ExtractedPage;
    try {
      page = this.site.extract(decodeHtml(res), finalUrl);
    } catch (error) {
      skip({ url, code: 'FAILED', reason: `extraction failed: ${KbqaError.from(error).message}` });
      return undefined;
    }
    const outcome = pages.accept(page, finalUrl, origin, res);
    if ('skipped' in outcome) {
      skip({ url, code: outcome.code, reason: outcome.skipped });
      return undefined;
    }
    return outcome.document;
  }
}

/**
 * Runs `task` over `items`, `limit` at a time, yielding results in completion order; no new
 * task starts while more than `limit` results wait for the consumer.
 */
async function* pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
  signal: AbortSignal,
): AsyncGenerator<R> {
  const ready: R[] = [];
  let next = 0;
  let active = 0;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  signal.addEventListener('abort', notify);
  try {
    while (true) {
      if (signal.aborted) throw abortedError();
      if (failure) throw KbqaError.from(failure);
      while (active < limit && next < items.length && ready.length < limit) {
        const item = items[next++]!;
        active += 1;
        task(item)
          .then((result) => ready.push(result))
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => {
            active -= 1;
            notify();
          });
      }
      if (ready.length > 0) {
        yield ready.shift()!;
        continue;
      }
      if (active === 0 && next >= items.length) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    signal.removeEventListener('abort', notify);
  }
}

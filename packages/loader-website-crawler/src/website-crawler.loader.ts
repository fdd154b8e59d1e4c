import {
  KbqaError,
  parseVersionPattern,
  skipCodeOf,
  stampVersion,
  type FetchResponse,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SkippedItem,
  type SourceLoader,
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
  sitePageKey,
  siteLoaderSettings,
  type SiteExtractFn,
  type SiteLoaderOptions,
  type SiteLoaderSettings,
  usableCanonical,
  validateSiteRequest,
  type ExtractedPage,
} from '@kbqa/html';

/** HTML to markdown plus links; @kbqa/html's `extractContent` by default. */
export type CrawlExtractFn = SiteExtractFn;

/** `maxPages` (the start page included) defaults to 1,000. */
export interface WebsiteCrawlerOptions extends SiteLoaderOptions {
  /** Link hops from the start page followed at most. Default 10. */
  maxDepth?: number;
}

interface Target {
  /** The normalized URL: the page's key for deduplication and sync. */
  url: string;
  depth: number;
  /** The URL to request when it is not `url` (the start page keeps its path as given). */
  fetchUrl?: string;
}

/**
 * Crawls a website from a start URL within its origin (scheme, host and port): follows links
 * breadth-first up to `maxDepth` hops and `maxPages` fetches, honours `includePaths` /
 * `excludePaths` (see {@link pathMatcher}), deduplicates by normalized URL (see
 * {@link normalizeUrl}), by canonical URL and by identical markdown, skips non-HTML by extension before fetching and
 * by content type after, and yields one markdown document per page with text. Everything passed
 * over is reported through `context.skipped` with its reason.
 *
 * The start page is always fetched (its links are the way in) but only yielded when it passes
 * the path filters; the filters decide which discovered links are fetched at all.
 */
export class WebsiteCrawlerLoader implements SourceLoader {
  readonly type = 'website-crawler' as const;
  private readonly site: SiteLoaderSettings;
  private readonly maxDepth: number;

  constructor(options: WebsiteCrawlerOptions) {
    this.site = siteLoaderSettings(options, 1000);
    this.maxDepth = Math.max(0, Math.floor(options.maxDepth ?? 10));
  }

  validate(request: LoadRequest): void {
    validateSiteRequest(request, 'crawled');
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    this.validate(request);
    const { signal } = context;
    const start = normalizeUrl(request.url)!;
    // Normalizing drops a trailing slash, but servers may answer `/docs/` and `/docs` differently:
    // the start page is requested, and linked, with its path as given.
    const startAsGiven = withPathOf(start, request.url);
    // The start page may redirect to its real origin (http → https, bare → www); the crawl then
    // stays on that one. Only the start page can move it, before any link is followed.
    let origin = new URL(start).origin;
    const include = pathMatcher(request.includePaths, 'includePaths');
    const exclude = pathMatcher(request.excludePaths, 'excludePaths');
    const skip = (item: SkippedItem): void => context.skipped?.(item);

    /** Normalized URLs queued, fetched, redirected to or named canonical: each is fetched at most once. */
    const seen = new Set<string>([start]);
    /** The documents yielded, by canonical (or final) URL and by text. */
    const versionPattern = request.versionPattern ? parseVersionPattern(request.versionPattern) : undefined;
    const pages = new SitePageIndex(versionPattern);
    const queue: Target[] = [{ url: start, depth: 0, fetchUrl: startAsGiven }];
    let head = 0;
    let scheduled = 0;
    let done = 0;
    let yielded = 0;
    /** Pages a sync found unchanged (304): kept in the index, not yielded. */
    let kept = 0;
    let startError: KbqaError | undefined;

    const passesFilters = (url: string): string | undefined => {
      const path = new URL(url).pathname;
      if (include && !include(path)) return 'not matched by includePaths';
      if (exclude?.(path)) return 'matched by excludePaths';
      return undefined;
    };

    const discover = (links: string[], depth: number): void => {
      for (const link of links) {
        const url = normalizeUrl(link);
        if (!url || seen.has(url)) continue;
        if (new URL(url).origin !== origin) continue; // other origins are not ours to crawl
        seen.add(url);
        const ext = nonHtmlExtension(new URL(url).pathname);
        if (ext) {
          skip({ url, code: 'NOT_HTML', reason: `not an HTML page (.${ext} link, not fetched)` });
          continue;
        }
        const filtered = passesFilters(url);
        if (filtered) {
          skip({ url, code: 'FILTERED', reason: filtered });
          continue;
        }
        if (depth > this.maxDepth) {
          skip({ url, code: 'LIMIT', reason: `deeper than maxDepth ${this.maxDepth}` });
          continue;
        }
        if (scheduled + (queue.length - head) >= this.site.maxPages) {
          skip({ url, code: 'LIMIT', reason: `page limit of ${this.site.maxPages} reached` });
          continue;
        }
        queue.push({ url, depth });
      }
    };

    const crawl = async (target: Target): Promise<LoadedDocument | undefined> => {
      const isStart = target.url === start && target.depth === 0;
      let res: FetchResponse;
      const known = context.known?.(target.url);
      try {
        res = await fetchSitePage(
          this.site.fetcher,
          target.fetchUrl ?? target.url,
          signal,
          this.site.maxPageBytes,
          known?.version,
        );
      } catch (error) {
        if (signal.aborted) throw abortedError();
        const err = KbqaError.from(error);
        if (isStart) startError = err;
        skip({ url: target.url, code: skipCodeOf(err), reason: err.message });
        return undefined;
      }
      if (known && isUnchanged(res, known.version)) {
        // Unchanged since the last sync: kept as it is, and its stored links are followed.
        seen.add(known.source);
        pages.keep(known.source, target.url);
        discover(known.version.links ?? [], target.depth + 1);
        kept += 1;
        context.unchanged?.(known.source);
        return undefined;
      }
      const finalUrl = normalizeUrl(res.url) ?? target.url;
      if (finalUrl !== target.url) {
        if (isStart) origin = new URL(finalUrl).origin;
        if (new URL(finalUrl).origin !== origin) {
          skip({ url: target.url, code: 'OFF_SITE', reason: `redirected to another origin: ${finalUrl}` });
          return undefined;
        }
        if (seen.has(finalUrl) && !isStart) {
          skip({ url: target.url, code: 'DUPLICATE', reason: `redirects to ${finalUrl}, already crawled` });
          return undefined;
        }
        seen.add(finalUrl);
      }
      const failure = pageProblem(res);
      if (failure) {
        if (isStart) startError = new KbqaError('FETCH_FAILED', `${finalUrl}: ${failure.reason}`);
        skip({ url: finalUrl, ...failure });
        return undefined;
      }
      let page: ExtractedPage;
      try {
        page = this.site.extract(decodeHtml(res), finalUrl);
      } catch (error) {
        skip({
          url: finalUrl,
          code: 'FAILED',
          reason: `extraction failed: ${KbqaError.from(error).message}`,
        });
        return undefined;
      }
      discover(page.links, target.depth + 1);

      // Links to the canonical URL are the same page: never fetch it again. A version's copy is
      // not: Read the Docs names the default version's page canonical for every version.
      if (!stampVersion(finalUrl, page.versionHints ?? {}, { pattern: versionPattern })) {
        seen.add(sitePageKey(usableCanonical(page.canonicalUrl, finalUrl), finalUrl, origin));
      }
      const filtered = passesFilters(finalUrl);
      if (filtered) {
        // The start page (and a redirect out of the filters) is fetched for its links only.
        skip({
          url: finalUrl,
          code: 'FILTERED',
          reason: isStart ? `start page ${filtered}; crawled for links only` : filtered,
        });
        return undefined;
      }
      const outcome = pages.accept(page, finalUrl, origin, res);
      if ('skipped' in outcome) {
        skip({ url: finalUrl, code: outcome.code, reason: outcome.skipped });
        return undefined;
      }
      const { document } = outcome;
      // The start page's link is the URL the operator gave (and the server answered), slash included.
      return isStart && document.link === start ? { ...document, link: startAsGiven } : document;
    };

    // A small pool: up to `concurrency` pages in flight, finished documents handed out in
    // completion order, and no new fetches while the consumer is behind.
    const ready: LoadedDocument[] = [];
    let active = 0;
    let closed = false;
    let failure: unknown;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const onAbort = (): void => notify();
    signal.addEventListener('abort', onAbort);

    const pump = (): void => {
      while (
        active < this.site.concurrency &&
        head < queue.length &&
        ready.length < this.site.concurrency * 2
      ) {
        const target = queue[head++]!;
        scheduled += 1;
        active += 1;
        crawl(target)
          .then((doc) => {
            if (doc) ready.push(doc);
          })
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => {
            active -= 1;
            done += 1;
            // A consumer that stopped early hears nothing from pages still in flight.
            if (!closed)
              context.progress({
                step: 'SCRAPING',
                current: done,
                total: Math.max(done, Math.min(this.site.maxPages, scheduled + queue.length - head)),
                message: target.url,
              });
            notify();
          });
      }
    };

    try {
      while (true) {
        if (signal.aborted) throw abortedError();
        if (failure) throw KbqaError.from(failure);
        pump();
        const doc = ready.shift();
        if (doc) {
          yielded += 1;
          yield doc;
          continue;
        }
        if (active === 0 && head >= queue.length) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      closed = true;
      signal.removeEventListener('abort', onAbort);
    }
    // Before a failure too: a pattern that matched nothing may be why nothing was found.
    reportUnmatchedPaths(context, include, exclude);
    if (yielded === 0 && kept === 0) {
      if (startError) throw startError;
      throw new KbqaError('NO_CONTENT', `no page with extractable text found from ${start}`);
    }
  }
}

/** `normalized` with the path of `given` (the same URL before normalization), e.g. its trailing slash. */
function withPathOf(normalized: string, given: string): string {
  const url = new URL(normalized);
  url.pathname = new URL(given).pathname;
  return url.href;
}

function abortedError(): KbqaError {
  return new KbqaError('ABORTED', 'the crawl was cancelled');
}

import {
  KbqaError,
  skipCodeOf,
  throwIfAborted,
  type SkipCode,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SourceLoader,
  type WebFetcher,
} from '@kbqa/core';
import {
  conditionalHeaders,
  defaultExtract,
  HTML_ACCEPT,
  isGone,
  isUnchanged,
  pageDocument,
  type ExtractFn,
} from '@kbqa/html';
import { readSitemap, type SitemapLimits } from './sitemap.reader';

export interface SitemapLoaderOptions extends Omit<SitemapLimits, 'onSkipped' | 'onLastmod'> {
  /** The API passes @kbqa/fetcher's SafeFetcher; robots.txt, crawl-delay and address policy apply through it. */
  fetcher: WebFetcher;
  /** HTML to markdown; @kbqa/html's `extractContent` by default. */
  extract?: ExtractFn;
  /** Body cap of each page in bytes (after decompression); the fetcher's default when unset. */
  maxPageBytes?: number;
  /** Pages fetched at once; the fetcher still limits requests per host. Default 4. */
  pageConcurrency?: number;
}

type PageResult =
  | { ok: true; url: string; document: LoadedDocument }
  | { ok: false; url: string; error: KbqaError }
  /** A sync found it unchanged (same lastmod, or a 304) or gone (404, 410). */
  | { ok: 'unchanged'; url: string; source: string }
  | { ok: 'gone'; url: string; status: number };

/**
 * Ingests every page a sitemap (or sitemap index) lists: one document per HTML page, with
 * pages that fail (robots.txt, not HTML, too large, no content) reported as skipped.
 */
export class SitemapLoader implements SourceLoader {
  readonly type = 'sitemap' as const;
  private readonly fetcher: WebFetcher;
  private readonly extract: ExtractFn;
  private readonly limits: Omit<SitemapLimits, 'onSkipped' | 'onLastmod'>;
  private readonly maxPageBytes: number | undefined;
  private readonly pageConcurrency: number;

  constructor(options: SitemapLoaderOptions) {
    const { fetcher, extract, maxPageBytes, pageConcurrency, ...limits } = options;
    this.fetcher = fetcher;
    this.extract = extract ?? defaultExtract;
    this.limits = limits;
    this.maxPageBytes = maxPageBytes;
    this.pageConcurrency = Math.max(1, Math.floor(pageConcurrency ?? 4));
  }

  validate(request: LoadRequest): void {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new KbqaError('BAD_REQUEST', `not a valid sitemap URL: ${request.url.slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new KbqaError('BAD_REQUEST', `only http and https sitemaps can be loaded, got ${url.protocol}`);
    }
    if (url.username || url.password)
      throw new KbqaError('BAD_REQUEST', 'URLs with credentials cannot be loaded');
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    this.validate(request);
    const { signal } = context;
    throwIfAborted(signal);
    const skipped = (url: string, code: SkipCode, reason: string): void =>
      context.skipped?.({ url, code, reason });

    let discovered = 0;
    let done = 0;
    let yielded = 0;
    let kept = 0;
    const links = new Set<string>();
    const lastmods = new Map<string, string>();
    const inFlight: Array<Promise<PageResult>> = [];
    context.progress({ step: 'SCRAPING', current: 0, total: 0, message: `reading sitemap ${request.url}` });

    const settle = (result: PageResult): LoadedDocument | undefined => {
      done += 1;
      let message: string;
      let document: LoadedDocument | undefined;
      if (result.ok === 'unchanged') {
        context.unchanged?.(result.source);
        kept += 1;
        message = result.source;
      } else if (result.ok === 'gone') {
        skipped(result.url, 'GONE', `HTTP ${result.status}`);
        message = `gone ${result.url}`;
      } else if (!result.ok) {
        // A cancelled task ends the load instead of skipping every remaining page.
        if (signal.aborted || result.error.code === 'ABORTED') throw result.error;
        skipped(result.url, skipCodeOf(result.error), result.error.message);
        message = `skipped ${result.url}`;
      } else {
        const link = result.document.link ?? result.document.source;
        if (links.has(link)) {
          skipped(result.url, 'DUPLICATE', `same page as ${link}`);
        } else {
          links.add(link);
          document = result.document;
        }
        message = result.document.source;
      }
      context.progress({ step: 'SCRAPING', current: done, total: discovered, message });
      return document;
    };

    const pages = readSitemap(
      request.url,
      this.fetcher,
      {
        ...this.limits,
        onSkipped: (s) => skipped(s.url, s.code, s.reason),
        onLastmod: (page, lastmod) => lastmods.set(page, lastmod),
      },
      signal,
    );
    // The whole list first: it is small next to the pages, and progress then shows the real total
    // from the first page on (not a total that grows as the sitemap is read).
    const pageUrls: string[] = [];
    for await (const pageUrl of pages) pageUrls.push(pageUrl);
    discovered = pageUrls.length;
    context.progress({
      step: 'SCRAPING',
      current: 0,
      total: discovered,
      message: `${discovered} pages listed`,
    });
    for (const pageUrl of pageUrls) {
      inFlight.push(this.loadPage(pageUrl, lastmods.get(pageUrl), context));
      if (inFlight.length >= this.pageConcurrency) {
        const document = settle(await inFlight.shift()!);
        if (document) {
          yielded += 1;
          yield document;
        }
      }
    }
    while (inFlight.length > 0) {
      const document = settle(await inFlight.shift()!);
      if (document) {
        yielded += 1;
        yield document;
      }
    }
    throwIfAborted(signal);
    if (discovered === 0) throw new KbqaError('NO_CONTENT', `sitemap ${request.url} lists no pages`);
    if (yielded === 0 && kept === 0) {
      throw new KbqaError(
        'NO_CONTENT',
        `none of the ${discovered} pages of sitemap ${request.url} had extractable content`,
      );
    }
  }

  /**
   * Never rejects: failures come back as results so pages in flight cannot go unhandled. During
   * a sync, a page whose sitemap `lastmod` is the one stored is not fetched at all, and the
   * others are asked for conditionally.
   */
  private async loadPage(
    url: string,
    lastmod: string | undefined,
    context: LoadContext,
  ): Promise<PageResult> {
    const known = context.known?.(url);
    if (known && lastmod && known.version.lastmod === lastmod)
      return { ok: 'unchanged', url, source: known.source };
    try {
      const headers = conditionalHeaders(known?.version);
      const res = await this.fetcher.fetch(url, {
        signal: context.signal,
        accept: HTML_ACCEPT,
        ...(this.maxPageBytes !== undefined ? { maxBytes: this.maxPageBytes } : {}),
        ...(headers ? { headers } : {}),
      });
      if (known && isUnchanged(res, known.version)) return { ok: 'unchanged', url, source: known.source };
      if (known && isGone(res.status)) return { ok: 'gone', url, status: res.status };
      const document = pageDocument(res, this.extract);
      if (lastmod) document.version = { ...document.version, lastmod };
      return { ok: true, url, document };
    } catch (error) {
      return { ok: false, url, error: KbqaError.from(error) };
    }
  }
}

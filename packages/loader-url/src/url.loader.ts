import {
  KbqaError,
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

export interface UrlLoaderOptions {
  /** The API passes @kbqa/fetcher's SafeFetcher; robots.txt and address policy apply through it. */
  fetcher: WebFetcher;
  /** HTML to markdown; @kbqa/html's `extractContent` by default. */
  extract?: ExtractFn;
  /** Body cap of the page in bytes (after decompression); the fetcher's default when unset. */
  maxBytes?: number;
}

/** Ingests one web page as one document. */
export class UrlLoader implements SourceLoader {
  readonly type = 'url' as const;
  private readonly fetcher: WebFetcher;
  private readonly extract: ExtractFn;
  private readonly maxBytes: number | undefined;

  constructor(options: UrlLoaderOptions) {
    this.fetcher = options.fetcher;
    this.extract = options.extract ?? defaultExtract;
    this.maxBytes = options.maxBytes;
  }

  validate(request: LoadRequest): void {
    parsePageUrl(request.url);
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    const url = parsePageUrl(request.url);
    if (context.signal.aborted) throw new KbqaError('ABORTED', 'the load was cancelled');
    context.progress({ step: 'SCRAPING', current: 0, total: 1, message: url.href });
    // During a sync: asked conditionally, and a 304 keeps the page, a 404 or 410 removes it.
    const known = context.known?.(url.href);
    const headers = conditionalHeaders(known?.version);
    const res = await this.fetcher.fetch(url.href, {
      signal: context.signal,
      accept: HTML_ACCEPT,
      ...(this.maxBytes !== undefined ? { maxBytes: this.maxBytes } : {}),
      ...(headers ? { headers } : {}),
    });
    const same = isUnchanged(res, known?.version);
    if (known && (same || isGone(res.status))) {
      if (same) context.unchanged?.(known.source);
      else context.skipped?.({ url: url.href, code: 'GONE', reason: `HTTP ${res.status}` });
      context.progress({ step: 'SCRAPING', current: 1, total: 1, message: res.url });
      return;
    }
    const document = pageDocument(res, this.extract);
    context.progress({ step: 'SCRAPING', current: 1, total: 1, message: res.url });
    yield document;
    // Aborted while the document was being stored: the load must not end as if it finished.
    if (context.signal.aborted) throw new KbqaError('ABORTED', 'the load was cancelled');
  }
}

function parsePageUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new KbqaError('BAD_REQUEST', `not a valid URL: ${value.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KbqaError('BAD_REQUEST', `only http and https URLs can be loaded, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new KbqaError('BAD_REQUEST', 'URLs with credentials cannot be loaded');
  }
  return url;
}

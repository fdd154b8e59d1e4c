/** Options of one fetch through the safe fetcher. */
export interface FetchOptions {
  signal?: AbortSignal;
  /** Value of the Accept header. */
  accept?: string;
  /** Body cap in bytes, counted after decompression; larger bodies fail with TOO_LARGE. */
  maxBytes?: number;
  /** Skip the robots.txt check (robots.txt itself, sitemaps named by the operator). */
  ignoreRobots?: boolean;
  /**
   * Default GET. Any other method follows a 301, 302 or 303 as a GET without its body, as
   * browsers do with a POST; only GETs are retried.
   */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Request body (not with GET). */
  body?: string;
  /** Keep the first `maxBytes` of a larger body (and set `truncated`) instead of failing with TOO_LARGE. */
  truncate?: boolean;
  /** Extra request headers (content-type of a body, API headers); hop-by-hop ones are ignored. */
  headers?: Record<string, string>;
  /**
   * Names of headers in `headers` that carry secrets (an API key). They, and always
   * `Authorization`, `Proxy-Authorization` and `Cookie`, go only to the URL's own origin: a redirect
   * to another scheme, host or port drops them for the rest of the chain, as browsers drop
   * `Authorization`. A 307 or 308 to another origin that would re-send a body is refused.
   */
  secretHeaders?: readonly string[];
}

export interface FetchResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Lower-cased media type without parameters, e.g. `text/html`. */
  contentType: string;
  body: Buffer;
  /** Redirect hops followed, in order. */
  redirects: string[];
  /** The body was cut at `maxBytes` (only with the `truncate` option). */
  truncated?: boolean;
}

/**
 * The one way kbqa reaches the web. Implementations refuse private and loopback addresses
 * (unless allowlisted), follow redirects safely, cap sizes and obey robots.txt. Non-2xx final
 * statuses are returned, not thrown; refusals and transport failures throw `KbqaError`
 * (`FETCH_REFUSED`, `FETCH_FAILED`, `TIMEOUT`, `TOO_LARGE`).
 */
export interface WebFetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchResponse>;
  /** Whether robots.txt of the URL's origin lets our user agent fetch it. */
  isAllowedByRobots(url: string, signal?: AbortSignal): Promise<boolean>;
  /** Crawl-delay of the URL's origin in seconds, when robots.txt names one. */
  crawlDelay(url: string, signal?: AbortSignal): Promise<number | undefined>;
}

/**
 * Resolves a URL's host and checks that every address is one kbqa may reach; throws
 * `KbqaError('FETCH_REFUSED')` otherwise. Used by loaders that do not fetch over HTTP
 * themselves (git), which then connect to exactly these addresses so DNS cannot change its
 * answer between the check and the connection.
 */
export interface AddressGuard {
  resolve(url: URL, signal?: AbortSignal): Promise<Array<{ address: string; family: 4 | 6 }>>;
}

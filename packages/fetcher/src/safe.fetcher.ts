import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import { KbqaError, type FetchOptions, type FetchResponse, type WebFetcher } from '@kbqa/core';
import {
  AddressPolicy,
  abortError,
  bareHostname,
  pinnedLookup,
  displayUrl,
  type LookupFn,
  type ResolvedAddress,
} from './address.policy';
import { HostScheduler, sleep } from './host.scheduler';
import { readBody, type BodyOutcome } from './response.body';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from './robots.rules';

export interface SafeFetcherOptions {
  /** User-Agent header; its product token (`kbqa`) selects the robots.txt group. */
  userAgent?: string;
  /** Hosts or host:port pairs whose private addresses may be reached (see AddressPolicy). */
  allowPrivateHosts?: readonly string[];
  /** What refusals name as the way to allow a private host (see AddressPolicy). */
  allowlistSetting?: string;
  /** DNS resolution plus TCP and TLS handshake, per connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** One request from send to the last body byte. Default 30 s. */
  requestTimeoutMs?: number;
  /** Default body cap in bytes, counted after decompression. Default 10 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Extra attempts on 429, 5xx and transient network errors. Default 3. */
  retries?: number;
  /** First backoff delay; doubles per attempt. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Cap on any single wait between attempts, Retry-After included. Default 30 s. */
  maxRetryDelayMs?: number;
  /** Requests in flight per host. Default 4. */
  perHostConcurrency?: number;
  /** Crawl-delay above this is clamped, so one robots.txt cannot stall a task forever. Default 60. */
  maxCrawlDelaySeconds?: number;
  /** How long a fetched robots.txt is trusted (RFC 9309 says at most 24 h). Default 24 h. */
  robotsCacheTtlMs?: number;
  /** Injectable DNS lookup (all addresses of a name); tests pass a fake. */
  lookup?: LookupFn;
}

export const DEFAULT_USER_AGENT = 'kbqa/0.1 (+https://github.com/kbqa)';
const ROBOTS_MAX_BYTES = 512 * 1024;
/** A robots.txt that could not be fetched is retried sooner than one that was read. */
const ROBOTS_ERROR_TTL_MS = 10 * 60 * 1000;
const ROBOTS_CACHE_ENTRIES = 1000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

interface ExchangeResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated?: boolean;
}

interface RequestOptions {
  signal?: AbortSignal;
  accept: string;
  method: NonNullable<FetchOptions['method']>;
  body?: string;
  headers?: Record<string, string>;
  maxBytes: number;
  ignoreRobots: boolean;
  /** Keep the first `maxBytes` instead of failing (robots.txt, per RFC 9309 2.5). */
  truncate: boolean;
  /** Names of headers sent only to the first origin (see FetchOptions.secretHeaders). */
  secretHeaders?: readonly string[];
}

interface RobotsEntry {
  rules: Promise<RobotsRules>;
  resolved?: RobotsRules;
  expiresAt: number;
}

/** Errors worth another attempt; kept beside the error so the public shape stays a KbqaError. */
const transientErrors = new WeakSet<KbqaError>();

/**
 * The one HTTP client of kbqa: refuses non-public addresses (checked on every hop and pinned
 * for the connection, so DNS rebinding has no window), caps time and decompressed size,
 * retries politely, obeys robots.txt and spaces requests per host.
 */
export class SafeFetcher implements WebFetcher {
  readonly policy: AddressPolicy;
  private readonly userAgent: string;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly maxCrawlDelayMs: number;
  private readonly robotsCacheTtlMs: number;
  private readonly scheduler: HostScheduler;
  private readonly robots = new Map<string, RobotsEntry>();
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });

  constructor(options: SafeFetcherOptions = {}) {
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.connectTimeoutMs = positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
    this.requestTimeoutMs = positive(options.requestTimeoutMs, 30_000, 'requestTimeoutMs');
    this.maxBytes = positive(options.maxBytes, 10 * 1024 * 1024, 'maxBytes');
    this.maxRedirects = nonNegative(options.maxRedirects, 5, 'maxRedirects');
    this.retries = nonNegative(options.retries, 3, 'retries');
    this.retryBaseDelayMs = nonNegative(options.retryBaseDelayMs, 500, 'retryBaseDelayMs');
    this.maxRetryDelayMs = nonNegative(options.maxRetryDelayMs, 30_000, 'maxRetryDelayMs');
    this.maxCrawlDelayMs = nonNegative(options.maxCrawlDelaySeconds, 60, 'maxCrawlDelaySeconds') * 1000;
    this.robotsCacheTtlMs = nonNegative(options.robotsCacheTtlMs, 24 * 60 * 60 * 1000, 'robotsCacheTtlMs');
    this.scheduler = new HostScheduler(options.perHostConcurrency ?? 4);
    this.policy = new AddressPolicy({
      allowPrivateHosts: options.allowPrivateHosts,
      allowlistSetting: options.allowlistSetting,
      lookup: options.lookup,
      lookupTimeoutMs: this.connectTimeoutMs,
    });
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    return this.request(url, {
      signal: options.signal,
      accept: options.accept ?? '*/*',
      maxBytes: options.maxBytes ?? this.maxBytes,
      ignoreRobots: options.ignoreRobots ?? false,
      truncate: options.truncate ?? false,
      method: options.method ?? 'GET',
      body: options.body,
      headers: options.headers,
      secretHeaders: options.secretHeaders,
    });
  }

  async isAllowedByRobots(url: string, signal?: AbortSignal): Promise<boolean> {
    const target = parseUrl(url);
    // The address first: a host that resolves to a private address is refused for that reason,
    // not reported as disallowed because its robots.txt could not be read.
    await this.policy.resolve(target, signal);
    const rules = await this.robotsFor(target, signal);
    return rules.isAllowed(target);
  }

  async crawlDelay(url: string, signal?: AbortSignal): Promise<number | undefined> {
    const target = parseUrl(url);
    await this.policy.resolve(target, signal);
    return (await this.robotsFor(target, signal)).crawlDelay();
  }

  /** Closes pooled keep-alive connections. Call on shutdown and at the end of tests. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async request(url: string, options: RequestOptions): Promise<FetchResponse> {
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal, displayUrl(url));
    let current = parseUrl(url);
    const redirects: string[] = [];
    const seen = new Set<string>([withoutHash(current)]);

    for (;;) {
      // Address first: a refused host must not even get a robots.txt request.
      const addresses = await this.policy.resolve(current, signal);
      let delayMs = this.cachedCrawlDelayMs(current);
      if (!options.ignoreRobots) {
        const rules = await this.robotsFor(current, signal);
        if (!rules.isAllowed(current)) {
          throw new KbqaError('FETCH_REFUSED', `disallowed by robots.txt: ${displayUrl(current)}`);
        }
        delayMs = this.clampDelay(rules.crawlDelay());
      }

      const result = await this.exchangeWithRetries(current, addresses, delayMs, options);
      const location = result.headers['location'];
      if (REDIRECT_STATUSES.has(result.status) && location) {
        const shown = displayUrl(current);
        if (redirects.length >= this.maxRedirects) {
          throw new KbqaError(
            'FETCH_FAILED',
            `too many redirects (more than ${this.maxRedirects}) from ${displayUrl(url)}`,
          );
        }
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new KbqaError('FETCH_FAILED', `invalid redirect location from ${shown}`);
        }
        const key = withoutHash(next);
        if (seen.has(key))
          throw new KbqaError('FETCH_FAILED', `redirect loop at ${displayUrl(next)} (from ${shown})`);
        seen.add(key);
        const keepsBody = result.status === 307 || result.status === 308;
        if (next.origin !== current.origin) {
          // The body may hold what the headers hold (an operator's template, a reader's words):
          // another origin gets neither, and the caller sees why instead of a silent GET.
          if (keepsBody && options.body !== undefined) {
            throw new KbqaError(
              'FETCH_REFUSED',
              `refused a ${result.status} redirect from ${shown} to another origin (${displayUrl(next)}): ` +
                'it would send the request body there',
            );
          }
          options = { ...options, headers: withoutSecrets(options.headers, options.secretHeaders) };
        }
        redirects.push(next.href);
        current = next;
        if (options.method !== 'GET' && !keepsBody) {
          options = { ...options, method: 'GET', body: undefined };
        }
        continue;
      }

      const contentType = (result.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      return {
        url: current.href,
        status: result.status,
        headers: result.headers,
        contentType,
        body: result.body,
        redirects,
        ...(result.truncated ? { truncated: true } : {}),
      };
    }
  }

  private async exchangeWithRetries(
    url: URL,
    firstAddresses: ResolvedAddress[],
    delayMs: number,
    options: RequestOptions,
  ): Promise<ExchangeResult> {
    let addresses = firstAddresses;
    for (let attempt = 0; ; attempt++) {
      // Re-resolved on retries: a failover may have changed the records, and the new ones get checked too.
      if (attempt > 0) addresses = await this.policy.resolve(url, options.signal);
      const release = await this.scheduler.acquire(url.host, delayMs, options.signal);
      let result: ExchangeResult;
      try {
        result = await this.exchange(url, addresses, options);
      } catch (error) {
        if (error instanceof KbqaError && transientErrors.has(error) && attempt < this.retries) {
          release();
          await sleep(this.backoffMs(attempt), options.signal);
          continue;
        }
        throw error;
      } finally {
        release();
      }
      // A POST the server answered may have taken effect: it is not sent again.
      if (
        (result.status === 429 || result.status >= 500) &&
        attempt < this.retries &&
        options.method === 'GET'
      ) {
        const wait = retryAfterMs(result.headers['retry-after']) ?? this.backoffMs(attempt);
        await sleep(Math.min(wait, this.maxRetryDelayMs), options.signal);
        continue;
      }
      return result;
    }
  }

  private backoffMs(attempt: number): number {
    const base = this.retryBaseDelayMs * 2 ** attempt;
    // Jitter spreads retries of many tasks hitting the same failing host.
    return Math.min(this.maxRetryDelayMs, base / 2 + (Math.random() * base) / 2);
  }

  /** One HTTP exchange, connecting only to the checked addresses. */
  private exchange(url: URL, addresses: ResolvedAddress[], options: RequestOptions): Promise<ExchangeResult> {
    const shown = displayUrl(url);
    const isHttps = url.protocol === 'https:';
    const host = bareHostname(url);
    const { signal } = options;

    return new Promise<ExchangeResult>((resolve, reject) => {
      let settled = false;
      const settle = (error: KbqaError | undefined, value?: ExchangeResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(requestTimer);
        signal?.removeEventListener('abort', onAbort);
        if (error) {
          req.destroy();
          reject(error);
        } else if (value) {
          resolve(value);
        }
      };
      const onAbort = (): void => settle(abortError(signal, shown));

      const requestOptions: https.RequestOptions = {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: options.method,
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        lookup: pinnedLookup(addresses),
        headers: {
          ...safeHeaders(options.headers),
          'user-agent': this.userAgent,
          accept: options.accept,
          'accept-encoding': 'gzip, deflate, br',
          ...(options.body !== undefined
            ? { 'content-length': String(Buffer.byteLength(options.body)) }
            : {}),
        },
      };
      const req = isHttps ? https.request(requestOptions) : http.request(requestOptions);

      const requestTimer = setTimeout(() => {
        const error = new KbqaError(
          'TIMEOUT',
          `request to ${shown} timed out after ${this.requestTimeoutMs} ms`,
        );
        settle(error);
      }, this.requestTimeoutMs);
      const connectTimer = setTimeout(() => {
        const error = new KbqaError(
          'TIMEOUT',
          `connection to ${shown} timed out after ${this.connectTimeoutMs} ms`,
        );
        transientErrors.add(error);
        settle(error);
      }, this.connectTimeoutMs);

      req.on('socket', (socket: Socket) => {
        if (req.reusedSocket) {
          clearTimeout(connectTimer);
          return;
        }
        socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      req.on('error', (error: NodeJS.ErrnoException) => settle(networkError(error, shown)));
      req.on('response', (res) => {
        clearTimeout(connectTimer);
        const status = res.statusCode ?? 0;
        const headers = flattenHeaders(res.headers);
        if (REDIRECT_STATUSES.has(status) && headers['location']) {
          // The body of a redirect is never needed; drop the connection rather than read it.
          res.destroy();
          settle(undefined, { status, headers, body: Buffer.alloc(0) });
          return;
        }
        readBody(res, options.maxBytes, options.truncate, (outcome: BodyOutcome) => {
          switch (outcome.kind) {
            case 'ok':
              settle(undefined, { status, headers, body: outcome.body, truncated: outcome.truncated });
              return;
            case 'too-large':
              settle(new KbqaError('TOO_LARGE', `body of ${shown} is larger than ${options.maxBytes} bytes`));
              return;
            case 'closed': {
              const error = new KbqaError(
                'FETCH_FAILED',
                `connection closed before the body of ${shown} was complete`,
              );
              transientErrors.add(error);
              settle(error);
              return;
            }
            case 'decode-error':
              settle(
                new KbqaError('FETCH_FAILED', `could not decompress the body of ${shown}`, {
                  cause: outcome.error,
                }),
              );
              return;
            case 'unsupported-encoding':
              settle(
                new KbqaError(
                  'FETCH_FAILED',
                  `unsupported content encoding "${outcome.encoding}" from ${shown}`,
                ),
              );
              return;
          }
        });
      });

      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end(options.body);
    });
  }

  private robotsFor(url: URL, signal?: AbortSignal): Promise<RobotsRules> {
    const origin = url.origin;
    const now = Date.now();
    let entry = this.robots.get(origin);
    if (!entry || entry.expiresAt <= now) {
      if (entry) this.robots.delete(origin);
      if (this.robots.size >= ROBOTS_CACHE_ENTRIES) {
        const oldest = this.robots.keys().next();
        if (!oldest.done) this.robots.delete(oldest.value);
      }
      const created: RobotsEntry = { rules: Promise.resolve(ALLOW_ALL), expiresAt: Number.POSITIVE_INFINITY };
      // Not tied to the first caller's signal: other tasks share the answer.
      created.rules = this.loadRobots(origin).then(({ rules, ttlMs }) => {
        created.resolved = rules;
        created.expiresAt = Date.now() + ttlMs;
        return rules;
      });
      this.robots.set(origin, created);
      entry = created;
    }
    return withSignal(entry.rules, signal, displayUrl(url));
  }

  /** RFC 9309 2.3.1: 2xx parsed, 4xx allow all, 5xx and unreachable disallow all. */
  private async loadRobots(origin: string): Promise<{ rules: RobotsRules; ttlMs: number }> {
    try {
      const res = await this.request(`${origin}/robots.txt`, {
        accept: 'text/plain, */*;q=0.5',
        maxBytes: ROBOTS_MAX_BYTES,
        ignoreRobots: true,
        truncate: true,
        method: 'GET',
      });
      if (res.status >= 200 && res.status < 300) {
        return {
          rules: parseRobots(origin, res.body.toString('utf8'), this.userAgent),
          ttlMs: this.robotsCacheTtlMs,
        };
      }
      // 429 is "slow down", not "no robots.txt": treated like a server error, as major crawlers do.
      if (res.status >= 400 && res.status < 500 && res.status !== 429) {
        return { rules: ALLOW_ALL, ttlMs: this.robotsCacheTtlMs };
      }
      return { rules: DISALLOW_ALL, ttlMs: Math.min(ROBOTS_ERROR_TTL_MS, this.robotsCacheTtlMs) };
    } catch {
      return { rules: DISALLOW_ALL, ttlMs: Math.min(ROBOTS_ERROR_TTL_MS, this.robotsCacheTtlMs) };
    }
  }

  private cachedCrawlDelayMs(url: URL): number {
    const entry = this.robots.get(url.origin);
    return entry?.resolved ? this.clampDelay(entry.resolved.crawlDelay()) : 0;
  }

  private clampDelay(seconds: number | undefined): number {
    return seconds === undefined ? 0 : Math.min(seconds * 1000, this.maxCrawlDelayMs);
  }
}

/** Headers a caller may set: never ones that would change how the connection or body is framed. */
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'user-agent',
]);

/** Credentials a browser never carries to another origin; callers name their own secrets on top. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/** The headers without credentials and the caller's secret ones, for a hop to another origin. */
function withoutSecrets(
  headers: Record<string, string> | undefined,
  secretHeaders: readonly string[] | undefined,
): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  const dropped = new Set([...CREDENTIAL_HEADERS, ...(secretHeaders ?? []).map((h) => h.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !dropped.has(name.toLowerCase())));
}

function safeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  }
  return out;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new KbqaError('FETCH_REFUSED', `refused ${displayUrl(url)}: not a valid URL`);
  }
}

function withoutHash(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.href;
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function networkError(error: NodeJS.ErrnoException, shown: string): KbqaError {
  const code = error.code ?? '';
  let why = 'network error';
  if (code === 'ECONNREFUSED') why = 'connection refused';
  else if (code === 'ECONNRESET' || code === 'EPIPE') why = 'connection reset';
  else if (code === 'ETIMEDOUT') why = 'connection timed out';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') why = 'host unreachable';
  else if (code.startsWith('HPE_')) why = 'invalid HTTP response';
  else if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code === 'EPROTO'
  ) {
    why = 'TLS handshake failed';
  }
  const wrapped = new KbqaError('FETCH_FAILED', `could not fetch ${shown}: ${why}`, { cause: error });
  if (TRANSIENT_CODES.has(code)) transientErrors.add(wrapped);
  return wrapped;
}

function withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined, shown: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal, shown));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal, shown));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be a positive number`);
  return v;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be zero or more`);
  return v;
}

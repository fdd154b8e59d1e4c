import type { WebFetcher } from '@kbqa/core';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` (what youtube-transcript takes) that sends every request through a `WebFetcher`, so
 * the loader's requests get the same address policy, timeouts and size caps as every other
 * loader's. robots.txt is not consulted: these are API calls for one video a user named, not a
 * crawl (youtube.com's robots.txt is written for crawlers of its pages).
 */
export function fetcherFetch(fetcher: WebFetcher): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`unsupported method ${method}`);
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? request?.headers).forEach((value, name) => (headers[name] = value));
    const body = init?.body ?? (request ? await request.text() : undefined);
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('only string request bodies are supported');
    }
    const res = await fetcher.fetch(url, {
      method,
      headers,
      body: body ?? undefined,
      accept: headers['accept'] ?? '*/*',
      ignoreRobots: true,
      signal: init?.signal ?? request?.signal ?? undefined,
    });
    const response = new Response(NULL_BODY_STATUSES.has(res.status) ? null : res.body, {
      status: res.status,
      headers: res.headers,
    });
    Object.defineProperty(response, 'url', { value: res.url });
    return response;
  };
}

import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { KbqaError } from '@kbqa/core';
import {
  abortError,
  bareHostname,
  pinnedLookup,
  displayUrl,
  type AddressPolicy,
  type ResolvedAddress,
} from './address.policy';

/** The `fetch` shape clients such as the MCP SDK's transports accept in place of the global one. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  /** DNS resolution plus TCP and TLS handshake. Default 10 s. */
  connectTimeoutMs?: number;
  /** A response body larger than this ends in a TOO_LARGE error. Default 10 MiB. */
  maxResponseBytes?: number;
}

/**
 * A WHATWG `fetch` for clients that need a streamed response (Server-Sent Events), under the same
 * address policy as {@link SafeFetcher}: every request's host is resolved and checked, and the
 * socket connects to exactly the checked addresses, so DNS rebinding has no window. Redirects are
 * not followed (the caller sees the 3xx and, if it follows, comes back through this check).
 * No robots.txt: the caller is a client of an API the operator configured.
 */
export function createGuardedFetch(policy: AddressPolicy, options: GuardedFetchOptions = {}): GuardedFetch {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  return async (input, init = {}) => {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch {
      throw new KbqaError('FETCH_REFUSED', `refused ${displayUrl(String(input))}: not a valid URL`);
    }
    const signal = init.signal ?? undefined;
    const addresses = await policy.resolve(url, signal);
    const body = await bodyBuffer(init.body);
    return exchange(url, addresses, init, body, signal, { connectTimeoutMs, maxBytes });
  };
}

async function bodyBuffer(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  // Anything else (form data, streams, blobs): let the platform serialize it.
  return Buffer.from(await new Response(body).arrayBuffer());
}

function exchange(
  url: URL,
  addresses: ResolvedAddress[],
  init: RequestInit,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  { connectTimeoutMs, maxBytes }: { connectTimeoutMs: number; maxBytes: number },
): Promise<Response> {
  const shown = displayUrl(url);
  const isHttps = url.protocol === 'https:';
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error): void => {
      clearTimeout(connectTimer);
      req.destroy(error);
      if (settled) return;
      settled = true;
      reject(error);
    };
    const onAbort = (): void => fail(abortError(signal, shown));
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (body !== undefined) headers['content-length'] = String(body.length);
    const requestOptions: https.RequestOptions = {
      protocol: url.protocol,
      hostname: bareHostname(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: init.method ?? 'GET',
      lookup: pinnedLookup(addresses),
      headers,
    };
    const req = isHttps ? https.request(requestOptions) : http.request(requestOptions);
    const connectTimer = setTimeout(
      () => fail(new KbqaError('TIMEOUT', `connection to ${shown} timed out after ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
    // The timer bounds the connection only: once connected, the caller's signal bounds the wait.
    req.on('socket', (socket: Socket) => {
      socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      const why = error.code === 'ECONNREFUSED' ? 'connection refused' : 'network error';
      fail(new KbqaError('FETCH_FAILED', `could not fetch ${shown}: ${why}`, { cause: error }));
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      // Aborting after the headers ends the body stream, as the platform fetch does.
      signal?.addEventListener('abort', () => res.destroy(abortError(signal, shown)), { once: true });
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
      }
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          res.destroy(new KbqaError('TOO_LARGE', `response of ${shown} is larger than ${maxBytes} bytes`));
        }
      });
      const status = res.statusCode ?? 0;
      const noBody = status === 204 || status === 304 || init.method === 'HEAD';
      if (noBody) res.resume();
      resolve(
        new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
          status,
          statusText: res.statusMessage,
          headers: responseHeaders,
        }),
      );
    });
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

import { afterEach, describe, expect, it, jest } from '@jest/globals';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KbqaError } from '@kbqa/core';
import { retryAfterMs, SafeFetcher, type SafeFetcherOptions } from './safe.fetcher';
import type { LookupFn } from './address.policy';
import { startServer, startSilentServer, type TestServer } from '@kbqa/core/testing';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: TestServer[] = [];
const fetchers: SafeFetcher[] = [];

afterEach(async () => {
  for (const f of fetchers.splice(0)) f.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function fetcherFor(server: TestServer | undefined, options: SafeFetcherOptions = {}): SafeFetcher {
  const fetcher = new SafeFetcher({
    retryBaseDelayMs: 1,
    ...options,
    allowPrivateHosts: [...(server ? [server.hostPort] : []), ...(options.allowPrivateHosts ?? [])],
  });
  fetchers.push(fetcher);
  return fetcher;
}

async function failure(promise: Promise<unknown>): Promise<KbqaError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KbqaError) return error;
    throw error;
  }
  throw new Error('expected a KbqaError');
}

/** Replies 404 to robots.txt so tests that do not care about robots are allowed everywhere. */
function noRobots(handler: Handler): Handler {
  return (req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  };
}

describe(SafeFetcher.name, () => {
  describe('address policy', () => {
    it('refuses every loopback spelling without connecting, even to a listening port', async () => {
      let connections = 0;
      const tcp = net.createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      const port = (tcp.address() as net.AddressInfo).port;
      const lookup = jest.fn<LookupFn>(() => Promise.resolve([{ address: '127.0.0.1', family: 4 }]));
      const fetcher = fetcherFor(undefined, { lookup });
      try {
        const spellings = [
          `http://127.0.0.1:${port}/`,
          `http://127.1:${port}/`,
          `http://2130706433:${port}/`,
          `http://0x7f.1:${port}/`,
          `http://0177.0.0.1:${port}/`,
          `http://0x7f000001:${port}/`,
          `http://[::ffff:127.0.0.1]:${port}/`,
          `http://[::ffff:7f00:1]:${port}/`,
          `http://[::127.0.0.1]:${port}/`,
          `http://[64:ff9b::7f00:1]:${port}/`,
          `http://[::1]:${port}/`,
          `http://0.0.0.0:${port}/`,
          `http://0:${port}/`,
          `http://user@127.0.0.1:${port}/`,
          `http://localhost:${port}/`,
          `http://localhost.:${port}/`,
          `http://LocalHost:${port}/`,
          `http://app.localhost:${port}/`,
          `https://127.0.0.1:${port}/`,
        ];
        for (const url of spellings) {
          const error = await failure(fetcher.fetch(url));
          expect([url, error.code]).toEqual([url, 'FETCH_REFUSED']);
        }
        // A name that resolves to loopback is refused after DNS, before any connection.
        const error = await failure(fetcher.fetch(`http://rebind.example:${port}/`));
        expect(error.code).toBe('FETCH_REFUSED');
        expect(lookup).toHaveBeenCalledTimes(1);
        expect(connections).toBe(0);
      } finally {
        await new Promise<void>((resolve) => tcp.close(() => resolve()));
      }
    });

    it('refuses non-http schemes and invalid URLs', async () => {
      const fetcher = fetcherFor(undefined);
      for (const url of [
        'file:///etc/passwd',
        'ftp://example.com/',
        'data:text/plain,hi',
        'javascript:alert(1)',
        'not a url',
      ]) {
        expect((await failure(fetcher.fetch(url))).code).toBe('FETCH_REFUSED');
      }
    });

    it('reaches an allowlisted 127.0.0.1:port and reports the response', async () => {
      const server = await serve(
        noRobots((req, res) => {
          res.writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'x-ua': req.headers['user-agent'] ?? '',
          });
          res.end('<h1>hello</h1>');
        }),
      );
      const res = await fetcherFor(server).fetch(`${server.origin}/page`);
      expect(res.status).toBe(200);
      expect(res.contentType).toBe('text/html');
      expect(res.body.toString()).toBe('<h1>hello</h1>');
      expect(res.headers['x-ua']).toBe('kbqa/0.1 (+https://github.com/kbqa)');
      expect(res.url).toBe(`${server.origin}/page`);
      expect(res.redirects).toEqual([]);
    });

    it('connects to the address it checked while sending the real host name', async () => {
      const hosts: string[] = [];
      const server = await serve(
        noRobots((req, res) => {
          hosts.push(req.headers.host ?? '');
          res.end('ok');
        }),
      );
      const lookup = jest.fn<LookupFn>(() => Promise.resolve([{ address: '127.0.0.1', family: 4 }]));
      const fetcher = fetcherFor(undefined, { lookup, allowPrivateHosts: [`docs.test:${server.port}`] });
      const res = await fetcher.fetch(`http://docs.test:${server.port}/a`, { ignoreRobots: true });
      expect(res.status).toBe(200);
      expect(hosts).toEqual([`docs.test:${server.port}`]);
      expect(lookup).toHaveBeenCalledTimes(1);
    });

    it('does not open an allowlisted host on another port', async () => {
      const server = await serve((_req, res) => res.end('ok'));
      const other = await serve((_req, res) => res.end('ok'));
      const error = await failure(fetcherFor(server).fetch(`${other.origin}/`));
      expect(error.code).toBe('FETCH_REFUSED');
    });
  });

  describe('redirects', () => {
    it('follows a redirect chain of 5 and refuses a sixth hop', async () => {
      const server = await serve(
        noRobots((req, res) => {
          const m = /^\/hop\/(\d+)$/.exec(req.url ?? '');
          const n = Number(m?.[1] ?? 0);
          if (n > 0) {
            res.writeHead(302, { location: `/hop/${n - 1}` }).end();
            return;
          }
          res.end('arrived');
        }),
      );
      const fetcher = fetcherFor(server);
      const res = await fetcher.fetch(`${server.origin}/hop/5`);
      expect(res.body.toString()).toBe('arrived');
      expect(res.url).toBe(`${server.origin}/hop/0`);
      expect(res.redirects).toHaveLength(5);

      const error = await failure(fetcher.fetch(`${server.origin}/hop/6`));
      expect(error.code).toBe('FETCH_FAILED');
      expect(error.message).toContain('too many redirects');
    });

    it('detects a redirect loop', async () => {
      const server = await serve(
        noRobots((req, res) => {
          res.writeHead(301, { location: req.url === '/a' ? '/b' : '/a#frag' }).end();
        }),
      );
      const error = await failure(fetcherFor(server).fetch(`${server.origin}/a`));
      expect(error.code).toBe('FETCH_FAILED');
      expect(error.message).toContain('redirect loop');
    });

    it('refuses a redirect from an allowed host to a forbidden one', async () => {
      let forbiddenHits = 0;
      const forbidden = await serve((_req, res) => {
        forbiddenHits += 1;
        res.end('secret');
      });
      const targets: Record<string, string> = {
        '/to-private': 'http://10.0.0.1/',
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/to-other-port': `${forbidden.origin}/`,
        '/to-localhost': `http://localhost:${forbidden.port}/`,
        '/to-file': 'file:///etc/passwd',
        '/to-credentials': `http://user:pw@127.0.0.1:${forbidden.port}/`,
      };
      const server = await serve(
        noRobots((req, res) => {
          res.writeHead(307, { location: targets[req.url ?? ''] ?? '/' }).end();
        }),
      );
      const fetcher = fetcherFor(server);
      for (const path of Object.keys(targets)) {
        const error = await failure(fetcher.fetch(`${server.origin}${path}`));
        expect([path, error.code]).toEqual([path, 'FETCH_REFUSED']);
        expect(error.message).not.toContain('pw@');
      }
      expect(forbiddenHits).toBe(0);
    });
  });

  describe('secrets on redirects', () => {
    interface Seen {
      path: string;
      method: string;
      authorization?: string;
      cookie?: string;
      key?: string;
      body: string;
    }

    /** A server that records each request and answers 2xx, or the redirect its route names. */
    async function recorder(
      seen: Seen[],
      routes: Record<string, [number, string]> = {},
    ): Promise<TestServer> {
      return serve(
        noRobots((req, res) => {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString()));
          req.on('end', () => {
            seen.push({
              path: req.url ?? '',
              method: req.method ?? '',
              authorization: req.headers['authorization'],
              cookie: req.headers['cookie'],
              key: req.headers['x-api-key'] as string | undefined,
              body,
            });
            const route = routes[req.url ?? ''];
            if (route) return void res.writeHead(route[0], { location: route[1] }).end();
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          });
        }),
      );
    }

    const secretHeaders = {
      Authorization: 'Bearer sk-a',
      Cookie: 'session=s',
      'X-Api-Key': 'sk-b',
      'content-type': 'application/json',
    };

    it('drops Authorization, Cookie and named secret headers on a redirect to another port', async () => {
      const atTarget: Seen[] = [];
      const target = await recorder(atTarget);
      const atFirst: Seen[] = [];
      const first = await recorder(atFirst, {
        '/302': [302, `${target.origin}/landed`],
        '/307': [307, `${target.origin}/landed`],
      });
      const fetcher = fetcherFor(first, { allowPrivateHosts: [target.hostPort] });
      const viaPost = await fetcher.fetch(`${first.origin}/302`, {
        method: 'POST',
        body: '{"q":1}',
        headers: secretHeaders,
        secretHeaders: ['x-API-key'],
      });
      expect(viaPost.url).toBe(`${target.origin}/landed`);
      const viaGet = await fetcher.fetch(`${first.origin}/307`, {
        headers: secretHeaders,
        secretHeaders: ['X-Api-Key'],
      });
      expect(viaGet.status).toBe(200);
      expect(atFirst.map((r) => [r.path, r.authorization, r.cookie, r.key])).toEqual([
        ['/302', 'Bearer sk-a', 'session=s', 'sk-b'],
        ['/307', 'Bearer sk-a', 'session=s', 'sk-b'],
      ]);
      expect(atTarget).toEqual([
        { path: '/landed', method: 'GET', body: '' },
        { path: '/landed', method: 'GET', body: '' },
      ]);
    });

    it('refuses a 307 or 308 that would re-send a body to another origin, which then receives nothing', async () => {
      const atTarget: Seen[] = [];
      const target = await recorder(atTarget);
      const first = await recorder([], {
        '/307': [307, `${target.origin}/landed`],
        '/308': [308, `${target.origin}/landed`],
      });
      const fetcher = fetcherFor(first, { allowPrivateHosts: [target.hostPort] });
      for (const path of ['/307', '/308']) {
        const error = await failure(
          fetcher.fetch(`${first.origin}${path}`, {
            method: 'POST',
            body: '{"q":1}',
            headers: secretHeaders,
          }),
        );
        expect(error.code).toBe('FETCH_REFUSED');
        expect(error.message).toContain('another origin');
      }
      expect(atTarget).toEqual([]);
    });

    it('keeps the secret headers and the 307 body on a same-origin redirect', async () => {
      const seen: Seen[] = [];
      const server = await recorder(seen, { '/old': [307, '/new'] });
      const fetcher = fetcherFor(server);
      const res = await fetcher.fetch(`${server.origin}/old`, {
        method: 'POST',
        body: '{"q":1}',
        headers: secretHeaders,
        secretHeaders: ['X-Api-Key'],
      });
      expect(res.status).toBe(200);
      expect(seen[1]).toEqual({
        path: '/new',
        method: 'POST',
        authorization: 'Bearer sk-a',
        cookie: 'session=s',
        key: 'sk-b',
        body: '{"q":1}',
      });
    });
  });

  describe('POST requests', () => {
    it('sends the body and headers, follows a 303 as a GET without the body, and never retries a POST', async () => {
      const seen: Array<{ method: string; path: string; type?: string; body: string }> = [];
      const server = await serve((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          seen.push({
            method: req.method ?? '',
            path: req.url ?? '',
            type: req.headers['content-type'],
            body,
          });
          if (req.url === '/robots.txt') return void res.writeHead(404).end();
          if (req.url === '/api') return void res.writeHead(303, { location: '/result' }).end();
          if (req.url === '/busy') return void res.writeHead(503).end();
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        });
      });
      const fetcher = fetcherFor(server, { retries: 2 });
      const res = await fetcher.fetch(`${server.origin}/api`, {
        method: 'POST',
        body: '{"videoId":"x"}',
        headers: { 'content-type': 'application/json', host: 'evil.example', 'content-length': '1' },
      });
      expect(res.status).toBe(200);
      expect(res.url).toBe(`${server.origin}/result`);
      const apiCalls = seen.filter((r) => r.path !== '/robots.txt');
      expect(apiCalls).toEqual([
        { method: 'POST', path: '/api', type: 'application/json', body: '{"videoId":"x"}' },
        { method: 'GET', path: '/result', type: 'application/json', body: '' },
      ]);
      expect((await fetcher.fetch(`${server.origin}/busy`, { method: 'POST', body: 'x' })).status).toBe(503);
      expect(seen.filter((r) => r.path === '/busy')).toHaveLength(1);
    });
  });

  describe('other methods', () => {
    it('sends PUT, PATCH and DELETE with their body, and never retries them', async () => {
      const seen: string[] = [];
      const server = await serve(
        noRobots((req, res) => {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString()));
          req.on('end', () => {
            seen.push(`${req.method} ${body}`);
            res.writeHead(503).end();
          });
        }),
      );
      const fetcher = fetcherFor(server, { retries: 2 });
      for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
        expect((await fetcher.fetch(`${server.origin}/r`, { method, body: method })).status).toBe(503);
      }
      expect(seen).toEqual(['PUT PUT', 'PATCH PATCH', 'DELETE DELETE']);
    });
  });

  describe('body size', () => {
    const MB = 1024 * 1024;

    it('refuses a body above the cap announced by Content-Length', async () => {
      const server = await serve(
        noRobots((_req, res) => {
          res.writeHead(200, { 'content-length': String(2 * MB) });
          res.end(Buffer.alloc(2 * MB, 'a'));
        }),
      );
      const error = await failure(fetcherFor(server).fetch(`${server.origin}/big`, { maxBytes: MB }));
      expect(error.code).toBe('TOO_LARGE');
      expect(error.message).toContain(`${server.origin}/big`);
    });

    it('refuses a chunked body once it passes the cap', async () => {
      let written = 0;
      const server = await serve(
        noRobots((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const chunk = Buffer.alloc(64 * 1024, 'b');
          const pump = (): void => {
            while (written < 64 * MB && !res.destroyed) {
              written += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          res.on('close', () => res.removeAllListeners('drain'));
          pump();
        }),
      );
      const error = await failure(fetcherFor(server).fetch(`${server.origin}/stream`, { maxBytes: MB }));
      expect(error.code).toBe('TOO_LARGE');
      expect(written).toBeLessThan(32 * MB);
    });

    it('accepts a body at the cap and counts the default cap from the options', async () => {
      const server = await serve(noRobots((_req, res) => res.end(Buffer.alloc(1000, 'c'))));
      const res = await fetcherFor(server, { maxBytes: 1000 }).fetch(`${server.origin}/`);
      expect(res.body).toHaveLength(1000);
      const error = await failure(fetcherFor(server, { maxBytes: 999 }).fetch(`${server.origin}/`));
      expect(error.code).toBe('TOO_LARGE');
    });

    it('keeps the first maxBytes of a larger body with truncate, and says so', async () => {
      const server = await serve(
        noRobots((_req, res) => {
          res.writeHead(200, { 'content-length': '5000' });
          res.end(Buffer.alloc(5000, 'd'));
        }),
      );
      const fetcher = fetcherFor(server);
      const cut = await fetcher.fetch(`${server.origin}/`, { maxBytes: 100, truncate: true });
      expect(cut.body.toString()).toBe('d'.repeat(100));
      expect(cut.truncated).toBe(true);
      const whole = await fetcher.fetch(`${server.origin}/`, { maxBytes: 5000, truncate: true });
      expect(whole.body).toHaveLength(5000);
      expect(whole.truncated).toBeUndefined();
    });

    it('decodes gzip, deflate (zlib and raw) and brotli bodies', async () => {
      const text = 'hello '.repeat(1000);
      const encoders: Record<string, [string, (b: Buffer) => Buffer]> = {
        '/gzip': ['gzip', (b) => zlib.gzipSync(b)],
        '/deflate': ['deflate', (b) => zlib.deflateSync(b)],
        '/raw-deflate': ['deflate', (b) => zlib.deflateRawSync(b)],
        '/br': ['br', (b) => zlib.brotliCompressSync(b)],
      };
      const server = await serve(
        noRobots((req, res) => {
          const [encoding, encode] = encoders[req.url ?? '']!;
          res.writeHead(200, { 'content-encoding': encoding });
          res.end(encode(Buffer.from(text)));
        }),
      );
      const fetcher = fetcherFor(server);
      for (const path of Object.keys(encoders)) {
        const res = await fetcher.fetch(`${server.origin}${path}`);
        expect([path, res.body.toString()]).toEqual([path, text]);
      }
    });

    it('stops a gzip bomb at the cap without reading or inflating it all', async () => {
      // 4000 gzip members of 10 MiB of zeros each: ~40 MB on the wire, ~40 GiB inflated.
      const member = zlib.gzipSync(Buffer.alloc(10 * MB), { level: 9 });
      const members = 4000;
      const total = member.length * members;
      let written = 0;
      let closed!: () => void;
      const serverDone = new Promise<void>((resolve) => (closed = resolve));
      const server = await serve(
        noRobots((_req, res) => {
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' });
          let sent = 0;
          const pump = (): void => {
            while (sent < members && !res.destroyed) {
              sent += 1;
              written += member.length;
              if (!res.write(member)) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          res.on('close', () => {
            res.removeAllListeners('drain');
            closed();
          });
          pump();
        }),
      );
      const error = await failure(fetcherFor(server).fetch(`${server.origin}/bomb`, { maxBytes: MB }));
      expect(error.code).toBe('TOO_LARGE');
      await serverDone;
      // The socket was dropped early: most of the bomb was never even sent.
      expect(written).toBeLessThan(total / 2);
    }, 30_000);
  });

  describe('timeouts and cancellation', () => {
    it('times out a server that accepts the request and never answers', async () => {
      const server = await serve(() => undefined);
      const fetcher = fetcherFor(server, { requestTimeoutMs: 100, retries: 0 });
      const error = await failure(fetcher.fetch(`${server.origin}/stall`, { ignoreRobots: true }));
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toContain('/stall');
    });

    it('times out a body that stops half way', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
      });
      const fetcher = fetcherFor(server, { requestTimeoutMs: 100, retries: 0 });
      const error = await failure(fetcher.fetch(`${server.origin}/`, { ignoreRobots: true }));
      expect(error.code).toBe('TIMEOUT');
    });

    it('times out a connection whose TLS handshake never completes', async () => {
      const silent = await startSilentServer();
      servers.push(silent);
      const fetcher = fetcherFor(silent, { connectTimeoutMs: 100, requestTimeoutMs: 10_000, retries: 0 });
      const error = await failure(fetcher.fetch(`https://${silent.hostPort}/`, { ignoreRobots: true }));
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toContain('connection');
    });

    it('maps a timeout signal from the caller to TIMEOUT and a plain abort to ABORTED', async () => {
      const server = await serve(() => undefined);
      const fetcher = fetcherFor(server, { retries: 0 });
      const timedOut = await failure(
        fetcher.fetch(`${server.origin}/`, { ignoreRobots: true, signal: AbortSignal.timeout(50) }),
      );
      expect(timedOut.code).toBe('TIMEOUT');

      const controller = new AbortController();
      const pending = fetcher.fetch(`${server.origin}/`, { ignoreRobots: true, signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      expect((await failure(pending)).code).toBe('ABORTED');

      const aborted = new AbortController();
      aborted.abort();
      expect((await failure(fetcher.fetch(`${server.origin}/`, { signal: aborted.signal }))).code).toBe(
        'ABORTED',
      );
    });
  });

  describe('retries', () => {
    it('retries 503 with Retry-After and returns the later success', async () => {
      let calls = 0;
      const server = await serve(
        noRobots((_req, res) => {
          calls += 1;
          if (calls === 1) res.writeHead(503, { 'retry-after': '0' }).end();
          else if (calls === 2) res.writeHead(503, { 'retry-after': '1' }).end();
          else res.end('recovered');
        }),
      );
      const res = await fetcherFor(server).fetch(`${server.origin}/flaky`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('recovered');
      expect(calls).toBe(3);
    });

    it('retries 429 and transient connection resets', async () => {
      let calls = 0;
      const server = await serve(
        noRobots((req, res) => {
          calls += 1;
          if (calls === 1) res.writeHead(429).end();
          else if (calls === 2) req.socket.destroy();
          else res.end('ok');
        }),
      );
      const res = await fetcherFor(server).fetch(`${server.origin}/`);
      expect(res.status).toBe(200);
      expect(calls).toBe(3);
    });

    it('does not retry a 404 and returns it rather than throwing', async () => {
      let calls = 0;
      const server = await serve(
        noRobots((_req, res) => {
          calls += 1;
          res.writeHead(404).end('missing');
        }),
      );
      const res = await fetcherFor(server).fetch(`${server.origin}/missing`);
      expect(res.status).toBe(404);
      expect(calls).toBe(1);
    });

    it('returns the last 5xx once its retries are spent', async () => {
      let calls = 0;
      const server = await serve(
        noRobots((_req, res) => {
          calls += 1;
          res.writeHead(500).end();
        }),
      );
      const res = await fetcherFor(server, { retries: 2 }).fetch(`${server.origin}/`);
      expect(res.status).toBe(500);
      expect(calls).toBe(3);
    });

    it('reads Retry-After as seconds or as an HTTP date', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(retryAfterMs('3', now)).toBe(3000);
      expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
      expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
      expect(retryAfterMs('soon', now)).toBeUndefined();
      expect(retryAfterMs(undefined, now)).toBeUndefined();
    });
  });

  describe('robots.txt', () => {
    function robotsServer(
      robots: (res: ServerResponse) => void,
      counter: { robots: number; pages: number },
    ): Promise<TestServer> {
      return serve((req, res) => {
        if (req.url === '/robots.txt') {
          counter.robots += 1;
          robots(res);
          return;
        }
        counter.pages += 1;
        res.end(`page ${req.url}`);
      });
    }

    it('obeys the rules, fetching robots.txt once per origin', async () => {
      const counter = { robots: 0, pages: 0 };
      const server = await robotsServer(
        (res) =>
          res.end(
            'User-agent: *\nDisallow: /\n\nUser-agent: kbqa\nDisallow: /private\nAllow: /private/ok\nDisallow: /*.pdf$\nCrawl-delay: 0.01\n',
          ),
        counter,
      );
      const fetcher = fetcherFor(server);
      expect((await fetcher.fetch(`${server.origin}/docs`)).status).toBe(200);
      expect((await fetcher.fetch(`${server.origin}/private/ok/page`)).status).toBe(200);
      const error = await failure(fetcher.fetch(`${server.origin}/private/secret`));
      expect(error.code).toBe('FETCH_REFUSED');
      expect(error.message).toBe(`disallowed by robots.txt: ${server.origin}/private/secret`);
      expect((await failure(fetcher.fetch(`${server.origin}/file.pdf`))).code).toBe('FETCH_REFUSED');
      expect(await fetcher.isAllowedByRobots(`${server.origin}/file.pdf?x=1`)).toBe(true);
      expect(await fetcher.crawlDelay(`${server.origin}/`)).toBe(0.01);
      // ignoreRobots skips the check entirely.
      expect((await fetcher.fetch(`${server.origin}/private/secret`, { ignoreRobots: true })).status).toBe(
        200,
      );
      expect(counter.robots).toBe(1);
      expect(counter.pages).toBe(3);
    });

    it('refuses a host that resolves to a private address for that reason, not as disallowed by robots.txt', async () => {
      const lookup: LookupFn = () => Promise.resolve([{ address: '10.0.0.7', family: 4 }]);
      const fetcher = fetcherFor(undefined, { lookup });
      const error = await failure(fetcher.isAllowedByRobots('http://intranet.example/docs'));
      expect(error.code).toBe('FETCH_REFUSED');
      expect(error.message).toContain('host resolves to a private address');
      expect(error.message).not.toContain('robots');
    });

    it('uses the * group for another user agent', async () => {
      const counter = { robots: 0, pages: 0 };
      const server = await robotsServer(
        (res) => res.end('User-agent: *\nDisallow: /\n\nUser-agent: kbqa\nAllow: /\n'),
        counter,
      );
      const other = fetcherFor(server, { userAgent: 'OtherBot/1.0' });
      expect(await other.isAllowedByRobots(`${server.origin}/page`)).toBe(false);
      expect(await fetcherFor(server).isAllowedByRobots(`${server.origin}/page`)).toBe(true);
    });

    it('allows everything when robots.txt is 404', async () => {
      const counter = { robots: 0, pages: 0 };
      const server = await robotsServer((res) => res.writeHead(404).end(), counter);
      const fetcher = fetcherFor(server);
      expect((await fetcher.fetch(`${server.origin}/anything`)).status).toBe(200);
      expect(await fetcher.crawlDelay(`${server.origin}/`)).toBeUndefined();
    });

    it('disallows everything when robots.txt answers 500', async () => {
      const counter = { robots: 0, pages: 0 };
      const server = await robotsServer((res) => res.writeHead(500).end(), counter);
      const fetcher = fetcherFor(server, { retries: 1 });
      const error = await failure(fetcher.fetch(`${server.origin}/page`));
      expect(error.code).toBe('FETCH_REFUSED');
      expect(error.message).toContain('robots.txt');
      expect(counter.pages).toBe(0);
      expect(counter.robots).toBe(2); // first try plus one retry, then cached
      await failure(fetcher.fetch(`${server.origin}/other`));
      expect(counter.robots).toBe(2);
    });

    it('disallows everything when robots.txt is unreachable', async () => {
      const server = await serve((req) => req.socket.destroy());
      const fetcher = fetcherFor(server, { retries: 0 });
      expect(await fetcher.isAllowedByRobots(`${server.origin}/page`)).toBe(false);
    });

    it('follows a redirected robots.txt', async () => {
      const counter = { robots: 0, pages: 0 };
      const server = await serve((req, res) => {
        if (req.url === '/robots.txt') res.writeHead(301, { location: '/real-robots.txt' }).end();
        else if (req.url === '/real-robots.txt') {
          counter.robots += 1;
          res.end('User-agent: *\nDisallow: /nope\n');
        } else res.end('page');
      });
      const fetcher = fetcherFor(server);
      expect(await fetcher.isAllowedByRobots(`${server.origin}/nope`)).toBe(false);
      expect(await fetcher.isAllowedByRobots(`${server.origin}/yes`)).toBe(true);
      expect(counter.robots).toBe(1);
    });
  });

  describe('per-host concurrency', () => {
    it('never has more than perHostConcurrency requests in flight to one host', async () => {
      let active = 0;
      let peak = 0;
      let served = 0;
      const server = await serve(
        noRobots((_req, res) => {
          active += 1;
          peak = Math.max(peak, active);
          setTimeout(() => {
            active -= 1;
            served += 1;
            res.end('ok');
          }, 20);
        }),
      );
      const fetcher = fetcherFor(server, { perHostConcurrency: 2 });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => fetcher.fetch(`${server.origin}/p${i}`)),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(served).toBe(8);
      expect(peak).toBe(2);
    });
  });
});

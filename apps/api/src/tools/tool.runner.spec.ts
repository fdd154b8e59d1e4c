import type { IncomingMessage } from 'node:http';
import { type FetchOptions, type FetchResponse, KbqaError, type WebFetcher } from '@kbqa/core';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import { SECRET_MASK } from './tool-definition';
import { type RunnableTool, ToolRunner } from './tool.runner';

class FakeFetcher implements WebFetcher {
  calls: Array<{ url: string; options: FetchOptions }> = [];
  constructor(private readonly answer: (url: string) => FetchResponse) {}
  fetch(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    this.calls.push({ url, options });
    return Promise.resolve(this.answer(url));
  }
  isAllowedByRobots(): Promise<boolean> {
    return Promise.resolve(true);
  }
  crawlDelay(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }
}

const response = (
  status: number,
  body: string,
  contentType = 'application/json',
  truncated = false,
): FetchResponse => ({
  url: 'https://api.example.com/',
  status,
  headers: {},
  contentType,
  body: Buffer.from(body),
  redirects: [],
  truncated,
});

const tool: RunnableTool = {
  name: 'lookup',
  method: 'POST',
  url: 'https://api.example.com/items/{q}',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  headers: { 'X-Api-Key': 'top-secret-key' },
  body: { q: '{q}' },
};

describe(ToolRunner.name, () => {
  it('sends the filled URL, body and stored headers, and pretty-prints JSON with secrets redacted', async () => {
    const lines: string[] = [];
    const fetcher = new FakeFetcher(() => response(200, '{"echo":"top-secret-key","n":1}'));
    const runner = new ToolRunner(fetcher, { timeoutMs: 1000, maxBytes: 1000, log: (l) => lines.push(l) });
    const result = await runner.run(tool, { q: 'a b/c?' });
    expect(fetcher.calls[0]?.url).toBe('https://api.example.com/items/a%20b%2Fc%3F');
    expect(fetcher.calls[0]?.options).toMatchObject({
      method: 'POST',
      body: '{"q":"a b/c?"}',
      headers: { 'X-Api-Key': 'top-secret-key', 'content-type': 'application/json' },
      secretHeaders: ['X-Api-Key'],
      truncate: true,
      ignoreRobots: true,
    });
    expect(result).toEqual({
      ok: true,
      status: 200,
      output: JSON.stringify({ echo: SECRET_MASK, n: 1 }, null, 2),
      has_error: false,
    });
    expect(lines).toEqual(['tool lookup: HTTP 200']);
  });

  it('refuses arguments that do not fit the schema without sending anything', async () => {
    const fetcher = new FakeFetcher(() => response(200, '{}'));
    const result = await new ToolRunner(fetcher, { timeoutMs: 1000, maxBytes: 1000 }).run(tool, { q: 3 });
    expect(result.has_error).toBe(true);
    expect(result.error).toContain('invalid arguments: q:');
    expect(fetcher.calls).toHaveLength(0);
  });

  it('reports a server error and a refused fetch as has_error', async () => {
    const failing = new ToolRunner(new FakeFetcher(() => response(500, 'boom', 'text/plain')), {
      timeoutMs: 1000,
      maxBytes: 1000,
    });
    expect(await failing.run(tool, { q: 'x' })).toEqual({
      ok: false,
      status: 500,
      output: 'boom',
      has_error: true,
      error: "the tool's server answered HTTP 500",
    });
    const refused = new ToolRunner(
      new FakeFetcher(() => {
        throw new KbqaError('FETCH_REFUSED', 'refused 127.0.0.1: private address');
      }),
      { timeoutMs: 1000, maxBytes: 1000 },
    );
    expect(await refused.run(tool, { q: 'x' })).toMatchObject({
      ok: false,
      status: null,
      has_error: true,
      error: 'refused 127.0.0.1: private address',
    });
  });

  it('marks a truncated output', async () => {
    const runner = new ToolRunner(new FakeFetcher(() => response(200, '{"a":', 'application/json', true)), {
      timeoutMs: 1000,
      maxBytes: 5,
    });
    expect((await runner.run(tool, { q: 'x' })).output).toBe('{"a":\n[output truncated at 5 bytes]');
  });
});

describe(`${ToolRunner.name} with the safe fetcher`, () => {
  interface Seen {
    path: string;
    method: string;
    authorization?: string;
    key?: string;
    body: string;
  }

  /** A tool's API on 127.0.0.1: records every request, answers a route's redirect or 200. */
  const recorder = (seen: Seen[], routes: Record<string, [number, string]> = {}): Promise<TestServer> =>
    startServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        seen.push({
          path: req.url ?? '',
          method: req.method ?? '',
          authorization: req.headers['authorization'],
          key: req.headers['x-api-key'] as string | undefined,
          body,
        });
        const route = routes[req.url ?? ''];
        if (route) return void res.writeHead(route[0], { location: route[1] }).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });

  const atFirst: Seen[] = [];
  const atOther: Seen[] = [];
  let first: TestServer;
  let other: TestServer;
  let fetcher: SafeFetcher;
  let runner: ToolRunner;

  beforeAll(async () => {
    // Two ports of 127.0.0.1: two origins, both allowlisted so only the redirect rule is tested.
    other = await recorder(atOther);
    first = await recorder(atFirst, {
      '/found/x': [302, `${other.origin}/steal`],
      '/temporary/x': [307, `${other.origin}/steal`],
      '/moved/x': [307, '/items/x'],
    });
    fetcher = new SafeFetcher({ allowPrivateHosts: [first.hostPort, other.hostPort], retries: 0 });
    runner = new ToolRunner(fetcher, { timeoutMs: 5000, maxBytes: 10_000 });
  });
  afterAll(async () => {
    fetcher.close();
    await Promise.all([first.close(), other.close()]);
  });
  beforeEach(() => {
    atFirst.length = 0;
    atOther.length = 0;
  });

  const pointedAt = (path: string): RunnableTool => ({
    ...tool,
    url: `${first.origin}/${path}/{q}`,
    headers: { Authorization: 'Bearer tool-bearer-token', 'X-Api-Key': 'top-secret-key' },
  });

  it('follows a 302 to another origin without the Authorization and secret headers, as a GET', async () => {
    const result = await runner.run(pointedAt('found'), { q: 'x' });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(atFirst).toEqual([
      {
        path: '/found/x',
        method: 'POST',
        authorization: 'Bearer tool-bearer-token',
        key: 'top-secret-key',
        body: '{"q":"x"}',
      },
    ]);
    expect(atOther).toEqual([{ path: '/steal', method: 'GET', body: '' }]);
  });

  it('refuses a 307 to another origin, which receives neither the secrets nor the body', async () => {
    const result = await runner.run(pointedAt('temporary'), { q: 'x' });
    expect(result).toMatchObject({ ok: false, status: null, has_error: true });
    expect(result.error).toContain('another origin');
    expect(atFirst).toHaveLength(1);
    expect(atOther).toEqual([]);
  });

  it('keeps the secret headers and the body on a 307 within the same origin', async () => {
    const result = await runner.run(pointedAt('moved'), { q: 'x' });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(atFirst[1]).toEqual({
      path: '/items/x',
      method: 'POST',
      authorization: 'Bearer tool-bearer-token',
      key: 'top-secret-key',
      body: '{"q":"x"}',
    });
    expect(atOther).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { AddressPolicy } from './address.policy';
import { createGuardedFetch } from './guarded.fetch';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe(createGuardedFetch.name, () => {
  it('streams a response from an allowlisted private address, with method, headers and body', async () => {
    let got = '';
    const server = await startServer((req, res) => {
      req.on('data', (c: Buffer) => (got += c.toString('utf8')));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'text/plain', 'x-seen': String(req.headers['x-key']) });
        res.write('one ');
        res.end(`${req.method} two`);
      });
    });
    servers.push(server);
    const fetch = createGuardedFetch(new AddressPolicy({ allowPrivateHosts: [server.hostPort] }));
    const res = await fetch(`${server.origin}/x`, {
      method: 'POST',
      headers: { 'x-key': 'k1' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('k1');
    expect(await res.text()).toBe('one POST two');
    expect(got).toBe('{"a":1}');
  });

  it('refuses a private address that is not allowlisted, before connecting', async () => {
    let hits = 0;
    const server = await startServer((_req, res) => {
      hits++;
      res.end('no');
    });
    servers.push(server);
    const fetch = createGuardedFetch(new AddressPolicy({ allowlistSetting: 'KBQA_ALLOW_PRIVATE_HOSTS' }));
    await expect(fetch(`${server.origin}/x`)).rejects.toMatchObject({
      code: 'FETCH_REFUSED',
      message: expect.stringContaining('KBQA_ALLOW_PRIVATE_HOSTS') as unknown,
    });
    expect(hits).toBe(0);
  });

  it('ends a response larger than the cap with an error', async () => {
    const server = await startServer((_req, res) => res.end('x'.repeat(5000)));
    servers.push(server);
    const fetch = createGuardedFetch(new AddressPolicy({ allowPrivateHosts: [server.hostPort] }), {
      maxResponseBytes: 1000,
    });
    const res = await fetch(server.origin);
    await expect(res.text()).rejects.toThrow();
  });

  it('bounds the connection, not the wait for an answer, by the connect timeout', async () => {
    const server = await startServer((_req, res) => {
      setTimeout(() => res.end('late'), 300);
    });
    servers.push(server);
    const fetch = createGuardedFetch(new AddressPolicy({ allowPrivateHosts: [server.hostPort] }), {
      connectTimeoutMs: 100,
    });
    expect(await (await fetch(server.origin)).text()).toBe('late');
  });
});

import { describe, expect, it, jest } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { AddressPolicy, forbiddenAddressReason, type LookupFn } from './address.policy';

const publicLookup: LookupFn = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);

async function refusal(policy: AddressPolicy, url: string): Promise<KbqaError> {
  try {
    await policy.resolve(new URL(url));
  } catch (error) {
    if (error instanceof KbqaError) return error;
    throw error;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe(AddressPolicy.name, () => {
  it.each([
    ['127.0.0.1', 'loopback address'],
    ['10.1.2.3', 'private address'],
    ['172.16.0.1', 'private address'],
    ['172.31.255.255', 'private address'],
    ['192.168.0.1', 'private address'],
    ['169.254.1.1', 'link-local address'],
    ['100.64.0.1', 'carrier-grade NAT address'],
    ['0.0.0.0', 'unspecified address'],
    ['0.1.2.3', 'unspecified address'],
    ['224.0.0.1', 'multicast address'],
    ['255.255.255.255', 'broadcast address'],
    ['240.0.0.1', 'reserved address'],
    ['169.254.169.254', 'cloud metadata address'],
    ['100.100.100.200', 'cloud metadata address'],
    ['fd00:ec2::254', 'cloud metadata address'],
    ['::1', 'loopback address'],
    ['::', 'unspecified address'],
    ['fe80::1', 'link-local address'],
    ['fc00::1', 'unique-local address'],
    ['fd12:3456::1', 'unique-local address'],
    ['ff02::1', 'multicast address'],
    ['::ffff:127.0.0.1', 'loopback address (IPv6 form)'],
    ['::ffff:a9fe:a9fe', 'cloud metadata address (IPv6 form)'],
    ['::127.0.0.1', 'loopback address (IPv6 form)'],
    ['::ffff:0:10.0.0.1', 'private address (IPv6 form)'],
    ['64:ff9b::7f00:1', 'loopback address (IPv6 form)'],
    ['2002:c0a8:0101::1', 'private address (IPv6 form)'],
    ['2001:db8::1', 'reserved address'],
  ])('classifies %s as: %s', (ip, reason) => {
    expect(forbiddenAddressReason(ip)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'lets the public address %s through',
    (ip) => {
      expect(forbiddenAddressReason(ip)).toBeUndefined();
    },
  );

  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.000.000.001/',
    'http://①②⑦.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::1]/',
    'http://[::]/',
    'http://0/',
    'http://0.0.0.0/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://localhost.:8080/',
    'http://api.localhost/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://10.0.0.1/',
    'http://192.168.1.1:8080/',
    'http://[fe80::1]/',
    'http://user@127.0.0.1/',
    'http://user:secret@example.com/',
    'file:///etc/passwd',
    'ftp://example.com/',
    'gopher://example.com/',
  ])('refuses %s without resolving anything', async (url) => {
    const lookup = jest.fn(publicLookup);
    const error = await refusal(new AddressPolicy({ lookup }), url);
    expect(error.code).toBe('FETCH_REFUSED');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('never echoes credentials in its messages', async () => {
    const error = await refusal(
      new AddressPolicy({ lookup: publicLookup }),
      'http://user:secret@example.com/',
    );
    expect(error.message).not.toContain('secret');
    expect(error.message).toContain('credentials');
  });

  it('says how to allow a refused private address, naming the configured setting', async () => {
    const policy = new AddressPolicy({ lookup: publicLookup, allowlistSetting: 'KBQA_ALLOW_PRIVATE_HOSTS' });
    const error = await refusal(policy, 'http://127.0.0.1:4102/');
    expect(error.message).toContain('loopback address');
    expect(error.message).toContain('add 127.0.0.1:4102 to KBQA_ALLOW_PRIVATE_HOSTS');
  });

  it('lets an allowlisted address admit a host name that resolves to it, on the same port only', async () => {
    const lookup: LookupFn = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const policy = new AddressPolicy({ lookup, allowPrivateHosts: ['127.0.0.1:4102'] });
    await expect(policy.resolve(new URL('http://localhost:4102/docs'))).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    const other = await refusal(policy, 'http://localhost:4103/');
    expect(other.message).toContain('add localhost:4103 to allowPrivateHosts');
  });

  it('refuses a host name that resolves to loopback', async () => {
    const lookup: LookupFn = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const error = await refusal(new AddressPolicy({ lookup }), 'http://rebind.example/');
    expect(error.code).toBe('FETCH_REFUSED');
    expect(error.message).toContain('loopback');
    expect(error.message).not.toContain('127.0.0.1');
  });

  it('refuses a host name when any one of its addresses is forbidden', async () => {
    const lookup: LookupFn = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:10.0.0.5', family: 6 },
      ]);
    const error = await refusal(new AddressPolicy({ lookup }), 'https://mixed.example/');
    expect(error.code).toBe('FETCH_REFUSED');
  });

  it('returns every checked address of a public host', async () => {
    const lookup: LookupFn = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ]);
    const addresses = await new AddressPolicy({ lookup }).resolve(new URL('https://example.com/'));
    expect(addresses).toHaveLength(2);
  });

  it('reports a name that does not resolve as FETCH_FAILED', async () => {
    const lookup: LookupFn = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    const error = await refusal(new AddressPolicy({ lookup }), 'https://nowhere.example/');
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).not.toContain('getaddrinfo');
  });

  it('gives up on a DNS lookup that never answers with TIMEOUT', async () => {
    const lookup: LookupFn = () => new Promise(() => undefined);
    const error = await refusal(new AddressPolicy({ lookup, lookupTimeoutMs: 20 }), 'https://slow.example/');
    expect(error.code).toBe('TIMEOUT');
  });

  it('lets allowlisted hosts and host:port pairs reach private addresses, and only those', async () => {
    const lookup: LookupFn = () => Promise.resolve([{ address: '10.0.0.7', family: 4 }]);
    const policy = new AddressPolicy({
      lookup,
      allowPrivateHosts: ['127.0.0.1:8080', 'docs.internal', '[::1]:3000', 'wiki.internal:80'],
    });
    await expect(policy.resolve(new URL('http://127.0.0.1:8080/'))).resolves.toBeDefined();
    await expect(policy.resolve(new URL('http://127.1:8080/'))).resolves.toBeDefined();
    await expect(policy.resolve(new URL('https://docs.internal/a'))).resolves.toBeDefined();
    await expect(policy.resolve(new URL('https://docs.internal.:8443/a'))).resolves.toBeDefined();
    await expect(policy.resolve(new URL('http://[::1]:3000/'))).resolves.toBeDefined();
    await expect(policy.resolve(new URL('http://wiki.internal/'))).resolves.toBeDefined();

    expect((await refusal(policy, 'http://127.0.0.1:8081/')).code).toBe('FETCH_REFUSED');
    expect((await refusal(policy, 'http://127.0.0.1/')).code).toBe('FETCH_REFUSED');
    expect((await refusal(policy, 'https://wiki.internal/')).code).toBe('FETCH_REFUSED');
    expect((await refusal(policy, 'http://other.internal/')).code).toBe('FETCH_REFUSED');
    // The allowlist opens addresses, not the rest of the policy.
    expect((await refusal(policy, 'http://user@127.0.0.1:8080/')).code).toBe('FETCH_REFUSED');
  });
});

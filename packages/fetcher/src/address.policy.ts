import type { LookupAddress } from 'node:dns';
import type { RequestOptions } from 'node:http';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { KbqaError, type AddressGuard } from '@kbqa/core';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests never touch real DNS. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicyOptions {
  /**
   * Hosts (`docs.internal`, `127.0.0.1`) or host:port pairs (`127.0.0.1:8080`, `[::1]:3000`)
   * whose private or loopback addresses may be reached. Empty by default.
   */
  allowPrivateHosts?: readonly string[];
  /**
   * What refusals name as the way to allow a host (`KBQA_ALLOW_PRIVATE_HOSTS` in the service).
   * Default `allowPrivateHosts`, this option's own name.
   */
  allowlistSetting?: string;
  lookup?: LookupFn;
  /** Bound on DNS resolution; getaddrinfo cannot be cancelled, so the wait is raced instead. */
  lookupTimeoutMs?: number;
}

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);
/** Names that never need DNS to be known local (RFC 6761) or are well-known metadata endpoints. */
const LOCAL_NAMES = [
  /^localhost$/,
  /\.localhost$/,
  /^localhost\.localdomain$/,
  /^metadata\.google\.internal$/,
];

const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private address',
  uniqueLocal: 'unique-local address',
  reserved: 'reserved address',
};

export const defaultLookup: LookupFn = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Why an IP address must not be reached, or `undefined` when it is public unicast. IPv6 forms
 * that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address.
 */
export function forbiddenAddressReason(ip: string): string | undefined {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  const parsed = ipaddr.parse(ip);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) {
    return 'cloud metadata address';
  }
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? undefined : (RANGE_LABELS[range] ?? `${range} address`);
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'loopback' || range === 'unspecified') return RANGE_LABELS[range];
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) {
    const reason = forbiddenAddressReason(embedded);
    return reason === undefined ? undefined : `${reason} (IPv6 form)`;
  }
  if (range === 'unicast') return undefined;
  return RANGE_LABELS[range] ?? `${range} address`;
}

/** The IPv4 address an IPv6 address stands for, for the forms that route to it. */
function embeddedIPv4(v6: ipaddr.IPv6): string | undefined {
  const p = v6.parts;
  const fromParts = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const range = v6.range();
  // ::a.b.c.d (deprecated IPv4-compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145).
  if (p.slice(0, 5).every((x) => x === 0) && (p[5] === 0 || p[5] === 0xffff)) {
    return fromParts(p[6] ?? 0, p[7] ?? 0);
  }
  if (range === 'rfc6145') return fromParts(p[6] ?? 0, p[7] ?? 0);
  // Well-known NAT64 prefix 64:ff9b::/96; DNS64 networks hand these out for IPv4-only sites.
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) {
    return fromParts(p[6] ?? 0, p[7] ?? 0);
  }
  if (range === '6to4') return fromParts(p[1] ?? 0, p[2] ?? 0);
  return undefined;
}

/** Host name of a URL without IPv6 brackets or trailing dots, lower-cased. */
export function bareHostname(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '')
    .toLowerCase();
}

export function effectivePort(url: URL): string {
  if (url.port) return url.port;
  return url.protocol === 'https:' ? '443' : '80';
}

/** A URL as it may appear in a message: no credentials, bounded length. */
export function displayUrl(url: URL | string): string {
  let text: string;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    text = u.href;
  } catch {
    text = String(url);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * The address policy of kbqa: only http(s), no credentials in URLs, and only public unicast
 * addresses unless the host is allowlisted. Every address a name resolves to must pass, and
 * the fetcher connects to exactly the addresses checked here.
 */
export class AddressPolicy implements AddressGuard {
  private readonly allowHosts = new Set<string>();
  private readonly allowHostPorts = new Set<string>();
  private readonly lookup: LookupFn;
  private readonly lookupTimeoutMs: number;
  private readonly allowlistSetting: string;

  constructor(options: AddressPolicyOptions = {}) {
    this.lookup = options.lookup ?? defaultLookup;
    this.allowlistSetting = options.allowlistSetting ?? 'allowPrivateHosts';
    this.lookupTimeoutMs = options.lookupTimeoutMs ?? 10_000;
    for (const raw of options.allowPrivateHosts ?? []) {
      const entry = raw.trim();
      if (!entry) continue;
      let parsed: URL;
      try {
        parsed = new URL(`http://${entry}`);
      } catch {
        throw new KbqaError('BAD_REQUEST', `invalid entry in allowPrivateHosts: ${entry}`);
      }
      // Normalized through the URL parser so `127.1` and `127.0.0.1` name the same host.
      const host = bareHostname(parsed);
      if (parsed.port) this.allowHostPorts.add(`${host}:${parsed.port}`);
      else if (/:\d*$/.test(entry.replace(/^\[.*\]/, ''))) this.allowHostPorts.add(`${host}:80`);
      else this.allowHosts.add(host);
    }
  }

  /** Whether the URL's host, as written, may reach private addresses. */
  isAllowlisted(url: URL): boolean {
    return this.allows(bareHostname(url), effectivePort(url));
  }

  private allows(host: string, port: string): boolean {
    return this.allowHosts.has(host) || this.allowHostPorts.has(`${host}:${port}`);
  }

  /**
   * The refusal of a private address, saying how to allow it. The allowlist matches the host as
   * written or the address it resolves to, so `127.0.0.1:4102` in it also admits
   * `localhost:4102` (which resolves there); the hint names the host as written.
   */
  private refusal(url: URL, reason: string): KbqaError {
    const port = url.port ? `:${url.port}` : '';
    return new KbqaError(
      'FETCH_REFUSED',
      `refused ${displayUrl(url)}: ${reason}; kbqa does not fetch private addresses unless they are ` +
        `allowed: add ${bareHostname(url)}${port} to ${this.allowlistSetting} to allow it`,
    );
  }

  /** Checks what can be known without DNS: scheme, credentials, literal addresses, local names. */
  assertUrlShape(url: URL): void {
    const shown = displayUrl(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new KbqaError('FETCH_REFUSED', `refused ${shown}: only http and https URLs are fetched`);
    }
    if (url.username || url.password) {
      throw new KbqaError('FETCH_REFUSED', `refused ${shown}: URLs with credentials are not fetched`);
    }
    const host = bareHostname(url);
    if (!host) throw new KbqaError('FETCH_REFUSED', `refused ${shown}: no host`);
    if (this.isAllowlisted(url)) return;
    if (isIP(host)) {
      const reason = forbiddenAddressReason(host);
      if (reason) throw this.refusal(url, reason);
    } else if (
      LOCAL_NAMES.some((re) => re.test(host)) &&
      this.allowHostPorts.size + this.allowHosts.size === 0
    ) {
      // With an allowlist, a local name is judged by what it resolves to (in `resolve`).
      throw this.refusal(url, 'local host name');
    }
  }

  /**
   * Resolves the URL's host and returns the addresses to connect to, all of them checked.
   * Throws FETCH_REFUSED when any address is forbidden, FETCH_FAILED when the name does not
   * resolve, TIMEOUT when resolution is too slow.
   */
  async resolve(url: URL, signal?: AbortSignal): Promise<ResolvedAddress[]> {
    this.assertUrlShape(url);
    const host = bareHostname(url);
    const literal = isIP(host);
    if (literal) return [{ address: host, family: literal === 6 ? 6 : 4 }];

    const shown = displayUrl(url);
    let addresses: ResolvedAddress[];
    try {
      addresses = await raceLookup(this.lookup(host), this.lookupTimeoutMs, signal);
    } catch (error) {
      if (error instanceof KbqaError) {
        if (error.code === 'TIMEOUT') throw new KbqaError('TIMEOUT', `DNS lookup timed out for ${shown}`);
        throw error;
      }
      throw new KbqaError('FETCH_FAILED', `could not resolve the host of ${shown}`, { cause: error });
    }
    if (addresses.length === 0) {
      throw new KbqaError('FETCH_FAILED', `could not resolve the host of ${shown}`);
    }
    if (!this.isAllowlisted(url)) {
      const port = effectivePort(url);
      for (const { address } of addresses) {
        const reason = forbiddenAddressReason(address);
        if (!reason || this.allows(address, port)) continue;
        // The address itself is not echoed: it would map the internal network for the caller.
        throw this.refusal(url, `host resolves to a ${reason}`);
      }
      if (
        LOCAL_NAMES.some((re) => re.test(host)) &&
        addresses.every((a) => !forbiddenAddressReason(a.address))
      ) {
        // A local name that resolves somewhere public is still not what a user meant.
        throw this.refusal(url, 'local host name');
      }
    }
    return addresses;
  }
}

function raceLookup<T>(work: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      cleanup();
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new KbqaError('TIMEOUT', 'DNS lookup timed out'));
    }, timeoutMs);
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The error a cancelled operation ends with: TIMEOUT for a timeout signal, ABORTED otherwise. */
export function abortError(signal?: AbortSignal, url?: string): KbqaError {
  const reason: unknown = signal?.reason;
  const where = url ? ` while fetching ${url}` : '';
  if (reason instanceof KbqaError) return reason;
  // Duck-typed: AbortSignal.timeout() rejects with a DOMException, which may come from another realm.
  if (
    typeof reason === 'object' &&
    reason !== null &&
    (reason as { name?: unknown }).name === 'TimeoutError'
  ) {
    return new KbqaError('TIMEOUT', `timed out${where}`);
  }
  return new KbqaError('ABORTED', `aborted${where}`);
}

/**
 * A `lookup` for http(s).request that hands back the addresses the policy already checked, so the
 * socket connects to exactly those and DNS rebinding has no window.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): RequestOptions['lookup'] {
  const lookup = (
    _hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ): void => {
    if (options.all) {
      const all: LookupAddress[] = addresses.map((a) => ({ address: a.address, family: a.family }));
      callback(null, all);
    } else {
      const first = addresses[0];
      if (first) callback(null, first.address, first.family);
      else callback(new Error('no address'));
    }
  };
  return lookup as unknown as RequestOptions['lookup'];
}

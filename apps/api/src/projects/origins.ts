import { KbqaError } from '@kbqa/core';

/** The one value that lets any origin embed a project's widget; only ever set explicitly. */
export const ANY_ORIGIN = '*';
/** More than this many sites is a misconfiguration (or an attempt to bloat every preflight). */
export const MAX_ORIGINS = 100;

/**
 * Checks an operator's list of widget origins and returns it as stored: trimmed, a trailing slash
 * dropped, duplicates removed. Each entry must be an exact origin (`http` or `https`, host,
 * optional port, nothing else), or the list must be `*` alone. Browsers send the `Origin` header
 * in exactly this form, which is why anything else (a path, upper case, a default port) is
 * refused with the form that would match instead of being silently rewritten.
 */
export function normalizeOrigins(input: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of input) {
    if (typeof raw !== 'string') throw new KbqaError('BAD_REQUEST', 'each origin must be a string');
    let value = raw.trim();
    if (value === '') continue;
    if (value !== ANY_ORIGIN && value.endsWith('/')) value = value.slice(0, -1);
    if (value === ANY_ORIGIN) {
      out.push(value);
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new KbqaError(
        'BAD_REQUEST',
        `"${raw}" is not an origin: expected http(s)://host[:port], for example https://docs.example.com`,
      );
    }
    if (url.hostname.includes('*')) {
      // A valid host to the URL parser, but no browser sends it: the operator meant a pattern.
      throw new KbqaError(
        'BAD_REQUEST',
        `"${raw}": wildcard hosts are not supported; list each origin, or set "*" alone for any`,
      );
    }
    if (url.origin !== value) {
      throw new KbqaError(
        'BAD_REQUEST',
        `"${raw}" is not an exact origin (scheme, host and port only, as browsers send it): ` +
          `did you mean ${url.origin}?`,
      );
    }
    if (!out.includes(value)) out.push(value);
  }
  if (out.includes(ANY_ORIGIN) && out.length > 1) {
    throw new KbqaError('BAD_REQUEST', '"*" (any origin) must be the only entry when it is set');
  }
  if (out.length > MAX_ORIGINS) {
    throw new KbqaError('BAD_REQUEST', `at most ${MAX_ORIGINS} origins per project`);
  }
  return out;
}

/** Whether a project's stored list admits a page of `origin`. */
export function originListed(allowed: readonly string[], origin: string): boolean {
  return allowed.includes(ANY_ORIGIN) || allowed.includes(origin);
}

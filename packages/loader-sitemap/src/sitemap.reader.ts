import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { KbqaError, skipCodeOf, throwIfAborted, type SkippedItem, type WebFetcher } from '@kbqa/core';

const gunzipAsync = promisify(gunzip);

/** Limits of one sitemap read; defaults suit a large documentation site. */
export interface SitemapLimits {
  /** Page URLs yielded at most. Default 10 000. */
  maxUrls?: number;
  /** Bytes of one sitemap file, decompressed. Default 10 MiB. */
  maxFileBytes?: number;
  /** Bytes of all sitemap files together, decompressed. Default 50 MiB. */
  maxTotalBytes?: number;
  /** Levels of sitemap index below the first file. Default 10. */
  maxDepth?: number;
  /** Told about each nested sitemap or URL passed over, and why. */
  onSkipped?: (item: SkippedItem) => void;
  /** Called with an entry's `<lastmod>` just before its page URL is yielded (a sync compares it). */
  onLastmod?: (page: string, lastmod: string) => void;
}

const DEFAULTS = {
  maxUrls: 10_000,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxDepth: 10,
};

const SITEMAP_ACCEPT = 'application/xml,text/xml;q=0.9,application/gzip;q=0.8,text/plain;q=0.5,*/*;q=0.1';

// Entities are left unexpanded (processEntities: false), so a DOCTYPE cannot blow up memory;
// the five predefined ones and character references are decoded by hand in `decodeXmlText`.
const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

/** Whether a body is a sitemap (urlset or sitemap index), whatever its content type says. */
export function looksLikeSitemap(body: string): boolean {
  return /<(?:\w+:)?(urlset|sitemapindex)[\s>]/.test(body.slice(0, 4096));
}

interface ParsedSitemap {
  kind: 'index' | 'urlset';
  locations: string[];
  /** `<lastmod>` by `<loc>`, for entries that carry one. */
  lastmods?: Map<string, string>;
}

/**
 * Yields the page URLs of a sitemap or sitemap index (XML or text, gzipped or not), reading
 * nested sitemaps of the same host depth-first, at most `maxDepth` levels deep, each once.
 * The first file failing is an error; a nested one failing is reported through `onSkipped`.
 */
export async function* readSitemap(
  url: string,
  fetcher: WebFetcher,
  limits: SitemapLimits = {},
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const maxUrls = limits.maxUrls ?? DEFAULTS.maxUrls;
  const maxFileBytes = limits.maxFileBytes ?? DEFAULTS.maxFileBytes;
  const maxTotalBytes = limits.maxTotalBytes ?? DEFAULTS.maxTotalBytes;
  const maxDepth = limits.maxDepth ?? DEFAULTS.maxDepth;
  const skip = (item: SkippedItem): void => limits.onSkipped?.(item);

  const root = new URL(url);
  const seenSitemaps = new Set<string>();
  const seenPages = new Set<string>();
  let totalBytes = 0;
  const stack: Array<{ url: string; depth: number }> = [{ url: root.href, depth: 0 }];

  while (stack.length > 0) {
    const { url: current, depth } = stack.pop()!;
    throwIfAborted(signal);
    const isRoot = depth === 0;
    const remaining = maxTotalBytes - totalBytes;
    if (remaining <= 0) {
      skip({ url: current, code: 'LIMIT', reason: `sitemap byte budget of ${maxTotalBytes} bytes spent` });
      continue;
    }

    let parsed: ParsedSitemap;
    try {
      const text = await fetchSitemap(current, fetcher, Math.min(maxFileBytes, remaining), isRoot, signal);
      totalBytes += Buffer.byteLength(text);
      parsed = parseSitemap(text, current);
    } catch (error) {
      const kbqa = KbqaError.from(error);
      if (isRoot || kbqa.code === 'ABORTED' || signal?.aborted) throw kbqa;
      skip({ url: current, code: skipCodeOf(kbqa), reason: kbqa.message });
      continue;
    }

    if (parsed.kind === 'urlset') {
      for (const loc of parsed.locations) {
        const page = httpUrl(loc, current);
        if (!page) {
          skip({ url: loc.slice(0, 300), code: 'INVALID_URL', reason: 'not an http(s) URL' });
          continue;
        }
        if (seenPages.has(page)) continue;
        if (seenPages.size >= maxUrls) {
          skip({
            url: current,
            code: 'LIMIT',
            reason: `URL cap of ${maxUrls} reached; remaining URLs ignored`,
          });
          return;
        }
        seenPages.add(page);
        const lastmod = parsed.lastmods?.get(loc);
        if (lastmod) limits.onLastmod?.(page, lastmod);
        yield page;
      }
      continue;
    }

    // Pushed in reverse so the index is read in document order.
    for (const loc of [...parsed.locations].reverse()) {
      const nested = httpUrl(loc, current);
      if (!nested) {
        skip({ url: loc.slice(0, 300), code: 'INVALID_URL', reason: 'not an http(s) URL' });
        continue;
      }
      if (new URL(nested).host !== root.host) {
        skip({ url: nested, code: 'OFF_SITE', reason: `nested sitemap on another host than ${root.host}` });
        continue;
      }
      if (seenSitemaps.has(nested) || nested === root.href) {
        skip({ url: nested, code: 'DUPLICATE', reason: 'sitemap already read (loop)' });
        continue;
      }
      if (depth + 1 > maxDepth) {
        skip({ url: nested, code: 'LIMIT', reason: `sitemap nested more than ${maxDepth} levels deep` });
        continue;
      }
      seenSitemaps.add(nested);
      stack.push({ url: nested, depth: depth + 1 });
    }
  }
}

async function fetchSitemap(
  url: string,
  fetcher: WebFetcher,
  maxBytes: number,
  isRoot: boolean,
  signal: AbortSignal | undefined,
): Promise<string> {
  // The operator named the first file; nested ones are the site's own and obey its robots.txt.
  const res = await fetcher.fetch(url, { signal, accept: SITEMAP_ACCEPT, maxBytes, ignoreRobots: isRoot });
  if (res.status < 200 || res.status >= 300) {
    throw new KbqaError('FETCH_FAILED', `could not read sitemap ${url}: HTTP ${res.status}`);
  }
  let body = res.body;
  // `.xml.gz` files come as application/gzip without Content-Encoding; the magic bytes decide.
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      body = await gunzipAsync(body, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new KbqaError('TOO_LARGE', `sitemap ${url} is larger than ${maxBytes} bytes decompressed`);
      }
      throw new KbqaError('FETCH_FAILED', `sitemap ${url} is not valid gzip`);
    }
  }
  return body.toString('utf8');
}

/** Reads an XML sitemap (`<urlset>` or `<sitemapindex>`) or a text sitemap (one URL a line). */
export function parseSitemap(text: string, url: string): ParsedSitemap {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) {
    const lines = trimmed
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.length > 0 && lines.every((l) => /^https?:\/\/\S+$/i.test(l)))
      return { kind: 'urlset', locations: lines };
    throw new KbqaError('UNSUPPORTED', `${url} is not a sitemap`);
  }
  let doc: unknown;
  try {
    doc = parser.parse(trimmed);
  } catch {
    throw new KbqaError('UNSUPPORTED', `${url} is not a well-formed XML sitemap`);
  }
  const record = (doc ?? {}) as Record<string, unknown>;
  const index = record['sitemapindex'];
  if (index !== undefined) return { kind: 'index', locations: locations(index, 'sitemap') };
  const urlset = record['urlset'];
  if (urlset !== undefined)
    return { kind: 'urlset', locations: locations(urlset, 'url'), lastmods: lastmods(urlset) };
  throw new KbqaError('UNSUPPORTED', `${url} is not a sitemap (no <urlset> or <sitemapindex>)`);
}

function locations(container: unknown, entry: 'url' | 'sitemap'): string[] {
  if (typeof container !== 'object' || container === null) return [];
  const entries = (container as Record<string, unknown>)[entry];
  if (!Array.isArray(entries)) return [];
  const found: string[] = [];
  for (const item of entries) {
    const loc =
      typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['loc'] : undefined;
    if (typeof loc === 'string' && loc.trim()) found.push(decodeXmlText(loc.trim()));
  }
  return found;
}

/** `<lastmod>` of each `<url>` that has one, by its decoded `<loc>`. */
function lastmods(container: unknown): Map<string, string> {
  const found = new Map<string, string>();
  if (typeof container !== 'object' || container === null) return found;
  const entries = (container as Record<string, unknown>)['url'];
  if (!Array.isArray(entries)) return found;
  for (const item of entries) {
    if (typeof item !== 'object' || item === null) continue;
    const { loc, lastmod } = item as Record<string, unknown>;
    if (typeof loc === 'string' && typeof lastmod === 'string' && lastmod.trim())
      found.set(decodeXmlText(loc.trim()), lastmod.trim());
  }
  return found;
}

/** Decodes the predefined XML entities and character references; nothing else is expanded. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (match, name: string) => {
    const lower = name.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos') return "'";
    const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

function httpUrl(value: string, base: string): string | undefined {
  try {
    const url = new URL(value, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

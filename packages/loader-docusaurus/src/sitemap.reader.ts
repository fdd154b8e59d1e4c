import { gunzipSync } from 'node:zlib';
import { KbqaError, type SkippedItem, type WebFetcher } from '@kbqa/core';

// A minimal sitemap reader so this loader does not wait for @kbqa/loader-sitemap; same
// signature as its `readSitemap`, to be replaced by it once that package is published.

export interface SitemapLimits {
  /** Page URLs yielded at most. Default 10,000. */
  maxUrls?: number;
  /** Bytes of one sitemap file, decompressed. Default 10 MiB. */
  maxFileBytes?: number;
  /** Levels of sitemap index below the first file. Default 3. */
  maxDepth?: number;
  onSkipped?: (item: SkippedItem) => void;
}

const ACCEPT = 'application/xml,text/xml;q=0.9,application/gzip;q=0.8,*/*;q=0.1';

/** Whether a body is a sitemap (urlset or sitemap index), whatever its content type says. */
export function looksLikeSitemap(body: string): boolean {
  return /<(?:\w+:)?(urlset|sitemapindex)[\s>]/.test(body.slice(0, 4096));
}

/** `<loc>` values of a sitemap document, entity-decoded, and whether it is an index. */
export function parseSitemap(xml: string): { index: boolean; locations: string[] } {
  const index = /<(?:\w+:)?sitemapindex[\s>]/.test(xml.slice(0, 4096));
  const locations: string[] = [];
  const loc = /<(?:\w+:)?loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/(?:\w+:)?loc>/g;
  let match: RegExpExecArray | null;
  while ((match = loc.exec(xml)) !== null) locations.push(decodeXml((match[1] ?? '').trim()));
  return { index, locations };
}

function decodeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (whole, name: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[name.toLowerCase()]) return named[name.toLowerCase()]!;
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
  });
}

/**
 * Yields the page URLs of a sitemap or sitemap index (gzipped or not), reading nested sitemaps
 * of the same origin depth-first, each once. The first file failing is an error; a nested one
 * failing is reported through `onSkipped`.
 */
export async function* readSitemap(
  url: string,
  fetcher: WebFetcher,
  limits: SitemapLimits = {},
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const maxUrls = limits.maxUrls ?? 10_000;
  const maxFileBytes = limits.maxFileBytes ?? 10 * 1024 * 1024;
  const maxDepth = limits.maxDepth ?? 3;
  const origin = new URL(url).origin;
  const seen = new Set<string>();
  const stack = [{ url, depth: 0 }];
  let yielded = 0;
  while (stack.length > 0) {
    const { url: current, depth } = stack.pop()!;
    if (signal?.aborted) throw new KbqaError('ABORTED', 'the sitemap read was cancelled');
    if (seen.has(current)) continue;
    seen.add(current);
    let xml: string;
    try {
      xml = await fetchSitemap(current, fetcher, maxFileBytes, signal);
    } catch (error) {
      const err = KbqaError.from(error);
      if (depth === 0 || err.code === 'ABORTED') throw err;
      limits.onSkipped?.({ url: current, reason: `nested sitemap: ${err.code}: ${err.message}` });
      continue;
    }
    const { index, locations } = parseSitemap(xml);
    if (index) {
      for (const loc of locations.reverse()) {
        if (depth + 1 > maxDepth)
          limits.onSkipped?.({ url: loc, reason: `sitemap nested deeper than ${maxDepth}` });
        else if (sameOrigin(loc, origin)) stack.push({ url: loc, depth: depth + 1 });
        else limits.onSkipped?.({ url: loc, reason: 'nested sitemap on another origin' });
      }
      continue;
    }
    for (const loc of locations) {
      if (yielded >= maxUrls) {
        limits.onSkipped?.({ url: loc, reason: `sitemap URL limit of ${maxUrls} reached` });
        continue;
      }
      yielded += 1;
      yield loc;
    }
  }
}

async function fetchSitemap(
  url: string,
  fetcher: WebFetcher,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<string> {
  const res = await fetcher.fetch(url, {
    accept: ACCEPT,
    maxBytes,
    ignoreRobots: true,
    ...(signal ? { signal } : {}),
  });
  if (res.status < 200 || res.status >= 300)
    throw new KbqaError('FETCH_FAILED', `sitemap ${url}: HTTP ${res.status}`);
  let body = res.body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      body = gunzipSync(body, { maxOutputLength: maxBytes });
    } catch (error) {
      throw new KbqaError('TOO_LARGE', `sitemap ${url} could not be decompressed within ${maxBytes} bytes`, {
        cause: error,
      });
    }
  }
  const xml = body.toString('utf8');
  if (!looksLikeSitemap(xml)) throw new KbqaError('UNSUPPORTED', `${url} is not a sitemap`);
  return xml;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

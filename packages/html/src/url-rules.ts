import { KbqaError, type LoadContext } from '@kbqa/core';

/**
 * The form under which the crawler compares URLs: http(s) only; scheme and host lower-cased
 * and the default port dropped (WHATWG URL parsing does both); credentials and fragment
 * removed; a trailing slash removed from every path but `/`; query parameters sorted by name
 * (order within a name kept), `utm_*` tracking parameters removed and an empty query dropped.
 * Returns undefined for URLs that are not http(s).
 */
export function normalizeUrl(input: string | URL, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  url.username = '';
  url.password = '';
  if (url.pathname.length > 1 && url.pathname.endsWith('/'))
    url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  if (url.href.includes('?')) {
    const params = [...url.searchParams].filter(([name]) => !/^utm_/i.test(name));
    params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(params).toString();
  }
  return url.href;
}

/** A compiled `includePaths` / `excludePaths` list: true when any pattern matches the path. */
export interface PathMatcher {
  (path: string): boolean;
  /** The patterns, as given, that have matched none of the paths asked about so far. */
  unmatched(): string[];
}

/**
 * Compiles `includePaths` / `excludePaths` patterns. A pattern is matched against the whole URL
 * pathname (normalized: no trailing slash except `/`, percent-encoding as in the URL). A pattern
 * without `*` matches that path and every path under it: `/docs/graphql` matches `/docs/graphql`,
 * `/docs/graphql/` and `/docs/graphql/x`, not `/docs/graphql-old` (people write a folder and mean
 * all of it). With `*`, the pattern is the whole path and `*` any run of characters, `/`
 * included: `/docs/*` matches `/docs/a` and `/docs/a/b` but not `/docs`; `*.html` any path ending
 * so. `/` alone matches the home page only. Patterns must start with `/` or `*`.
 */
export function pathMatcher(patterns: readonly string[] | undefined, field: string): PathMatcher | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const regexes = patterns.map((pattern) => {
    if (typeof pattern !== 'string' || !/^[/*]/.test(pattern) || pattern.length > 500) {
      throw new KbqaError(
        'BAD_REQUEST',
        `${field} entries must be paths starting with / or *, got ${String(pattern).slice(0, 100)}`,
      );
    }
    const trimmed = pattern.length > 1 ? pattern.replace(/\/+$/, '') || '/' : pattern;
    const source = trimmed
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    if (trimmed.includes('*')) return new RegExp(`^${source}$`);
    // Every path is under `/`: as a prefix it would filter nothing, so it names the home page.
    return trimmed === '/' ? /^\/$/ : new RegExp(`^${source}(?:/.*)?$`);
  });
  const matched = new Array<boolean>(regexes.length).fill(false);
  const match = (path: string): boolean => {
    let any = false;
    // Every pattern is tried, not only up to the first match, so that unmatched() is exact.
    regexes.forEach((re, i) => {
      if (re.test(path)) matched[i] = any = true;
    });
    return any;
  };
  return Object.assign(match, {
    unmatched: () => patterns.filter((_, i) => !matched[i]),
  });
}

/** Tells a load's context which of its include and exclude patterns matched no URL it met. */
export function reportUnmatchedPaths(
  context: Pick<LoadContext, 'unmatchedPaths'>,
  include: PathMatcher | undefined,
  exclude: PathMatcher | undefined,
): void {
  const unmatchedInclude = include?.unmatched() ?? [];
  const unmatchedExclude = exclude?.unmatched() ?? [];
  if (unmatchedInclude.length > 0) context.unmatchedPaths?.('includePaths', unmatchedInclude);
  if (unmatchedExclude.length > 0) context.unmatchedPaths?.('excludePaths', unmatchedExclude);
}

const BINARY_EXTENSIONS = new Set(
  (
    'pdf png jpg jpeg gif webp avif bmp tif tiff ico svg psd mp3 mp4 m4a m4v webm ogg ogv wav flac avi mov mkv ' +
    'zip gz tgz bz2 xz 7z rar tar jar war dmg iso exe msi deb rpm apk bin wasm woff woff2 ttf otf eot ' +
    'css js mjs cjs map json xml rss atom csv tsv xls xlsx doc docx ppt pptx odt ods epub txt yaml yml'
  ).split(' '),
);

/** The extension of a path when it names a file type that is never an HTML page. */
export function nonHtmlExtension(pathname: string): string | undefined {
  const ext = /\.([a-z0-9]{1,5})$/i.exec(pathname)?.[1]?.toLowerCase();
  return ext && BINARY_EXTENSIONS.has(ext) ? ext : undefined;
}

/**
 * Checks a site loader's request before any task exists: an http(s) URL without credentials,
 * and well-formed include/exclude patterns. `what` names the action in messages ("crawled").
 */
export function validateSiteRequest(
  request: { url: string; includePaths?: string[]; excludePaths?: string[] },
  what: string,
): void {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new KbqaError('BAD_REQUEST', `not a valid URL: ${String(request.url).slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KbqaError('BAD_REQUEST', `only http and https sites can be ${what}, got ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new KbqaError('BAD_REQUEST', `URLs with credentials cannot be ${what}`);
  pathMatcher(request.includePaths, 'includePaths');
  pathMatcher(request.excludePaths, 'excludePaths');
}

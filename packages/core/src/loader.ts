import type { KbqaError } from './errors';
import type { LoadedDocument } from './documents';

/** Every type an index can have: those `ingestData` accepts and the operator-only ones. */
export const SOURCE_TYPES = [
  'website-crawler',
  'docusaurus',
  'github',
  'youtube',
  'url',
  'sitemap',
  'openapi',
  'folder',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/**
 * Types only the operator creates (the operator API, the command line), never a project API key:
 * a watched `folder` reads the server's own file system.
 */
export const OPERATOR_ONLY_TYPES: readonly SourceType[] = ['folder'];

/** The types `ingestData` accepts. */
export const INGEST_DATA_TYPES: readonly SourceType[] = SOURCE_TYPES.filter(
  (t) => !OPERATOR_ONLY_TYPES.includes(t),
);

/** What a client asked `ingestData` for. */
export interface LoadRequest {
  url: string;
  includePaths?: string[];
  excludePaths?: string[];
  /** The index's `version_pattern`: a regular expression whose first group is a path's version. */
  versionPattern?: string;
  /** The index's `default_version`: the version readers get without asking for one. */
  defaultVersion?: string;
}

/** Progress a loader reports; `current_step` of the task is `step`. */
export interface LoadProgress {
  step: 'SCRAPING' | 'EMBEDDING' | 'CLONING' | 'INDEXING';
  /** Units done so far (pages, files, passages). */
  current: number;
  /** Units known so far; may grow while crawling. */
  total: number;
  /** A short human-readable note (last URL, skipped reason). */
  message?: string;
}

/** Something a loader passed over and why; surfaced in task results and logs. */
/** Why an item was passed over: one word a report can count and filter by. */
export type SkipCode =
  /** disallowed by robots.txt */
  | 'ROBOTS'
  /** a file that is not a page or document (PDF, image, binary) */
  | 'NOT_HTML'
  /** on another host or origin, or outside the site's base path */
  | 'OFF_SITE'
  /** left out by includePaths/excludePaths, or not documentation (vendored folders, non-docs pages) */
  | 'FILTERED'
  /** past a page, depth, file, URL or byte limit */
  | 'LIMIT'
  /** the same page or text as one already indexed */
  | 'DUPLICATE'
  /** nothing to index (empty, or needs JavaScript) */
  | 'NO_CONTENT'
  | 'TOO_LARGE'
  | 'INVALID_URL'
  /** the page answered 404 or 410: it is gone (a sync removes it from the index) */
  | 'GONE'
  /** fetching or reading it failed; the reason says how */
  | 'FAILED'
  /** a file of a type kbqa cannot read (an upload or a watched folder) */
  | 'UNSUPPORTED'
  /** a file protected by a password (an encrypted PDF) */
  | 'ENCRYPTED'
  /** a file whose bytes do not make the format its name or header says (broken, truncated) */
  | 'CORRUPT';

export interface SkippedItem {
  url: string;
  code: SkipCode;
  /** What happened, for people (without the code glued in). */
  reason: string;
}

/** The skip code of an error that made a loader pass an item over. */
export function skipCodeOf(error: KbqaError): SkipCode {
  if (error.code === 'FETCH_REFUSED') return /robots\.txt/i.test(error.message) ? 'ROBOTS' : 'FAILED';
  if (error.code === 'TOO_LARGE' || error.code === 'PAYLOAD_TOO_LARGE') return 'TOO_LARGE';
  if (error.code === 'NO_CONTENT') return 'NO_CONTENT';
  if (error.code === 'UNSUPPORTED') return 'NOT_HTML';
  return 'FAILED';
}

/**
 * What a source held when it was last loaded, so that a sync asks only for what changed:
 * HTTP validators for a conditional request, the sitemap's `lastmod`, a git blob id, and the
 * links a page had (a crawl that gets a 304 still follows them).
 */
export interface PageVersion {
  /** The URL the page was fetched from, when it differs from its source (a canonical URL). */
  url?: string;
  etag?: string;
  lastModified?: string;
  /** `<lastmod>` of the page's sitemap entry. */
  lastmod?: string;
  /** Git blob id of a repository file. */
  blob?: string;
  /** sha256 of the fetched body: the same bytes again are unchanged without extracting them. */
  bodyHash?: string;
  /** Links found on the page (site crawls only). */
  links?: string[];
  /**
   * A file of a watched folder: its modification time (ms), size and inode, so a file whose
   * three are unchanged is not read again (a rename over it changes the inode).
   */
  file?: { mtimeMs: number; size: number; ino: number };
}

/** A source the index already holds, as a loader sees it during a sync. */
export interface KnownSource {
  source: string;
  version: PageVersion;
}

export interface LoadContext {
  /** Aborted when the task is cancelled or the process shuts down. */
  signal: AbortSignal;
  progress(progress: LoadProgress): void;
  /** Reports an item that was not ingested (robots.txt, not HTML, too large...). */
  skipped?(item: SkippedItem): void;
  /**
   * Reports, once when a load ends, the `includePaths` or `excludePaths` patterns of the request
   * that matched none of the URLs it met (a typo, or a part of the site nothing links to), so the
   * task's report can say that a filter filtered nothing.
   */
  unmatchedPaths?(field: 'includePaths' | 'excludePaths', patterns: string[]): void;
  /**
   * During a sync: what the index holds for a URL (a source, or the URL a source was fetched
   * from), for a conditional request. Undefined on a first load.
   */
  known?(url: string): KnownSource | undefined;
  /**
   * Reports a source that is known and did not change (a 304, the same `lastmod` or blob id): the
   * index keeps it as it is, without fetching, chunking or embedding it again.
   */
  unchanged?(source: string): void;
}

/**
 * A source of documents for one `type` of `ingestData`. Loaders take their collaborators
 * (fetcher, limits) through their constructor options and yield documents lazily so a large
 * site streams through the pipeline instead of being held in memory.
 */
export interface SourceLoader {
  readonly type: SourceType;
  /**
   * Checks the request before a task is created, so a bad URL is a 400 at `ingestData`
   * rather than a failed task. Throws a `KbqaError` with code `BAD_REQUEST`.
   */
  validate(request: LoadRequest): void;
  /** Yields the documents of the source. Throws `KbqaError` when the whole load fails. */
  load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument>;
}

/**
 * The URL an index is known by: the request's URL, trimmed, without its fragment. `ingestData`
 * with the same type and this URL in a project re-syncs that index.
 */
export function indexUrl(url: string): string {
  try {
    const u = new URL(url.trim());
    u.hash = '';
    return u.href;
  } catch {
    return url.trim();
  }
}

import { KbqaError } from './errors';
import type { DocumentMetadata } from './documents';

/**
 * Versioned documentation: the same page is served once per version (`/docs/2.x/intro`,
 * `/en/v1.4/api.html`, `/v2/guide`). Each page's version is kept in its metadata, so retrieval can
 * keep one copy per page: the version asked for, or the site's default one.
 *
 * Metadata fields a versioned page carries:
 * - `version`: the version's name as the site spells it ("2.x", "v1.4", "latest");
 * - `version_default`: 1 for the copy a reader gets without asking for a version, 0 for the
 *   others. A number, not a boolean: `where` filters read booleans as absent in both stores.
 */
export const VERSION_FIELD = 'version';
export const VERSION_DEFAULT_FIELD = 'version_default';

/** Read the Docs' URL scheme: `/<language>/<version>/…`, the language a 2-letter code or `xx-yy`. */
const READ_THE_DOCS_PATH = /^\/([a-z]{2}(?:[-_][a-z]{2,4})?)\/([^/]+)(?=\/|$)/i;
/** Read the Docs hosts its projects here; other hosts use its scheme only when the page says so. */
const READ_THE_DOCS_HOST = /(^|\.)(readthedocs\.io|readthedocs-hosted\.com|readthedocs\.org)$/i;
/** Read the Docs' default versions: what `/<language>/` redirects to on most projects. */
const READ_THE_DOCS_DEFAULTS = new Set(['stable', 'latest']);
/** Docusaurus names the unreleased version it serves under `/next/` "current". */
const DOCUSAURUS_CURRENT = 'current';

/** What a page tells about its version, read from its HTML. */
export interface PageVersionHints {
  /** `<meta name="docusaurus_version">`. */
  docusaurus?: string;
  /** `<meta name="readthedocs-version-slug">` (Read the Docs' addons). */
  readTheDocs?: string;
}

/** A page's version, when it has one. */
export interface VersionStamp {
  version: string;
  /** The copy readers get without asking for a version. */
  isDefault: boolean;
}

/**
 * The operator's `version_pattern`: a regular expression over the URL's path whose first group
 * (or whole match) is the version; pages it does not match have no version.
 */
export function parseVersionPattern(pattern: string): RegExp {
  if (pattern.length > 200)
    throw new KbqaError('BAD_REQUEST', 'version_pattern is longer than 200 characters');
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (e) {
    throw new KbqaError(
      'BAD_REQUEST',
      `version_pattern is not a regular expression: ${(e as Error).message}`,
    );
  }
  return regex;
}

/** The version a path matches under `pattern`: its first group, else the whole match. */
export function versionFromPattern(path: string, pattern: RegExp): string | undefined {
  const m = pattern.exec(path);
  if (!m) return undefined;
  const version = (m[1] ?? m[0]).replace(/^\/+|\/+$/g, '');
  return version || undefined;
}

/**
 * The version of the page at `url`, from (in order) the operator's pattern, the page's own
 * Docusaurus or Read the Docs meta tags, and Read the Docs' URL scheme on its hosts. Docusaurus
 * serves its default version without a version segment in the path: a page whose path lacks its
 * version's segment is the default copy. A pattern names non-default copies (a site keeps its
 * current docs unprefixed), unless `defaultVersion` names the version that is; with it named,
 * the pages the pattern does not match are the default version's.
 */
export function stampVersion(
  url: string,
  hints: PageVersionHints,
  options: { pattern?: RegExp; defaultVersion?: string } = {},
): VersionStamp | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const path = parsed.pathname;
  if (options.pattern) {
    const version = versionFromPattern(path, options.pattern);
    if (version !== undefined) return { version, isDefault: version === options.defaultVersion };
    // With a default version named, the unprefixed pages are that version's copies.
    if (!hints.docusaurus && !hints.readTheDocs) {
      return options.defaultVersion ? { version: options.defaultVersion, isDefault: true } : undefined;
    }
  }
  if (hints.docusaurus) {
    const version = hints.docusaurus.trim();
    const segment = version === DOCUSAURUS_CURRENT ? 'next' : version;
    const segments = path.split('/').map(safeDecode);
    return { version, isDefault: !segments.includes(segment) };
  }
  const rtd = READ_THE_DOCS_PATH.exec(path);
  const slug =
    hints.readTheDocs?.trim() || (rtd && READ_THE_DOCS_HOST.test(parsed.hostname) ? rtd[2] : undefined);
  if (slug) {
    return {
      version: slug,
      isDefault:
        options.defaultVersion !== undefined
          ? slug === options.defaultVersion
          : READ_THE_DOCS_DEFAULTS.has(slug),
    };
  }
  return undefined;
}

/** The metadata fields of a stamp, merged over what the page already had. */
export function withVersionMetadata(
  metadata: DocumentMetadata | undefined,
  stamp: VersionStamp | undefined,
): DocumentMetadata | undefined {
  const rest = { ...(metadata ?? {}) };
  // Hints a loader passed in metadata are replaced by the resolved fields.
  delete rest[VERSION_HINT_DOCUSAURUS];
  delete rest[VERSION_HINT_READ_THE_DOCS];
  if (!stamp) return Object.keys(rest).length > 0 ? rest : undefined;
  return { ...rest, [VERSION_FIELD]: stamp.version, [VERSION_DEFAULT_FIELD]: stamp.isDefault ? 1 : 0 };
}

/** Metadata keys a loader uses to pass a page's version hints to ingestion (never stored). */
export const VERSION_HINT_DOCUSAURUS = '_docusaurus_version';
export const VERSION_HINT_READ_THE_DOCS = '_readthedocs_version';

/** The metadata a loader passes a page's version hints in. */
export function versionHintMetadata(hints: PageVersionHints): DocumentMetadata {
  return {
    ...(hints.docusaurus ? { [VERSION_HINT_DOCUSAURUS]: hints.docusaurus } : {}),
    ...(hints.readTheDocs ? { [VERSION_HINT_READ_THE_DOCS]: hints.readTheDocs } : {}),
  };
}

/** The hints a loader left in a document's metadata. */
export function versionHintsOf(metadata: DocumentMetadata | undefined): PageVersionHints {
  const docusaurus = metadata?.[VERSION_HINT_DOCUSAURUS];
  const readTheDocs = metadata?.[VERSION_HINT_READ_THE_DOCS];
  return {
    ...(typeof docusaurus === 'string' && docusaurus ? { docusaurus } : {}),
    ...(typeof readTheDocs === 'string' && readTheDocs ? { readTheDocs } : {}),
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

import { KbqaError } from '@kbqa/core';

/** A repository address `validate()` accepted, split into the parts the loader needs. */
export interface RepoRef {
  /** The configured base it matched, without a trailing slash (`https://github.com`). */
  base: string;
  owner: string;
  repo: string;
  /** Folder inside the repository (`/tree/main/<folder>`), as path segments; empty for the root. */
  folder: string[];
  /** What git clones: `<base>/<owner>/<repo>.git`. */
  cloneUrl: string;
  /** `<base>/<owner>/<repo>`, the prefix of every file link. */
  webUrl: string;
}

const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const REPO = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$/;
// Control characters, backslashes and NUL never belong in a folder name we hand to the filesystem.
const BAD_SEGMENT = /[\u0000-\u001f\u007f\\/]/;

/** A configured host to clone from; `path` has no trailing slash (`''` for a host root). */
export interface RepoBase {
  protocol: string;
  host: string;
  origin: string;
  path: string;
}

/** Parses and checks configured base URLs; a bad one is a startup error, not a request error. */
export function normalizeBases(baseUrls: readonly string[]): RepoBase[] {
  if (baseUrls.length === 0) throw new Error('GithubLoader needs at least one base URL');
  return baseUrls.map((raw) => {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`GithubLoader base URL must be http(s): ${raw}`);
    }
    if (url.username || url.password || url.search || url.hash) {
      throw new Error(`GithubLoader base URL must not carry credentials, a query or a fragment: ${raw}`);
    }
    return {
      protocol: url.protocol,
      host: url.host,
      origin: url.origin,
      path: url.pathname.replace(/\/+$/, ''),
    };
  });
}

function refuse(url: string, bases: readonly RepoBase[], why: string): KbqaError {
  const hosts = bases.map((b) => `${b.origin}${b.path}`).join(', ');
  return new KbqaError(
    'BAD_REQUEST',
    `unsupported repository URL ${JSON.stringify(url.slice(0, 200))} (${why}); accepted: ` +
      `${hosts}/<owner>/<repo> (optionally ending in .git or /), or ${hosts}/<owner>/<repo>/tree/main/<folder>`,
  );
}

/**
 * Accepts only `<base>/<owner>/<repo>[.git][/]` and `<base>/<owner>/<repo>/tree/main[/<folder>]`
 * for one of the configured bases. Everything git could read as an option, another transport
 * (`file://`, `ext::`, `ssh://`, scp-like `git@host:`) or a local path is refused, and the clone
 * URL is rebuilt from the checked parts instead of passing the caller's string to git.
 */
export function parseRepoUrl(input: unknown, bases: readonly RepoBase[]): RepoRef {
  if (typeof input !== 'string' || input.trim() === '') {
    throw refuse(String(input), bases, 'a URL is required');
  }
  const raw = input.trim();
  if (/[\s\u0000-\u001f\u007f]/.test(raw))
    throw refuse(raw, bases, 'it contains spaces or control characters');
  if (raw.startsWith('-')) throw refuse(raw, bases, 'it looks like a command-line option');
  if (!/^https?:\/\//i.test(raw))
    throw refuse(raw, bases, 'only http(s) URLs of a configured host are accepted');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(raw, bases, 'it is not a valid URL');
  }
  if (url.username || url.password) throw refuse(raw, bases, 'credentials in the URL are not accepted');
  const base = bases.find(
    (b) =>
      b.protocol === url.protocol &&
      b.host === url.host &&
      (b.path === '' || url.pathname === b.path || url.pathname.startsWith(`${b.path}/`)),
  );
  if (!base) throw refuse(raw, bases, 'the host is not one kbqa clones from');

  const rest = url.pathname.slice(base.path.length).replace(/^\/+/, '');
  const segments = rest === '' ? [] : rest.split('/');
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop(); // one trailing slash
  const [owner, repoSegment, tree, branch, ...folderRaw] = segments;
  if (owner === undefined || repoSegment === undefined)
    throw refuse(raw, bases, 'owner and repository are required');
  if (!OWNER.test(owner)) throw refuse(raw, bases, 'the owner name has characters kbqa does not accept');
  const repo = repoSegment.endsWith('.git') ? repoSegment.slice(0, -4) : repoSegment;
  if (!REPO.test(repo) || repo === '.' || repo === '..') {
    throw refuse(raw, bases, 'the repository name has characters kbqa does not accept');
  }
  const folder: string[] = [];
  if (tree !== undefined) {
    if (tree !== 'tree' || repo !== repoSegment)
      throw refuse(raw, bases, 'the path after the repository is not /tree/main');
    if (branch !== 'main') throw refuse(raw, bases, 'only the main branch is ingested');
    for (const part of folderRaw) {
      let segment: string;
      try {
        segment = decodeURIComponent(part);
      } catch {
        throw refuse(raw, bases, 'the folder path is not valid');
      }
      if (segment === '' || segment === '.' || segment === '..' || BAD_SEGMENT.test(segment)) {
        throw refuse(raw, bases, 'the folder path is not valid');
      }
      folder.push(segment);
    }
  }
  const baseText = `${base.origin}${base.path}`;
  return {
    base: baseText,
    owner,
    repo,
    folder,
    cloneUrl: `${baseText}/${owner}/${repo}.git`,
    webUrl: `${baseText}/${owner}/${repo}`,
  };
}

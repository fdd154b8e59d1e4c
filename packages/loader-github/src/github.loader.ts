import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdtemp, open, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  KbqaError,
  throwIfAborted,
  type AddressGuard,
  type SkipCode,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SourceLoader,
} from '@kbqa/core';
import { cloneRepository } from './git-clone';
import { listDocFiles } from './doc-files';
import { convertMarkup } from './markup';
import { normalizeBases, parseRepoUrl, type RepoBase, type RepoRef } from './repo-url';

export interface GithubLoaderOptions {
  /** Checks the repository host before git runs (the API passes @kbqa/fetcher's AddressPolicy). */
  guard: AddressGuard;
  /**
   * Hosts repositories are cloned from, e.g. `https://github.com` (the default) or
   * `https://git.example.com/gitea`. An `http:` base is only accepted when listed here.
   */
  baseUrls?: string[];
  /** Parent of the temporary clone folders; defaults to the OS temp folder. */
  tempDir?: string;
  /** Wall-clock limit of the clone; git is killed after it. Default 120 s. */
  cloneTimeoutMs?: number;
  /** Size cap of the clone (objects plus checkout). Default 500 MB. */
  maxRepoBytes?: number;
  /** Files larger than this are skipped with a reason. Default 1 MB. */
  maxFileBytes?: number;
  /** At most this many files are ingested; the rest are skipped with a reason. Default 10 000. */
  maxFiles?: number;
  /** git executable. Default `git`, looked up on `path`. */
  gitBinary?: string;
  /** PATH git is started with (nothing else of the environment reaches git). */
  path?: string;
}

const NUL_SNIFF_BYTES = 8000;

/**
 * Ingests the documentation files of a repository's main branch: a hardened shallow clone into
 * a temporary folder (removed afterwards, also on failure or cancellation), then one document per
 * Markdown, MDX, reStructuredText, AsciiDoc, text or README file, converted to markdown.
 */
export class GithubLoader implements SourceLoader {
  readonly type = 'github' as const;
  private readonly bases: RepoBase[];
  private readonly guard: AddressGuard;
  private readonly tempDir: string;
  private readonly cloneTimeoutMs: number;
  private readonly maxRepoBytes: number;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;
  private readonly gitBinary: string;
  private readonly path: string | undefined;

  constructor(options: GithubLoaderOptions) {
    this.bases = normalizeBases(options.baseUrls ?? ['https://github.com']);
    this.guard = options.guard;
    this.tempDir = options.tempDir ?? tmpdir();
    this.cloneTimeoutMs = options.cloneTimeoutMs ?? 120_000;
    this.maxRepoBytes = options.maxRepoBytes ?? 500 * 1024 * 1024;
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.maxFiles = options.maxFiles ?? 10_000;
    this.gitBinary = options.gitBinary ?? 'git';
    this.path = options.path;
  }

  validate(request: LoadRequest): void {
    parseRepoUrl(request.url, this.bases);
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    const repo = parseRepoUrl(request.url, this.bases);
    const { signal } = context;
    throwIfAborted(signal);
    context.progress({ step: 'CLONING', current: 0, total: 1, message: repo.webUrl });
    const cloneUrl = new URL(repo.cloneUrl);
    const pinned = pinnedResolve(cloneUrl, await this.guard.resolve(cloneUrl, signal));
    throwIfAborted(signal);

    const work = await mkdtemp(join(this.tempDir, 'kbqa-git-'));
    try {
      const checkout = join(work, 'repo');
      await cloneRepository(
        {
          gitBinary: this.gitBinary,
          url: repo.cloneUrl,
          dir: checkout,
          homeDir: work,
          allowHttp: repo.cloneUrl.startsWith('http:'),
          resolve: pinned,
          timeoutMs: this.cloneTimeoutMs,
          maxBytes: this.maxRepoBytes,
          signal,
        },
        this.path,
      );
      context.progress({ step: 'CLONING', current: 1, total: 1, message: repo.webUrl });

      const root = join(checkout, ...repo.folder);
      const folderStat = await lstat(root).catch(() => undefined);
      if (!folderStat?.isDirectory()) {
        throw new KbqaError('NOT_FOUND', `the folder ${repo.folder.join('/')} does not exist on main`);
      }
      const skip = (path: string, code: SkipCode, reason: string): void =>
        context.skipped?.({ url: this.linkOf(repo, path), code, reason });
      const files = await listDocFiles(root, repo.folder.join('/'), skip);
      const total = files.length;
      context.progress({ step: 'SCRAPING', current: 0, total });
      let current = 0;
      for (const file of files) {
        throwIfAborted(signal);
        current += 1;
        const link = this.linkOf(repo, file.path);
        if (current > this.maxFiles) {
          skip(file.path, 'LIMIT', `more than ${this.maxFiles} documentation files`);
          continue;
        }
        const read = await this.readText(file.absolute, (code, reason) => skip(file.path, code, reason));
        // During a sync, a file whose git blob id is the one stored is unchanged: not converted again.
        const known = read ? context.known?.(link) : undefined;
        if (read && known?.version.blob === read.blob) {
          context.unchanged?.(known.source);
        } else if (read) {
          const { markdown, title } = convertMarkup(read.text, file.markup);
          if (markdown === '') skip(file.path, 'NO_CONTENT', 'no text');
          else
            yield {
              source: link,
              link,
              title: title ?? basename(file.path),
              content: markdown,
              version: { blob: read.blob },
            };
        }
        context.progress({ step: 'SCRAPING', current, total, message: file.path });
      }
      if (total === 0)
        context.progress({ step: 'SCRAPING', current: 0, total: 0, message: 'no documentation files' });
    } finally {
      await rm(work, { recursive: true, force: true, maxRetries: 3 });
    }
  }

  private linkOf(repo: RepoRef, path: string): string {
    return `${repo.webUrl}/blob/main/${path.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * Reads a file as UTF-8 unless it is too large or binary, with its git blob id (what a sync
   * compares); `O_NOFOLLOW` keeps symlinks out.
   */
  private async readText(
    path: string,
    skip: (code: SkipCode, reason: string) => void,
  ): Promise<{ text: string; blob: string } | undefined> {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > this.maxFileBytes) {
        skip('TOO_LARGE', `larger than ${this.maxFileBytes} bytes (${size} bytes)`);
        return undefined;
      }
      const buffer = await handle.readFile();
      if (buffer.subarray(0, NUL_SNIFF_BYTES).includes(0)) {
        skip('NOT_HTML', 'binary file');
        return undefined;
      }
      return { text: buffer.toString('utf8'), blob: gitBlobId(buffer) };
    } finally {
      await handle.close();
    }
  }
}

/**
 * The `host:port:address[,address]` entry that makes git (libcurl) connect to the addresses the
 * guard checked instead of resolving the name again; undefined for an IP literal.
 */
export function pinnedResolve(
  url: URL,
  addresses: Array<{ address: string; family: 4 | 6 }>,
): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || addresses.length === 0) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const list = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',');
  return `${host}:${port}:${list}`;
}

/** The id git gives a file's content: sha1 of `blob <size>\0` and the bytes. */
export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

import { createHash } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KbqaError, type SkippedItem, throwIfAborted } from '@kbqa/core';
import { FILE_EXTENSIONS } from '@kbqa/loader-files';
import { isWithin, realRoots, resolveFolder, ROOTS_SETTING } from './folder-path';

/** A regular file met by a folder walk. */
export interface FolderFile {
  /** As reached from the folder, symbolic links kept: the base of its source URL. */
  path: string;
  /** Relative to the folder, `/`-separated. */
  rel: string;
  mtimeMs: number;
  size: number;
  ino: number;
}

/** A folder met by a walk (the top one included), as reached through links. */
export interface FolderDir {
  path: string;
  ino: number;
}

export interface FolderWalk {
  /** The folder as checked (absolute, normalized). */
  folder: string;
  /** Every regular file, in path order, whatever its type. */
  files: FolderFile[];
  /** Every folder walked, the top one first: what a watcher watches for events. */
  dirs: FolderDir[];
  /** Entries passed over: links out of the roots, broken links, unreadable folders. */
  skipped: SkippedItem[];
}

const READABLE: ReadonlySet<string> = new Set(FILE_EXTENSIONS);

/** Whether a file's extension is one of the formats kbqa reads (the walk itself does not open files). */
export function isReadable(path: string): boolean {
  return READABLE.has(extname(path).toLowerCase());
}

/** The source (and link) of a file of a watched folder: its `file://` URL. */
export function fileSource(path: string): string {
  return pathToFileURL(path).href;
}

/**
 * Lists a folder's files, descending into sub-folders. Hidden entries (a name starting with `.`,
 * editors' swap files among them) and `node_modules` are left out, as `kbqa ingest` does.
 * Symbolic links are followed only when their target's real path is inside one of `roots`; others
 * are reported skipped (`OFF_SITE`), as are broken links (`GONE`) and folders that cannot be read
 * (`FAILED`, so a sync keeps what it did not see). A folder reached twice through links is walked
 * once. A file that vanishes while the walk runs is simply not listed.
 *
 * @throws KbqaError BAD_REQUEST when the folder itself is missing or not allowed (see
 * {@link resolveFolder}), ABORTED when `signal` is aborted.
 */
export async function walkFolder(
  folder: string,
  roots: readonly string[],
  signal?: AbortSignal,
): Promise<FolderWalk> {
  const top = resolveFolder(folder, roots);
  const allowed = realRoots(roots);
  const files: FolderFile[] = [];
  const dirs: FolderDir[] = [];
  const skipped: SkippedItem[] = [];
  const walked = new Set<string>();
  const walk = async (dir: string, realDir: string, rel: string, ino: number): Promise<void> => {
    if (walked.has(realDir)) return;
    walked.add(realDir);
    dirs.push({ path: dir, ino });
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (dir === top.path)
        throw new KbqaError('FETCH_FAILED', `cannot read the folder ${dir}: ${message(e)}`);
      if (!isGone(e))
        skipped.push({ url: fileSource(dir), code: 'FAILED', reason: `cannot read: ${message(e)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      throwIfAborted(signal);
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      let real = join(realDir, entry.name);
      if (entry.isSymbolicLink()) {
        try {
          real = await realpath(path);
        } catch (e) {
          // A broken link is a file gone (a sync removes what it held); other errors may pass.
          skipped.push(
            isGone(e)
              ? { url: fileSource(path), code: 'GONE', reason: 'a broken symbolic link' }
              : { url: fileSource(path), code: 'FAILED', reason: message(e) },
          );
          continue;
        }
        if (!allowed.some((root) => isWithin(real, root))) {
          skipped.push({
            url: fileSource(path),
            code: 'OFF_SITE',
            reason: `a symbolic link to ${real}, outside the folders ${ROOTS_SETTING} allows`,
          });
          continue;
        }
      }
      let info: Stats;
      try {
        info = await stat(path);
      } catch (e) {
        if (!isGone(e)) skipped.push({ url: fileSource(path), code: 'FAILED', reason: message(e) });
        continue;
      }
      if (info.isDirectory()) await walk(path, real, relPath, info.ino);
      else if (info.isFile()) {
        files.push({ path, rel: relPath, mtimeMs: info.mtimeMs, size: info.size, ino: info.ino });
      }
    }
  };
  let topIno: number;
  try {
    topIno = (await stat(top.path)).ino;
  } catch (e) {
    throw new KbqaError('FETCH_FAILED', `cannot read the folder ${top.path}: ${message(e)}`);
  }
  await walk(top.path, top.real, '', topIno);
  return { folder: top.path, files, dirs, skipped };
}

/** What a watcher compares and watches: see {@link folderState}. */
export interface FolderState {
  /**
   * A digest of the folder's readable files (paths, modification times, sizes, inodes): equal
   * digests mean a sync would find nothing to do.
   */
  fingerprint: string;
  /** The folders to watch for events. */
  dirs: FolderDir[];
}

/** Walks the folder for a watcher: whether anything a sync reads changed, and where to listen. */
export async function folderState(folder: string, roots: readonly string[]): Promise<FolderState> {
  const { files, dirs } = await walkFolder(folder, roots);
  const hash = createHash('sha256');
  for (const f of files) {
    if (isReadable(f.path)) hash.update(`${f.rel}\0${f.mtimeMs}\0${f.size}\0${f.ino}\n`);
  }
  return { fingerprint: hash.digest('hex'), dirs };
}

function isGone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
}

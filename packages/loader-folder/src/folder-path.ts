import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { KbqaError } from '@kbqa/core';

/** The setting that lists the roots; refusals name it. */
export const ROOTS_SETTING = 'KBQA_FOLDER_ROOTS';

/** Whether `path` is `dir` or inside it (both absolute, symbolic links resolved). */
export function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real paths of the roots that exist now (a root that does not exist allows nothing). */
export function realRoots(roots: readonly string[]): string[] {
  const real: string[] = [];
  for (const root of roots) {
    try {
      real.push(realpathSync(root));
    } catch {
      // Not there (yet): a later mount makes it count from the next check on.
    }
  }
  return real;
}

/** A folder a `folder` index may watch: its path as given (normalized) and its real path. */
export interface AllowedFolder {
  /** Absolute and normalized, symbolic links kept: the index's URL and the base of its sources. */
  path: string;
  /** With every symbolic link resolved: what is checked against the roots. */
  real: string;
}

/**
 * Checks a folder for a `folder` index: an absolute path to an existing directory whose real path
 * (every symbolic link resolved) is one of `roots` or inside one. Checked when the index is created
 * and again by every sync, so a link changed later to point elsewhere is refused then.
 *
 * @throws KbqaError BAD_REQUEST naming the rule the path breaks.
 */
export function resolveFolder(path: string, roots: readonly string[]): AllowedFolder {
  if (roots.length === 0) {
    throw new KbqaError(
      'BAD_REQUEST',
      `no folder may be indexed: ${ROOTS_SETTING} is not set (list the absolute paths under which folders may be watched)`,
    );
  }
  const given = path.trim();
  if (!isAbsolute(given))
    throw new KbqaError('BAD_REQUEST', `the folder must be an absolute path, got "${path}"`);
  const normalized = resolve(given);
  let real: string;
  try {
    real = realpathSync(normalized);
  } catch {
    throw new KbqaError('BAD_REQUEST', `no such folder: ${normalized}`);
  }
  if (!statSync(real).isDirectory()) throw new KbqaError('BAD_REQUEST', `not a folder: ${normalized}`);
  if (!realRoots(roots).some((root) => isWithin(real, root))) {
    const via = real === normalized ? '' : ` (it resolves to ${real})`;
    throw new KbqaError(
      'BAD_REQUEST',
      `${normalized}${via} is outside the folders ${ROOTS_SETTING} allows: ${roots.join(', ')}`,
    );
  }
  return { path: normalized, real };
}

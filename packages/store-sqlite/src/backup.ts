import { closeSync, copyFileSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KbqaError } from '@kbqa/core';
import { MIGRATIONS } from './migrations';

/** What a backup file says about itself, in its `kbqa_backup` table. */
export interface BackupInfo {
  /** `kbqa-sqlite-backup-1`: the format of this file. */
  format: string;
  /** The kbqa version that wrote it. */
  version: string;
  /** When the snapshot was taken (ISO 8601, UTC). */
  createdAt: string;
  /** The names of the migrations its database has, in the order they ran. */
  migrations: string[];
  /** Files of the data directory kept inside the backup, by name. */
  files: Map<string, Buffer>;
}

export const BACKUP_FORMAT = 'kbqa-sqlite-backup-1';
const INFO_TABLE = 'kbqa_backup';
/** Pages copied per step while nothing else writes: the event loop turns between steps. */
const PAGES_PER_STEP = 1_024;
/** sqlite3_backup_step's "every remaining page": one read transaction, one snapshot. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database at `source` to `dest` with SQLite's online backup: a consistent snapshot
 * of every table (records, chunks, the FTS5 index and the sqlite-vec vectors are all tables of
 * the one file) while the service keeps reading and writing it. The copy goes to a temporary
 * file beside `dest`, gets the `kbqa_backup` table (version, time, `files`), is synced, and only
 * then takes the name `dest`; any failure (a full disk) removes the temporary file.
 *
 * Steps of a thousand pages let other work run between them; when another connection writes,
 * SQLite restarts the copy, so after the first restart the rest goes in one step, which holds
 * one read transaction (WAL: writers do not wait for it) and so cannot be restarted again.
 */
export async function backupDatabase(
  source: string,
  dest: string,
  meta: { version: string; files: ReadonlyMap<string, Buffer> },
): Promise<{ bytes: number; createdAt: string }> {
  const tmp = join(dirname(dest), `.${basename(dest)}.${process.pid}.partial`);
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    let last = Infinity;
    let restarted = false;
    await db.backup(tmp, {
      progress: ({ remainingPages }) => {
        // Each step leaves fewer pages; as many or more again means the copy started over.
        if (remainingPages >= last) restarted = true;
        last = remainingPages;
        return restarted ? ALL_PAGES : PAGES_PER_STEP;
      },
    });
    const createdAt = new Date().toISOString();
    const copy = new BetterSqlite3(tmp);
    sqliteVec.load(copy);
    try {
      // One self-contained file: no -wal beside it once closed.
      copy.pragma('journal_mode = DELETE');
      copy.exec(`CREATE TABLE ${INFO_TABLE} (key TEXT PRIMARY KEY, value BLOB NOT NULL)`);
      const put = copy.prepare(`INSERT INTO ${INFO_TABLE} (key, value) VALUES (?, ?)`);
      copy.transaction(() => {
        put.run('format', BACKUP_FORMAT);
        put.run('version', meta.version);
        put.run('created_at', createdAt);
        for (const [name, bytes] of meta.files) put.run(`file:${name}`, bytes);
      })();
    } finally {
      copy.close();
    }
    syncFile(tmp);
    renameSync(tmp, dest);
    syncFile(dirname(dest));
    return { bytes: statSync(dest).size, createdAt };
  } catch (e) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(tmp + suffix, { force: true });
    const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
    if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
      throw new KbqaError(
        'STORAGE_FULL',
        `no space left for the backup in ${dirname(dest)} (it needs about the size of ${source}); ` +
          'the partial file was removed',
        { cause: e },
      );
    }
    throw e;
  } finally {
    db.close();
  }
}

/**
 * Reads what a backup file says about itself; BAD_REQUEST when it is not a kbqa backup (not a
 * SQLite file, or one without the `kbqa_backup` table of {@link backupDatabase}).
 */
export function readBackupInfo(file: string): BackupInfo {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new KbqaError('BAD_REQUEST', `cannot open ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    let rows: Array<{ key: string; value: Buffer | string }>;
    try {
      rows = db.prepare(`SELECT key, value FROM ${INFO_TABLE}`).all() as typeof rows;
    } catch {
      throw new KbqaError('BAD_REQUEST', `${file} is not a kbqa backup (no ${INFO_TABLE} table)`);
    }
    const values = new Map(rows.map((r) => [r.key, r.value]));
    const text = (key: string) => String(values.get(key) ?? '');
    if (text('format') !== BACKUP_FORMAT) {
      throw new KbqaError(
        'BAD_REQUEST',
        `${file} is not a kbqa backup this version reads (format "${text('format')}", expected ${BACKUP_FORMAT})`,
      );
    }
    const files = new Map<string, Buffer>();
    for (const [key, value] of values) {
      if (key.startsWith('file:')) files.set(key.slice(5), Buffer.from(value));
    }
    const migrations = (
      db.prepare('SELECT name FROM migrations ORDER BY id').all() as Array<{ name: string }>
    ).map((r) => r.name);
    return {
      format: text('format'),
      version: text('version'),
      createdAt: text('created_at'),
      migrations,
      files,
    };
  } finally {
    db.close();
  }
}

/**
 * The backup's migrations this code does not have: a backup of a newer kbqa, whose schema this
 * code would misread. Empty when the code knows every one (older backups are migrated at start).
 */
export function unknownMigrations(info: BackupInfo): string[] {
  const known = new Set(MIGRATIONS.map((m) => m.name));
  return info.migrations.filter((name) => !known.has(name));
}

/**
 * Writes the database of a backup to `target` (which must not exist): checked with
 * `PRAGMA quick_check`, without the `kbqa_backup` table, and without the task leases of the
 * processes that ran at the backup, so the restored service resumes those tasks at once. Written
 * beside `target` first and renamed, so a failure leaves no database behind.
 */
export function restoreDatabase(backup: string, target: string): void {
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    copyFileSync(backup, tmp);
    const db = new BetterSqlite3(tmp);
    sqliteVec.load(db);
    try {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new KbqaError('BAD_REQUEST', `${backup} is damaged: ${String(check)}`);
      db.exec(`DROP TABLE ${INFO_TABLE}`);
      const hasLeases = db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task_leases'")
        .get();
      if (hasLeases) db.exec('DELETE FROM task_leases');
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    syncFile(tmp);
    renameSync(tmp, target);
    syncFile(dirname(target));
  } catch (e) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(tmp + suffix, { force: true });
    throw e;
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

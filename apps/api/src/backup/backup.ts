import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { KbqaError } from '@kbqa/core';
import {
  backupDatabase,
  MIGRATIONS,
  readBackupInfo,
  restoreDatabase,
  unknownMigrations,
} from '@kbqa/store-sqlite';
import { adminTokenFile } from '../admin/admin-token';
import type { AppConfig } from '../config/config';
import { secretKeyFile } from '../tools/secret-box';

/**
 * The files of the data directory that are data besides the database: the key that seals tool
 * header values (without it a restored deployment cannot call its tools) and the operator
 * token's hash. Models are a cache (`kbqa models pull` fetches them again), and `backups/` holds
 * the backups themselves.
 */
function dataFiles(dataDir: string): string[] {
  return [secretKeyFile(dataDir), adminTokenFile(dataDir)];
}

/** Entries a data directory may hold and still take a restore: caches, not data. */
const IGNORED_BY_RESTORE = new Set(['models', 'lost+found']);

export interface BackupResult {
  file: string;
  bytes: number;
  createdAt: string;
  /** The data directory's files kept inside it besides the database. */
  files: string[];
}

/** SQLite only: PostgreSQL deployments use pg_dump and pg_restore (docs/deploy.md). */
function requireSqlite(config: AppConfig, what: string): void {
  if (config.databaseUrl !== undefined) {
    throw new KbqaError(
      'UNSUPPORTED',
      `kbqa ${what} works on the SQLite file of a data directory; with KBQA_DATABASE_URL use pg_dump and ` +
        'pg_restore (docs/deploy.md, "Backups and restore")',
    );
  }
}

/**
 * A consistent copy of the deployment in one file, taken while the service runs: the database
 * (records, chunks, FTS5 index and vectors) and the data files of {@link dataFiles}.
 */
export async function takeBackup(config: AppConfig, dest: string): Promise<BackupResult> {
  requireSqlite(config, 'backup');
  if (!existsSync(config.databaseFile)) {
    throw new KbqaError(
      'NOT_FOUND',
      `no database in ${config.dataDir} (looked for ${config.databaseFile}): set KBQA_DATA_DIR to the ` +
        "service's data directory",
    );
  }
  const file = resolve(dest);
  if (!existsSync(dirname(file)))
    throw new KbqaError('NOT_FOUND', `no directory ${dirname(file)} for the backup`);
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new KbqaError(
      'BAD_REQUEST',
      `${file} is a directory: name the backup file, e.g. ${join(file, 'kbqa.backup')}`,
    );
  }
  const files = new Map<string, Buffer>();
  for (const path of dataFiles(config.dataDir)) {
    if (existsSync(path)) files.set(basename(path), readFileSync(path));
  }
  const { bytes, createdAt } = await backupDatabase(config.databaseFile, file, {
    version: config.version,
    files,
  });
  return { file, bytes, createdAt, files: [...files.keys()] };
}

export interface RestoreResult {
  file: string;
  dataDir: string;
  version: string;
  createdAt: string;
  files: string[];
  /** Migrations the backup's database lacks: they run when the service starts. */
  pendingMigrations: number;
}

/**
 * Brings a backup of {@link takeBackup} back into an empty data directory (created when absent).
 * Refuses a directory with data in it, a file that is not a kbqa backup, and a backup of a newer
 * kbqa whose schema this one does not know.
 */
export function restoreBackup(config: AppConfig, source: string): RestoreResult {
  requireSqlite(config, 'restore');
  const file = resolve(source);
  if (!existsSync(file)) throw new KbqaError('NOT_FOUND', `no backup file ${file}`);
  const present = existsSync(config.dataDir)
    ? readdirSync(config.dataDir).filter((name) => !IGNORED_BY_RESTORE.has(name))
    : [];
  if (present.length > 0) {
    throw new KbqaError(
      'BAD_REQUEST',
      `the data directory ${config.dataDir} is not empty (${present.slice(0, 5).join(', ')}` +
        `${present.length > 5 ? ', …' : ''}): restore only into an empty one, so nothing is overwritten. ` +
        'Point KBQA_DATA_DIR at a new directory, or move this one away first.',
    );
  }
  const info = readBackupInfo(file);
  const unknown = unknownMigrations(info);
  if (unknown.length > 0) {
    throw new KbqaError(
      'UNSUPPORTED',
      `${file} was made by kbqa ${info.version}, whose database schema is newer than this kbqa ${config.version} ` +
        `knows (migration ${unknown.join(', ')}): restore it with kbqa ${info.version} or later`,
    );
  }
  mkdirSync(config.dataDir, { recursive: true });
  restoreDatabase(file, config.databaseFile);
  for (const [name, bytes] of info.files) {
    // Only names this code writes itself: a crafted backup cannot place files elsewhere.
    const path = dataFiles(config.dataDir).find((p) => basename(p) === name);
    if (!path) continue;
    writeFileSync(path, bytes, { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return {
    file,
    dataDir: config.dataDir,
    version: info.version,
    createdAt: info.createdAt,
    files: [...info.files.keys()],
    pendingMigrations: MIGRATIONS.length - info.migrations.length,
  };
}

/** Where scheduled backups go. */
export function backupsDir(config: AppConfig): string {
  return join(config.dataDir, 'backups');
}

const SCHEDULED = /^kbqa-\d{8}T\d{6}\d{3}Z(-\d+)?\.backup$/;

/** A scheduled backup's name: its time, so names sort oldest first. */
export function scheduledName(at: Date): string {
  return `kbqa-${at.toISOString().replace(/[-:.]/g, '')}.backup`;
}

/** Removes the oldest scheduled backups beyond `keep`; returns the removed paths. */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = readdirSync(dir)
    .filter((n) => SCHEDULED.test(n))
    .sort();
  const removed = names.slice(0, Math.max(0, names.length - keep)).map((n) => join(dir, n));
  for (const path of removed) rmSync(path, { force: true });
  return removed;
}

import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { DataSource } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface SqliteStoreOptions {
  /** Database file path, or `:memory:`. */
  file: string;
  /** Milliseconds a writer waits for a lock held by another connection or process. */
  busyTimeoutMs?: number;
}

/**
 * Opens the one database file: WAL so readers never wait for the ingestion writer, a busy
 * timeout so the CLI and the service can share the file, sqlite-vec loaded into the same
 * connection, and pending migrations applied (never `synchronize`, so upgrades keep data).
 */
export async function openDataSource(options: SqliteStoreOptions): Promise<DataSource> {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: options.file,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    timeout: busyTimeoutMs,
    prepareDatabase: (db: BetterSqlite3.Database) => {
      sqliteVec.load(db);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma('cache_size = -65536');
      db.pragma('temp_store = MEMORY');
      takeWriteLockAtBegin(db);
    },
  });
  await dataSource.initialize();
  await migrateUnderWriteLock(dataSource);
  return dataSource;
}

/**
 * Makes every transaction TypeORM opens (`save`, `remove`, migrations) take the write lock at
 * BEGIN. A deferred transaction starts as a reader; when it then writes while another process
 * holds or has just released the lock, SQLite answers SQLITE_BUSY at once, without the busy
 * timeout (a read snapshot cannot be upgraded past another writer), so several processes on one
 * file saw "database is locked" (migrations at start-up read the migrations table first).
 * `BEGIN IMMEDIATE` waits for the lock under the busy timeout instead. TypeORM has no option for
 * this, and its better-sqlite3 runner sends exactly this statement through `prepare`. The
 * store's own transactions go through `writeTransaction` for the same reason.
 */
function takeWriteLockAtBegin(db: BetterSqlite3.Database): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (source: string) =>
    prepare(source === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : source);
}

/**
 * Applies pending migrations holding the write lock from before TypeORM reads the migrations
 * table, so processes that open a new file at the same moment migrate it once: the others wait,
 * then find nothing pending.
 */
async function migrateUnderWriteLock(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    // With a transaction already open, TypeORM runs every migration inside it.
    await dataSource.runMigrations({ transaction: 'all' });
    await runner.commitTransaction();
  } catch (e) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw e;
  }
}

/** The better-sqlite3 handle under a data source, for prepared statements on hot paths. */
export function rawDatabase(dataSource: DataSource): BetterSqlite3.Database {
  return (dataSource.driver as unknown as { databaseConnection: BetterSqlite3.Database }).databaseConnection;
}

/**
 * A read-only better-sqlite3 connection to a database another connection opened (and migrated)
 * with {@link openDataSource}: WAL lets it read while that connection writes, so search can run
 * on other threads or processes. sqlite-vec is loaded for dense and hybrid search.
 */
export function openReadConnection(options: SqliteStoreOptions): BetterSqlite3.Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const db = new BetterSqlite3(options.file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  sqliteVec.load(db);
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  return db;
}

/**
 * A connection to a database another connection opened with {@link openDataSource}, for WAL
 * checkpoints only ({@link checkpoint}). A checkpoint copies committed pages from the WAL into the
 * database file and syncs it; run by the writing connection itself (SQLite's automatic checkpoint
 * every 1000 pages) it stalls that connection's commit for milliseconds. Run here, on another
 * thread, the writer's commits never wait for it: checkpoints take a lock of their own.
 */
export function openCheckpointConnection(options: SqliteStoreOptions): BetterSqlite3.Database {
  return new BetterSqlite3(options.file, { fileMustExist: true, timeout: options.busyTimeoutMs ?? 10_000 });
}

/** The WAL's frames and how many of them are in the database file, after a checkpoint. */
export interface CheckpointResult {
  /** The checkpoint found another one running (or could not start); nothing was copied. */
  busy: boolean;
  walFrames: number;
  checkpointedFrames: number;
}

/**
 * A PASSIVE checkpoint: copies what no reader still needs from the WAL, without waiting for
 * readers or blocking the writer. The next write starts the WAL over once all of it was copied.
 */
export function checkpoint(db: BetterSqlite3.Database): CheckpointResult {
  const row = db.pragma('wal_checkpoint(PASSIVE)', { simple: false }) as Array<{
    busy: number;
    log: number;
    checkpointed: number;
  }>;
  const r = row[0] ?? { busy: 1, log: -1, checkpointed: -1 };
  return { busy: r.busy !== 0, walFrames: r.log, checkpointedFrames: r.checkpointed };
}

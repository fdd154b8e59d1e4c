import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
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
    },
  });
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'all' });
  return dataSource;
}

/** The better-sqlite3 handle under a data source, for prepared statements on hot paths. */
export function rawDatabase(dataSource: DataSource): BetterSqlite3.Database {
  return (dataSource.driver as unknown as { databaseConnection: BetterSqlite3.Database }).databaseConnection;
}

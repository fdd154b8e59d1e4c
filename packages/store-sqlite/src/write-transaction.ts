import type BetterSqlite3 from 'better-sqlite3';

/**
 * Runs `fn` in a transaction that takes the write lock at BEGIN (`BEGIN IMMEDIATE`). A deferred
 * transaction starts as a reader and cannot wait for the lock when it first writes: with another
 * process writing to the same file it fails at once with "database is locked", where an immediate
 * one waits under the busy timeout. Inside another transaction it becomes a savepoint.
 */
export function writeTransaction<T>(db: BetterSqlite3.Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}

import type BetterSqlite3 from 'better-sqlite3';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { FtsTotals } from '../fts-totals';

/**
 * Repairs BM25's statistics in `chunks_fts`: before FtsTotals, every deleted or replaced chunk
 * stayed counted in FTS5's averages record (see fts-totals.ts), so a database that has been
 * re-synced or had sources deleted ranks with a row count and average length of every chunk it
 * ever held. The record is set to what the remaining rows add up to, and the chunk change counter
 * raised so that term score lists kept by running processes are reloaded.
 */
export class FtsTotals1734500000000 implements MigrationInterface {
  name = 'FtsTotals1734500000000';

  async up(q: QueryRunner): Promise<void> {
    const db = (q.connection.driver as unknown as { databaseConnection: BetterSqlite3.Database })
      .databaseConnection;
    new FtsTotals(db).recount();
    await q.query('UPDATE chunk_generation SET n = n + 1 WHERE id = 1');
  }

  async down(): Promise<void> {
    // The old record counted rows that no longer exist; there is nothing worth restoring.
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A log of the chunks whose binary code was written or deleted, filled by triggers in the same
 * transaction as the change, whichever process or connection made it. Searches keep the codes of
 * a project in memory (vector-index.ts) and replay the log since the sequence number they were
 * loaded at, so a cache never serves codes another process has since replaced or deleted. The log
 * is pruned by the writers; a cache older than what remains reloads.
 */
export class VectorChanges1734300000000 implements MigrationInterface {
  name = 'VectorChanges1734300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE vector_changes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      chunk_id INTEGER NOT NULL)`);
    // AUTOINCREMENT: a sequence number is never reused, so a cache's position stays meaningful
    // after pruning. REPLACE deletes without firing the delete trigger, but the insert one fires.
    await q.query(`CREATE TRIGGER vector_codes_inserted AFTER INSERT ON chunk_vector_codes
      BEGIN INSERT INTO vector_changes (chunk_id) VALUES (new.chunk_id); END`);
    await q.query(`CREATE TRIGGER vector_codes_updated AFTER UPDATE ON chunk_vector_codes
      BEGIN INSERT INTO vector_changes (chunk_id) VALUES (new.chunk_id); END`);
    await q.query(`CREATE TRIGGER vector_codes_deleted AFTER DELETE ON chunk_vector_codes
      BEGIN INSERT INTO vector_changes (chunk_id) VALUES (old.chunk_id); END`);
    // Start the sequence, so sqlite_sequence has a row to read from the first search on.
    await q.query('INSERT INTO vector_changes (chunk_id) VALUES (0)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS vector_codes_inserted');
    await q.query('DROP TRIGGER IF EXISTS vector_codes_updated');
    await q.query('DROP TRIGGER IF EXISTS vector_codes_deleted');
    await q.query('DROP TABLE IF EXISTS vector_changes');
  }
}

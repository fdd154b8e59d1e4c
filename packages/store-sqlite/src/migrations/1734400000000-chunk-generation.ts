import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter of changes to the chunk table, raised by triggers in the same transaction as the
 * change, whichever process or connection made it. Lexical searches keep each query term's BM25
 * contributions in memory (term-scores.ts); BM25's statistics are index-wide, so any chunk
 * written or deleted anywhere changes every term's contributions, and a search that reads a
 * counter other than the one its cache was filled at empties the cache first.
 */
export class ChunkGeneration1734400000000 implements MigrationInterface {
  name = 'ChunkGeneration1734400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE chunk_generation (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      n INTEGER NOT NULL)`);
    await q.query('INSERT INTO chunk_generation (id, n) VALUES (1, 0)');
    // An update counts only when it touches what is indexed: the embedder marks every chunk it
    // embeds (embedded_with), and that must not empty the caches chunk by chunk.
    for (const [name, event] of [
      ['chunks_inserted_generation', 'INSERT'],
      ['chunks_updated_generation', 'UPDATE OF project_id, title, heading_path, content'],
      ['chunks_deleted_generation', 'DELETE'],
    ]) {
      // FOR EACH STATEMENT does not exist in SQLite; one small update per row is cheap next to
      // the FTS5 write the same row costs.
      await q.query(`CREATE TRIGGER ${name} AFTER ${event} ON chunks
        BEGIN UPDATE chunk_generation SET n = n + 1 WHERE id = 1; END`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS chunks_inserted_generation');
    await q.query('DROP TRIGGER IF EXISTS chunks_updated_generation');
    await q.query('DROP TRIGGER IF EXISTS chunks_deleted_generation');
    await q.query('DROP TABLE IF EXISTS chunk_generation');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Turns off FTS5's automatic merging of index segments: it runs inside the writing
 * transaction and, on a large index, now and then takes 100 ms or more, which a chat request
 * sharing the event loop waits for. The ingestion runner merges in small steps between writes
 * instead (`SqliteChunkIndex.mergeStep`). A migration that rebuilds `chunks_fts` must set this
 * again.
 */
export class FtsIncrementalMerge1733300000000 implements MigrationInterface {
  name = 'FtsIncrementalMerge1733300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 4)`);
  }
}

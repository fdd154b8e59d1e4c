import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexed and skipped counts of a task in columns of their own: `ingestionStatus` is polled
 * often and must not read the task's whole report (up to 20,000 URLs each way) to count it.
 */
export class TaskCounts1733400000000 implements MigrationInterface {
  name = 'TaskCounts1733400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN indexed_count INTEGER NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN skipped_count INTEGER NOT NULL DEFAULT 0');
    await q.query(`UPDATE ingestion_tasks SET
      indexed_count = coalesce(json_extract(stats, '$.sources'), 0),
      skipped_count = coalesce(json_extract(stats, '$.skippedCount'), json_array_length(stats, '$.skipped'), 0)
      WHERE stats IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN skipped_count');
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN indexed_count');
  }
}

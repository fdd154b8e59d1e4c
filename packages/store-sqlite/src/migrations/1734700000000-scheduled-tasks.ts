import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a task was started by the auto-sync schedule (not asked for by hand): switching an
 * index's auto sync off cancels its scheduled tasks still waiting. Older tasks count as by hand.
 */
export class ScheduledTasks1734700000000 implements MigrationInterface {
  name = 'ScheduledTasks1734700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN scheduled INTEGER NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN scheduled');
  }
}

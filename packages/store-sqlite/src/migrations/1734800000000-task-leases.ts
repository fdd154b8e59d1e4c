import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which process runs a task, and until when its claim holds unless renewed: several processes
 * on one database without Redis take a task (and a project's turn) only when no live claim holds
 * it. Older tasks have no claim, so any process may take them.
 */
export class TaskLeases1734800000000 implements MigrationInterface {
  name = 'TaskLeases1734800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN lease_owner TEXT');
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN lease_until TEXT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN lease_until');
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN lease_owner');
  }
}

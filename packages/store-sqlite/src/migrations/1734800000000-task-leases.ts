import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which process runs a task, and until when its claim holds unless renewed: several processes
 * on one database without Redis take a task (and its project's turn) only when no live claim
 * holds it. A table of its own, not columns of the task: a raw-documents task's row holds its
 * payload (megabytes), and a write that changes a row's size rewrites all of it.
 */
export class TaskLeases1734800000000 implements MigrationInterface {
  name = 'TaskLeases1734800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE task_leases (
      task_id INTEGER PRIMARY KEY REFERENCES ingestion_tasks (id) ON DELETE CASCADE,
      project_id INTEGER NOT NULL,
      owner TEXT NOT NULL,
      until TEXT NOT NULL)`);
    await q.query('CREATE INDEX task_leases_project ON task_leases (project_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE task_leases');
  }
}

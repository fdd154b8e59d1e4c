import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the operator dashboard reads:
 *
 * - `api_keys.last_used_at`: when a key last authenticated (written at most about once a minute
 *   per key, so chat traffic does not write on every request).
 * - `taught_answers`: the question and answer of each curated pair of the teaching feature. The
 *   pair is also a source of kind `teach` named `taught:<id>` (its chunks make it retrievable
 *   and `delete_all` keeps it); this table keeps the exact text the operator entered, which the
 *   chunks alone cannot give back.
 * - `conversations(project_id, created_at)`: the conversation list and duration chart filter a
 *   project by day (messages already have that index).
 */
export class AdminData1733800000000 implements MigrationInterface {
  name = 'AdminData1733800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys ADD COLUMN last_used_at TEXT');
    await q.query(`CREATE TABLE taught_answers (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      question TEXT NOT NULL,
      answer TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL)`);
    await q.query('CREATE INDEX taught_answers_project ON taught_answers(project_id)');
    await q.query('CREATE INDEX conversations_project_time ON conversations(project_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX conversations_project_time');
    await q.query('DROP TABLE taught_answers');
    await q.query('ALTER TABLE api_keys DROP COLUMN last_used_at');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * HTTP tool definitions per project (docs/api.md, "Tools"). `headers` is a JSON array of
 * `{name, value}`: the values are secrets (API keys of the tool's server), stored as plainly as
 * the API-key hashes and conversations beside them, so the database file is the trust boundary;
 * no API, CLI output or log line ever shows them again. `public` marks a tool anon-key chats may use.
 */
export class Tools1734000000000 implements MigrationInterface {
  name = 'Tools1734000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tools (
      id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      parameters TEXT NOT NULL,
      method TEXT NOT NULL,
      url TEXT NOT NULL,
      headers TEXT NOT NULL DEFAULT '[]',
      body TEXT,
      public INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await q.query('CREATE UNIQUE INDEX tools_project_name ON tools (project_id, name)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tools');
  }
}

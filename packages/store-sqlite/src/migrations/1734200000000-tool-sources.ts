import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tool sources per project (docs/api.md, "Tools"): MCP servers whose tools a chat may call.
 * `kind` is 'mcp' for now. `headers` is a JSON array of `{name, value}`, secrets stored like the
 * tools' headers; no API, CLI output or log line shows them again.
 */
export class ToolSources1734200000000 implements MigrationInterface {
  name = 'ToolSources1734200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tool_sources (
      id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      url TEXT NOT NULL,
      headers TEXT NOT NULL DEFAULT '[]',
      public INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await q.query('CREATE UNIQUE INDEX tool_sources_project_name ON tool_sources (project_id, name)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tool_sources');
  }
}

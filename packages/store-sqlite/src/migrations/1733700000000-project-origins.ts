import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The web origins a project's widget may be embedded on (a JSON array of exact origins, or
 * `["*"]`). Empty by default: an anon key answers no cross-origin request until the operator
 * lists the sites that embed it.
 */
export class ProjectOrigins1733700000000 implements MigrationInterface {
  name = 'ProjectOrigins1733700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE projects ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '[]'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects DROP COLUMN allowed_origins');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The documentation version a question asked about (serviceChat's `version`), for analytics per
 * version. Questions stored before this, and questions without a version, have none.
 */
export class MessageVersion1735200000000 implements MigrationInterface {
  name = 'MessageVersion1735200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages ADD COLUMN version TEXT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN version');
  }
}

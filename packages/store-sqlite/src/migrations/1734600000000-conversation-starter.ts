import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The kind of key that started a conversation: an anon key may act only on conversations an anon
 * key started, since conversation ids are sequential. Conversations stored before this have no
 * known starter and count as the server key's, so no anon key can reach them.
 */
export class ConversationStarter1734600000000 implements MigrationInterface {
  name = 'ConversationStarter1734600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE conversations ADD COLUMN started_by TEXT NOT NULL DEFAULT 'server'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN started_by');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a conversation was started (API, widget, Slack, Discord, MCP), stored with it for the
 * analytics per channel. Until now it was inferred: a platform thread linked to the conversation,
 * else the kind of key that started it; existing conversations get that, once.
 */
export class ConversationChannel1735400000000 implements MigrationInterface {
  name = 'ConversationChannel1735400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE conversations ADD COLUMN channel TEXT NOT NULL DEFAULT 'api'");
    await q.query("UPDATE conversations SET channel = 'widget' WHERE started_by = 'anon'");
    await q.query(`UPDATE conversations SET channel = (
        SELECT t.platform FROM integration_threads t WHERE t.conversation_id = conversations.id LIMIT 1)
      WHERE id IN (SELECT conversation_id FROM integration_threads)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN channel');
  }
}

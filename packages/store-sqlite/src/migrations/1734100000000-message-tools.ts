import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tool calls an answer made (`tools_used` of serviceChat, byConversationId and the export):
 * a JSON array of `{id, internal_run_id, tool_name, has_error, date}`. Names and outcomes only:
 * arguments and outputs may carry what a tool's server returned, and are not kept.
 */
export class MessageTools1734100000000 implements MigrationInterface {
  name = 'MessageTools1734100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE messages ADD COLUMN tools_used TEXT NOT NULL DEFAULT '[]'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN tools_used');
  }
}

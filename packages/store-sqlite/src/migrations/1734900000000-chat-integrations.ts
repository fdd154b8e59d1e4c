import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat platforms (Slack, Discord) per project (docs/integrations.md): the configuration of each
 * (a JSON object whose secrets are sealed like tool header values), the platform events already
 * handled (so a retried delivery is never answered twice, across restarts and processes), and
 * which kbqa conversation a platform thread is.
 */
export class ChatIntegrations1734900000000 implements MigrationInterface {
  name = 'ChatIntegrations1734900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE chat_integrations (
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      settings TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      last_event_at TEXT,
      last_event TEXT,
      PRIMARY KEY (project_id, platform)
    )`);
    await q.query(`CREATE TABLE integration_events (
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      event_key TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (project_id, platform, event_key)
    )`);
    await q.query('CREATE INDEX integration_events_created ON integration_events (created_at)');
    await q.query(`CREATE TABLE integration_threads (
      project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      thread_key TEXT NOT NULL,
      conversation_id INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (project_id, platform, thread_key)
    )`);
    await q.query('CREATE INDEX integration_threads_conversation ON integration_threads (conversation_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE integration_threads');
    await q.query('DROP TABLE integration_events');
    await q.query('DROP TABLE chat_integrations');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboard logins. Kept in the database, not in memory, so that every API process behind a
 * load balancer knows a session and a logout ends it everywhere. Only the sha256 of the cookie
 * value is stored; `token_hash` is the hash of the operator token it was opened with, so rotating
 * the token (`kbqa admin token`) ends every session opened with the old one.
 */
export class DashboardSessions1733900000000 implements MigrationInterface {
  name = 'DashboardSessions1733900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE dashboard_sessions (
      id_hash TEXT PRIMARY KEY NOT NULL,
      csrf_token TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    )`);
    await q.query('CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE dashboard_sessions');
  }
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { AdminTokenService } from '../admin/admin-token.service';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { DATA_SOURCE } from '../database/database.module';
import { runSql } from '../database/sql';

export interface DashboardSession {
  /** The cookie value; only its sha256 is stored. */
  id: string;
  csrfToken: string;
  expiresAt: string;
}

interface SessionRow {
  csrf_token: string;
  token_hash: string;
  expires_at: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Whether two strings are equal, in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a), 'hex');
  const y = Buffer.from(sha256(b), 'hex');
  return timingSafeEqual(x, y);
}

/**
 * Dashboard logins: a random session id in an HttpOnly cookie, a CSRF token the page sends back
 * in `X-CSRF-Token` on every change, and an expiry (KBQA_DASHBOARD_SESSION, 12 h by default).
 * Rows live in the database so that every API process knows them.
 */
@Injectable()
export class DashboardSessionsService {
  constructor(
    @Inject(DATA_SOURCE) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: AdminTokenService,
  ) {}

  get lifetimeMs(): number {
    return this.config.dashboardSessionMs;
  }

  /** Opens a session when `token` is the operator token; undefined otherwise. */
  async open(token: string): Promise<DashboardSession | undefined> {
    if (!(await this.tokens.verify(token))) return undefined;
    const hash = await this.tokens.currentHash();
    if (!hash) return undefined;
    const now = Date.now();
    const session: DashboardSession = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(24).toString('base64url'),
      expiresAt: new Date(now + this.lifetimeMs).toISOString(),
    };
    // Expired rows are dropped here rather than by a timer: logins are rare, rows are small.
    await runSql(this.db, 'DELETE FROM dashboard_sessions WHERE expires_at <= ?', [
      new Date(now).toISOString(),
    ]);
    await runSql(
      this.db,
      'INSERT INTO dashboard_sessions (id_hash, csrf_token, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      [
        sha256(session.id),
        session.csrfToken,
        hash.toString('hex'),
        new Date(now).toISOString(),
        session.expiresAt,
      ],
    );
    return session;
  }

  /**
   * The live session of a cookie value: not expired, and opened with the current operator token
   * (a rotated token ends older sessions). Undefined otherwise.
   */
  async find(id: string): Promise<DashboardSession | undefined> {
    const rows = await runSql<SessionRow[]>(
      this.db,
      'SELECT csrf_token, token_hash, expires_at FROM dashboard_sessions WHERE id_hash = ?',
      [sha256(id)],
    );
    const row = rows[0];
    if (!row || row.expires_at <= new Date().toISOString()) return undefined;
    const current = await this.tokens.currentHash();
    if (!current || !sameSecret(current.toString('hex'), row.token_hash)) return undefined;
    return { id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async close(id: string): Promise<void> {
    await runSql(this.db, 'DELETE FROM dashboard_sessions WHERE id_hash = ?', [sha256(id)]);
  }
}

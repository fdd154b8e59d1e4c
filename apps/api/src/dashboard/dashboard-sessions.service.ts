import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DashboardSessionRepository } from '@kbqa/core';
import { AdminTokenService } from '../admin/admin-token.service';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { DASHBOARD_SESSION_REPOSITORY } from '../database/projects.providers';

export interface DashboardSession {
  /** The cookie value; only its sha256 is stored. */
  id: string;
  csrfToken: string;
  expiresAt: string;
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
    @Inject(DASHBOARD_SESSION_REPOSITORY) private readonly sessions: DashboardSessionRepository,
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
    await this.sessions.deleteExpired(new Date(now).toISOString());
    await this.sessions.create({
      idHash: sha256(session.id),
      csrfToken: session.csrfToken,
      tokenHash: hash.toString('hex'),
      createdAt: new Date(now).toISOString(),
      expiresAt: session.expiresAt,
    });
    return session;
  }

  /**
   * The live session of a cookie value: not expired, and opened with the current operator token
   * (a rotated token ends older sessions). Undefined otherwise.
   */
  async find(id: string): Promise<DashboardSession | undefined> {
    const row = await this.sessions.find(sha256(id));
    if (!row || row.expiresAt <= new Date().toISOString()) return undefined;
    const current = await this.tokens.currentHash();
    if (!current || !sameSecret(current.toString('hex'), row.tokenHash)) return undefined;
    return { id, csrfToken: row.csrfToken, expiresAt: row.expiresAt };
  }

  async close(id: string): Promise<void> {
    await this.sessions.delete(sha256(id));
  }
}

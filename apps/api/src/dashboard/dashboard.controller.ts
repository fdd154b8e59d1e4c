import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsString, MaxLength } from 'class-validator';
import { KbqaError } from '@kbqa/core';
import { KeyAccess, tooMany } from '../common/auth';
import { RateLimits } from '../common/rate-limit';
import { DashboardSessionsService, sameSecret } from './dashboard-sessions.service';
import { sessionCookie, sessionSetCookie } from './session-cookie';

export class LoginDto {
  @IsString()
  @MaxLength(512)
  token!: string;
}

export interface SessionResponse {
  logged_in: true;
  csrf_token: string;
  expires_at: string;
}

export type SessionState = SessionResponse | { logged_in: false };

const notLoggedIn = () =>
  new KbqaError('UNAUTHORIZED', 'not logged in to the dashboard, or the session expired');

/**
 * Login, session and logout of the dashboard (`/dashboard/api/…`). Everything else the dashboard
 * shows comes from the operator API, which accepts the session cookie (AdminGuard).
 */
@Controller('dashboard/api')
@KeyAccess('public')
export class DashboardController {
  constructor(
    private readonly sessions: DashboardSessionsService,
    private readonly limits: RateLimits,
  ) {}

  /** Exchanges the operator token for a session cookie; the token is not kept in the browser. */
  @Post('login')
  @HttpCode(200)
  async login(
    @Body() dto: LoginDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponse> {
    const address = req.ip ?? 'unknown';
    const wait = await this.limits.blocked('authFail', address);
    if (wait !== undefined) throw tooMany(reply, wait, 'too many failed logins from this address');
    const session = await this.sessions.open(dto.token.trim());
    if (!session) {
      // A burst passes the check above all at once; the count this failure returns is what caps it.
      const spent = await this.limits.consume('authFail', address);
      if (spent !== undefined) throw tooMany(reply, spent, 'too many failed logins from this address');
      throw new KbqaError('UNAUTHORIZED', 'that is not the operator token');
    }
    const maxAge = Math.floor(this.sessions.lifetimeMs / 1000);
    void reply.header('set-cookie', sessionSetCookie(session.id, maxAge, req.protocol === 'https'));
    void reply.header('cache-control', 'no-store');
    return { logged_in: true, csrf_token: session.csrfToken, expires_at: session.expiresAt };
  }

  /**
   * Whether this browser is logged in and, if so, the session's CSRF token and expiry (the page
   * reads it on load). A 200 either way: a 401 would be a console error on every visit.
   */
  @Get('session')
  async session(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionState> {
    const id = sessionCookie(req.headers.cookie);
    const session = id === undefined ? undefined : await this.sessions.find(id);
    void reply.header('cache-control', 'no-store');
    if (!session) return { logged_in: false };
    return { logged_in: true, csrf_token: session.csrfToken, expires_at: session.expiresAt };
  }

  /** Ends the session here and in every other process; needs the CSRF token like any change. */
  @Post('logout')
  @HttpCode(204)
  async logout(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const id = sessionCookie(req.headers.cookie);
    const session = id === undefined ? undefined : await this.sessions.find(id);
    const csrf = req.headers['x-csrf-token'];
    if (!session || typeof csrf !== 'string' || !sameSecret(csrf, session.csrfToken)) throw notLoggedIn();
    await this.sessions.close(session.id);
    void reply.header('set-cookie', sessionSetCookie('', 0, req.protocol === 'https'));
  }
}

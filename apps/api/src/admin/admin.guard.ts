import {
  applyDecorators,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { KbqaError } from '@kbqa/core';
import { type HeaderReply, KeyAccess, tooMany } from '../common/auth';
import { RateLimits } from '../common/rate-limit';
import { ErrorResponse } from './admin.dto';
import { AdminTokenService } from './admin-token.service';
import { DashboardSessionsService, sameSecret } from '../dashboard/dashboard-sessions.service';
import { sessionCookie } from '../dashboard/session-cookie';

/** Name of the bearer scheme in the OpenAPI document. */
export const ADMIN_BEARER = 'operator-token';

type AdminRequest = {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  method?: string;
  protocol?: string;
};

/** Methods that change nothing, which a session may call without its CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The token of `Authorization: Bearer <token>`, or '' (checked like a wrong one) when there is none. */
export function bearerToken(header: string | string[] | undefined): string {
  const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return m?.[1] ?? '';
}

/**
 * Guards every `/admin/v1` route with the operator token, or with a dashboard session (cookie)
 * plus, for every call that changes something, its CSRF token in `X-CSRF-Token` and, when the
 * browser sends one, an `Origin` equal to the service's own. A missing and a wrong credential take
 * the same path (a count in the `authFail` bucket of the client address) and get the same 401, so
 * an answer tells nothing about which it was.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly tokens: AdminTokenService,
    private readonly sessions: DashboardSessionsService,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<AdminRequest>();
    const reply = http.getResponse<HeaderReply>();
    const address = req.ip ?? 'unknown';
    // Checked before the token, as for API keys: past the limit even a right guess learns nothing.
    const wait = await this.limits.blocked('authFail', address);
    if (wait !== undefined) throw tooMany(reply, wait, 'too many failed token checks from this address');
    if (await this.authenticated(req)) return true;
    // A burst passes the check above all at once; the count this failure returns is what caps it.
    const spent = await this.limits.consume('authFail', address);
    if (spent !== undefined) throw tooMany(reply, spent, 'too many failed token checks from this address');
    reply.header('WWW-Authenticate', 'Bearer realm="kbqa-admin"');
    throw new KbqaError(
      'UNAUTHORIZED',
      'a valid operator token (Authorization: Bearer <token>) or dashboard session is required',
    );
  }

  private async authenticated(req: AdminRequest): Promise<boolean> {
    // An Authorization header is always the token's path, so a bad token never falls back to a cookie.
    if (req.headers.authorization !== undefined || sessionCookie(req.headers.cookie) === undefined) {
      return this.tokens.verify(bearerToken(req.headers.authorization));
    }
    const session = await this.sessions.find(sessionCookie(req.headers.cookie) ?? '');
    if (!session) return false;
    if (SAFE_METHODS.has(req.method ?? 'GET')) return true;
    const csrf = req.headers['x-csrf-token'];
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== ownOrigin(req)) return false;
    return typeof csrf === 'string' && sameSecret(csrf, session.csrfToken);
  }
}

/** The request's own origin, as a browser would write it in `Origin`. */
function ownOrigin(req: AdminRequest): string | undefined {
  const host = req.headers.host;
  return typeof host === 'string' ? `${req.protocol ?? 'http'}://${host}` : undefined;
}

/**
 * Declares a controller of the operator API: routes under `/admin/v1`, no `api_key` (the app-wide
 * key guard lets it through) but the operator token, and one OpenAPI tag per resource. New
 * resources add a controller with this decorator to AdminModule.
 */
export function AdminController(tag: string): ClassDecorator {
  return applyDecorators(
    Controller('admin/v1'),
    KeyAccess('public'),
    UseGuards(AdminGuard),
    ApiTags(tag),
    ApiBearerAuth(ADMIN_BEARER),
    ApiUnauthorizedResponse({ type: ErrorResponse, description: 'missing or wrong operator token' }),
    ApiTooManyRequestsResponse({
      type: ErrorResponse,
      description: 'too many failed token checks from this address (Retry-After says when to retry)',
    }),
    ApiBadRequestResponse({ type: ErrorResponse, description: 'bad input; the message names the field' }),
  );
}

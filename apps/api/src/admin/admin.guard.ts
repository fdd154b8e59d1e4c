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

/** Name of the bearer scheme in the OpenAPI document. */
export const ADMIN_BEARER = 'operator-token';

type AdminRequest = { headers: Record<string, string | string[] | undefined>; ip?: string };

/** The token of `Authorization: Bearer <token>`, or '' (checked like a wrong one) when there is none. */
export function bearerToken(header: string | string[] | undefined): string {
  const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return m?.[1] ?? '';
}

/**
 * Guards every `/admin/v1` route with the operator token. A missing and a wrong token take the
 * same path (hash, constant-time compare, a count in the `authFail` bucket of the client address)
 * and get the same 401, so an answer tells nothing about which it was.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly tokens: AdminTokenService,
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
    if (await this.tokens.verify(bearerToken(req.headers.authorization))) return true;
    await this.limits.consume('authFail', address);
    reply.header('WWW-Authenticate', 'Bearer realm="kbqa-admin"');
    throw new KbqaError('UNAUTHORIZED', 'a valid operator token is required (Authorization: Bearer <token>)');
  }
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

import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Reflector } from '@nestjs/core';
import { KbqaError } from '@kbqa/core';
import { type AuthenticatedKey, ProjectsService } from '../projects/projects.service';
import { allowOrigin, crossOrigin } from '../widget/widget-cors';
import { type Bucket, RATE_CATEGORY_METADATA, type RateCategory, RateLimits } from './rate-limit';

/**
 * Who may call an endpoint: no key, server keys only, server and anon keys, or no key with an
 * optional one that then scopes the request to its project.
 */
export type KeyAccess = 'public' | 'server' | 'any' | 'optional';
const ACCESS = 'kbqa:key-access';

/** Marks a handler or controller with the keys it accepts (default: server keys only). */
export const KeyAccess = (access: KeyAccess) => SetMetadata(ACCESS, access);

type AuthedRequest = {
  body?: unknown;
  auth?: AuthenticatedKey;
  ip?: string;
  headers?: IncomingHttpHeaders;
};
/** The part of a Fastify reply the guards use: setting a header before an error answer. */
export type HeaderReply = { header(name: string, value: string): unknown; raw?: ServerResponse };

/**
 * The one guard: reads `api_key` (or `anon_key`) from the JSON body, resolves the project and
 * attaches it to the request; every service call is then scoped to that project. It also applies
 * the rate limits: failed key checks per client address, then the endpoint's category per key.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly projects: ProjectsService,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access =
      this.reflector.getAllAndOverride<KeyAccess | undefined>(ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'server';
    if (access === 'public') return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new KbqaError('BAD_REQUEST', 'the request body must be a JSON object');
    }
    const fields = body as Record<string, unknown>;
    const presented = fields.api_key ?? fields.anon_key;
    if (presented === undefined || presented === null || presented === '') {
      if (access === 'optional') return true;
      throw new KbqaError('INVALID_API_KEY', 'api_key is required');
    }
    if (typeof presented !== 'string') throw new KbqaError('INVALID_API_KEY', 'api_key must be a string');
    const address = req.ip ?? 'unknown';
    const reply = context.switchToHttp().getResponse<HeaderReply>();
    const wait = await this.limits.blocked('authFail', address);
    if (wait !== undefined) {
      throw tooMany(reply, wait, 'too many failed key checks from this address');
    }
    const auth = await this.projects.authenticate(presented);
    if (!auth) {
      // A burst passes the check above all at once; the count this failure returns is what caps it.
      const spent = await this.limits.consume('authFail', address);
      if (spent !== undefined) throw tooMany(reply, spent, 'too many failed key checks from this address');
      throw new KbqaError('INVALID_API_KEY', 'Invalid API key or project not found');
    }
    if (auth.kind === 'anon' && access === 'server') {
      throw new KbqaError(
        'FORBIDDEN',
        'this endpoint needs a server-side API key; anon keys are for chat only',
      );
    }
    // Anon-key endpoints answer browser pages of the origins the key's project lists, and no
    // others. Checked before anything is done: a text/plain POST reaches us without a preflight,
    // so this refusal, not the browser, is what keeps an unlisted site from using the key.
    if (access === 'any' && req.headers) {
      const origin = crossOrigin(req.headers);
      if (origin !== undefined) {
        if (!(await this.projects.originAllowed(auth.projectId, origin))) {
          throw new KbqaError('ORIGIN_NOT_ALLOWED', `origin ${origin} is not allowed for this project`);
        }
        // Before the rate limit and validation, so that their errors reach the page readable too.
        if (reply.raw) allowOrigin(reply.raw, origin);
      }
    }
    req.auth = auth;
    const category = this.reflector.get<RateCategory | undefined>(
      RATE_CATEGORY_METADATA,
      context.getHandler(),
    );
    if (category) {
      const [bucket, key]: [Bucket, string] =
        category === 'ingest'
          ? ['ingest', String(auth.keyId)]
          : auth.kind === 'anon'
            ? ['chatAnon', `${auth.keyId}:${address}`]
            : ['chatServer', String(auth.keyId)];
      const retryAfter = await this.limits.consume(bucket, key);
      if (retryAfter !== undefined) {
        throw tooMany(
          reply,
          retryAfter,
          `rate limit reached for this ${category === 'ingest' ? 'key' : auth.kind === 'anon' ? 'reader' : 'key'}`,
        );
      }
    }
    return true;
  }
}

/** A 429 with Retry-After (set on the reply here; the error filter keeps headers already set). */
export function tooMany(reply: HeaderReply, retryAfterSeconds: number, what: string): KbqaError {
  reply.header('Retry-After', String(retryAfterSeconds));
  return new KbqaError('RATE_LIMITED', `${what}; retry after ${retryAfterSeconds} s`);
}

/** The authenticated key of the request (set by ApiKeyGuard). */
export const Auth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedKey => {
  const auth = context.switchToHttp().getRequest<AuthedRequest>().auth;
  if (!auth) throw new KbqaError('INVALID_API_KEY', 'api_key is required');
  return auth;
});

/** Like {@link Auth} for endpoints where the key is optional. */
export const OptionalAuth = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedKey | undefined =>
    context.switchToHttp().getRequest<AuthedRequest>().auth,
);

import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type ErrorCode, KbqaError } from '@kbqa/core';
import { DiskSpace } from '../health/disk-space';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

/**
 * Maps anything thrown to the API's one error shape (API-DECISIONS.md): `{error, code}` JSON with
 * its status; never a stack trace or HTML. Unknown errors are logged and answered as INTERNAL.
 */
export function toErrorBody(exception: unknown, logger?: Logger): { status: number; body: ErrorBody } {
  if (exception instanceof KbqaError) {
    return { status: exception.status, body: { error: exception.message, code: exception.code } };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = response.message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    if (status === 404 && message.startsWith('Cannot ')) message = 'Not found';
    return { status, body: { error: message, code: CODE_BY_STATUS[status] ?? 'INTERNAL' } };
  }
  // Fastify's own errors (body too large, bad content length) carry a status and a code.
  const e = exception as { statusCode?: number; code?: string; message?: string };
  if (e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { error: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' } };
  }
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return {
      status: e.statusCode,
      body: { error: e.message ?? 'Bad request', code: CODE_BY_STATUS[e.statusCode] ?? 'BAD_REQUEST' },
    };
  }
  const known = KbqaError.from(exception);
  if (known.code === 'STORAGE_FULL') {
    logger?.error(`${known.message} (${exception instanceof Error ? exception.message : String(exception)})`);
    return { status: known.status, body: { error: known.message, code: known.code } };
  }
  logger?.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL' } };
}

/** The one exception filter of the API. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly disk: DiskSpace,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply: unknown = host.switchToHttp().getResponse();
    const { status, body } = toErrorBody(exception, this.logger);
    if (body.code === 'STORAGE_FULL') this.disk.noteFull();
    const raw = (reply as { raw?: { headersSent: boolean; end(): void } }).raw;
    if (raw?.headersSent) {
      raw.end();
      return;
    }
    // A busy local model says when to come back (LocalLlmBusyError).
    const retryAfter = (exception as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
    if (exception instanceof KbqaError && typeof retryAfter === 'number') {
      this.adapterHost.httpAdapter.setHeader(reply, 'Retry-After', String(retryAfter));
    }
    // Handlers that answer plain text set their Content-Type up front; an error is always JSON.
    this.adapterHost.httpAdapter.setHeader(reply, 'Content-Type', 'application/json; charset=utf-8');
    this.adapterHost.httpAdapter.reply(reply, JSON.stringify(body), status);
  }
}

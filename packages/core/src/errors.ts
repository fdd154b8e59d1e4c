/**
 * Machine-readable error codes. They travel through queues and task rows as strings, so a
 * loader's failure reaches `ingestionStatus` (and an HTTP client) with its meaning intact.
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'INVALID_API_KEY'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'ORIGIN_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'PERMISSION_DENIED'
  | 'EXPORT_DISABLED'
  | 'CONVERSATION_ENDED'
  | 'RATE_LIMITED'
  | 'FETCH_REFUSED'
  | 'FETCH_FAILED'
  | 'TIMEOUT'
  | 'TOO_LARGE'
  | 'NO_CONTENT'
  | 'UNSUPPORTED'
  | 'INDEX_MISMATCH'
  | 'MODEL_UNAVAILABLE'
  | 'MODEL_BUSY'
  | 'LLM_ERROR'
  | 'ABORTED'
  | 'STORAGE_FULL'
  | 'CONFIG_INVALID'
  | 'INTERNAL';

/** The HTTP status each code maps to when it reaches the API. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  INVALID_API_KEY: 400,
  /** The operator API (`/admin/v1`) without a valid operator token. */
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  /** A browser page whose origin the key's project does not list (the widget's CORS rule). */
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  PERMISSION_DENIED: 500,
  EXPORT_DISABLED: 400,
  CONVERSATION_ENDED: 400,
  RATE_LIMITED: 429,
  FETCH_REFUSED: 400,
  FETCH_FAILED: 502,
  TIMEOUT: 504,
  TOO_LARGE: 413,
  NO_CONTENT: 422,
  UNSUPPORTED: 400,
  INDEX_MISMATCH: 409,
  MODEL_UNAVAILABLE: 503,
  /** A local model's sequences and wait queue are all taken: retry after `Retry-After`. */
  MODEL_BUSY: 503,
  LLM_ERROR: 502,
  ABORTED: 499,
  STORAGE_FULL: 507,
  /** A setting read at start-up is wrong: never an HTTP answer, the process does not start. */
  CONFIG_INVALID: 500,
  INTERNAL: 500,
};

/** Plain-object form of a {@link KbqaError}; what is stored and sent over a queue. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
}

/** The one error type of kbqa: a human-readable message plus a machine code. */
export class KbqaError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KbqaError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): SerializedError {
    return { code: this.code, message: this.message };
  }

  /** Rebuilds an error from its serialized form, or wraps anything else as INTERNAL. */
  static from(value: unknown): KbqaError {
    if (value instanceof KbqaError) return value;
    if (isSerializedError(value)) return new KbqaError(value.code, value.message);
    // Read from the code alone, not `instanceof Error`: an error made in another realm (a native
    // addon's under a test runner's sandbox, say) is not an instance of this realm's Error.
    const code = typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : undefined;
    if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
      return new KbqaError(
        'STORAGE_FULL',
        'the disk of the data directory is full: free space, then send the request or ingestion again',
        { cause: value },
      );
    }
    if (value instanceof Error) {
      if (value.name === 'AbortError') return new KbqaError('ABORTED', value.message, { cause: value });
      return new KbqaError('INTERNAL', value.message, { cause: value });
    }
    return new KbqaError('INTERNAL', String(value));
  }
}

function isSerializedError(value: unknown): value is SerializedError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.message === 'string' && typeof v.code === 'string' && v.code in ERROR_STATUS;
}

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_MODEL_CONTEXT_TOKENS } from '@kbqa/answer';
import { KbqaError } from '@kbqa/core';
import { DEFAULT_EMBED_MODEL } from '@kbqa/embedder';
import { DEFAULT_LOCAL_MODEL } from '@kbqa/llm-local';
import { z } from 'zod';
import type { RateLimitSettings } from '../common/rate-limit';

/** The service's version, from its package.json (dist/config and src/config sit two levels below it). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Everything the service reads from the environment, validated once at boot. */
export interface AppConfig {
  port: number;
  host: string;
  version: string;
  dataDir: string;
  /** The SQLite file; not opened when {@link AppConfig.databaseUrl} is set. */
  databaseFile: string;
  /**
   * KBQA_DATABASE_URL: a `postgres://` or `postgresql://` URL puts every record, source and chunk
   * in that PostgreSQL database (docs/postgres.md); unset, the SQLite file of the data directory.
   */
  databaseUrl: string | undefined;
  /**
   * KBQA_LOG_LEVEL: error, warn, info (default), debug or verbose. Nest's own start-up chatter
   * (module wiring, the route map) is logged at debug.
   */
  logLevel: LogLevel;
  /**
   * How the user runs this command line, for messages that tell them what to type next:
   * `pnpm kbqa` in a clone, `kbqa` from an installed package, the binary's own path inside the
   * single executable.
   */
  command: string;
  /** Body size limit of every request, in bytes. */
  bodyLimitBytes: number;
  /**
   * `ingestFiles` uploads (multipart): bytes of one file and of one request (413 past either),
   * files per request, and pages read from one PDF (the rest are skipped with LIMIT).
   */
  uploads: { maxFileBytes: number; maxRequestBytes: number; maxFiles: number; maxPdfPages: number };
  redisUrl: string | undefined;
  /** BullMQ queue name (separate names keep parallel test runs apart). */
  queueName: string;
  /** Whether this process runs ingestion workers (API-only processes set KBQA_WORKER=0). */
  runWorkers: boolean;
  /** Longest an ingestion task may run before it fails with TIMEOUT. */
  taskTimeoutMs: number;
  /** How often BullMQ processes re-add the jobs of tasks still pending (a Redis restart loses them). */
  queueReconcileMs: number;
  /** Requests a minute per bucket (docs/configuration.md); 0 switches one off. */
  rateLimits: RateLimitSettings;
  /**
   * The operator token of `/admin/v1` (KBQA_ADMIN_TOKEN). Unset: the service keeps only the sha256
   * of a generated token in the data directory, and `kbqa admin token` replaces it.
   */
  adminToken: string | undefined;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /** In-process queue: tasks run at once (SQLite has one writer, so more rarely helps). */
  queueConcurrency: number;
  /**
   * Worker threads that run search and extractive answers on their own read-only connections
   * (KBQA_READ_WORKERS, default the number of cores); 0 runs them on the event loop.
   */
  readWorkers: number;
  /**
   * KBQA_ANSWER_TRACE: a file each chat appends its answer generator's inputs to, one JSON line
   * (question, conversation topic, the question's words no page has, sources). Off by default;
   * bench/answers/sentence-choice.js replays the extractive answer's sentence choice from one.
   */
  answerTrace: string | undefined;
  /**
   * BullMQ: how long a worker's hold on a running task lasts without renewal, and how often
   * workers look for tasks whose holder died (a SIGKILLed worker's task runs again after about
   * this long, up to twice it).
   */
  queueStallMs: number;
  /**
   * Without Redis: how long a process's claim on a running task lasts without renewal
   * (KBQA_TASK_LEASE_MS, renewed every third of it). Another process sharing the database takes
   * over the task of a process killed on another machine, or hung, after about this long.
   */
  taskLeaseMs: number;
  /** How often an index with auto sync on is re-synced (KBQA_SYNC_INTERVAL, default 24 h). */
  syncIntervalMs: number;
  /**
   * Watched folders (`folder` indexes): the absolute paths under which the operator may index a
   * folder (KBQA_FOLDER_ROOTS, comma-separated; none by default, which allows none), and how often
   * each watched folder is scanned for changes its file-system events missed
   * (KBQA_FOLDER_RESCAN_INTERVAL, default 10 min).
   */
  folders: { roots: string[]; rescanIntervalMs: number };
  /** How long a dashboard login lasts (KBQA_DASHBOARD_SESSION). */
  dashboardSessionMs: number;
  /**
   * Scheduled backups of the SQLite deployment into `<data dir>/backups/`: every
   * KBQA_BACKUP_INTERVAL (off when undefined), keeping the newest KBQA_BACKUP_KEEP (default 7).
   */
  backup: { intervalMs: number | undefined; keep: number };
  chunker: { targetSize: number; maxSize: number; overlap: number };
  embedding: {
    model: string;
    modelsDir: string;
    offline: boolean;
    remoteHost: string | undefined;
    /**
     * Cross-encoder over the first `top` fused candidates (KBQA_RERANK_MODEL, off when
     * undefined); past `budgetMs` the fused order stands.
     */
    rerank: { model: string | undefined; top: number; budgetMs: number };
  };
  llm:
    | { kind: 'extractive' }
    | {
        kind: 'openai';
        baseUrl: string;
        model: string;
        apiKey: string | undefined;
        timeoutMs: number;
        idleTimeoutMs: number;
      }
    | {
        /** A GGUF model run in this process through node-llama-cpp (@kbqa/llm-local). */
        kind: 'local';
        /** KBQA_LLM_MODEL: a name of `kbqa models list` or of a model imported under that name. */
        model: string;
        /** KBQA_LLM_MODEL_FILE, else `<models dir>/llm/<model>.gguf`. */
        modelFile: string;
        /** KBQA_LLM_CONTEXT_TOKENS: token budget of the sources' text given to the model. */
        contextTokens: number;
        /** KBQA_LLM_MAX_TOKENS: longest answer in tokens. */
        maxTokens: number;
        /**
         * KBQA_LLM_SEQUENCES: answers generated at once; undefined (unset or `auto`) lets the
         * model's loader choose from the host's cores and free memory.
         */
        sequences: number | undefined;
        /** KBQA_LLM_QUEUE: answers that may wait for a sequence; past it, 503. */
        maxQueue: number;
        /** KBQA_LLM_THREADS: CPU threads (node-llama-cpp's default when undefined). */
        threads: number | undefined;
      };
  /**
   * HTTP tools (docs/api.md, "Tools"): time limit of one call, its response size cap, and how
   * many rounds of tool calls a chat answer may make (0: the model is offered no tools).
   */
  tools: { timeoutMs: number; maxBytes: number; maxRounds: number };
  /**
   * KBQA_SECRET_KEY as 64 hex digits: the AES-256-GCM key sealing stored tool header values.
   * Undefined: a key file in the data directory is used (created on first use).
   */
  secretKey: string | undefined;
  /**
   * Chat platforms (docs/integrations.md): the API hosts answers are posted to, and the time
   * limit of one call to them. Operator-set hosts, so they are called with plain fetch, not the
   * loaders' address-checking fetcher.
   */
  integrations: { slackApiUrl: string; discordApiUrl: string; timeoutMs: number };
  web: {
    allowPrivateHosts: string[];
    userAgent: string;
    gitBaseUrls: string[];
    youtubeOrigin: string | undefined;
  };
}

type Env = Record<string, string | undefined>;

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How this process was started, which {@link commandName} reads. */
export interface Invocation {
  /** process.argv */
  argv: readonly string[];
  execPath: string;
  /** Whether this is the single executable (node:sea's isSea()). */
  sea: boolean;
}

function currentInvocation(): Invocation {
  let sea = false;
  try {
    // node:sea exists from Node 20.12; older ones are never the single executable.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    sea = (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    sea = false;
  }
  return { argv: process.argv, execPath: process.execPath, sea };
}

/**
 * The command a user types to run this command line: the binary as they can call it from `cwd`
 * (./kbqa-linux-x64 beside them, its full path otherwise); `kbqa` from an installed package
 * (node_modules/.bin, npx); `pnpm kbqa` in a clone of the repository.
 */
export function commandName(invocation: Invocation, cwd: string): string {
  if (invocation.sea) {
    const rel = relative(cwd, invocation.execPath);
    return rel.startsWith('..') || isAbsolute(rel) ? invocation.execPath : `./${rel}`;
  }
  const script = invocation.argv[1] ?? '';
  return script.split(sep).includes('node_modules') ? 'kbqa' : 'pnpm kbqa';
}

/** Where `kbqa models import` puts a local chat model, and where KBQA_LLM=local looks for it. */
export function localModelFile(modelsDirectory: string, model: string): string {
  return join(modelsDirectory, 'llm', `${model}.gguf`);
}

// ---------------------------------------------------------------------------------------------
// One zod schema per kind of variable. Each reads the raw string (undefined when unset) and
// refuses with what it expects; configError() puts the variable's name, the issue's path, first.
// ---------------------------------------------------------------------------------------------

const variable = z.string().optional();

/** `URL.parse` came to Node 20 in a minor release; engines allows every 20. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/** Unset or empty reads as `fallback`. */
function text<F extends string | undefined>(fallback: F) {
  return variable.transform((raw): string | F => raw || fallback);
}

function int<F extends number | undefined>(fallback: F, min: number, max: number) {
  return variable.transform((raw, ctx): number | F => {
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    return refuse(ctx, `must be an integer from ${min} to ${max}, got "${raw}"`);
  });
}

function bool(fallback: boolean) {
  return variable.transform((raw, ctx): boolean => {
    const value = raw?.toLowerCase();
    if (value === undefined || value === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    return refuse(ctx, `must be true or false, got "${raw}"`);
  });
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `24h`, `90m`, `5s` or `1500ms` (a bare number is milliseconds). */
function duration<F extends number | undefined>(fallbackMs: F, minMs: number, offWords: string[] = []) {
  return variable.transform((raw, ctx): number | F => {
    const value = raw?.trim();
    if (value === undefined || value === '' || offWords.includes(value.toLowerCase())) return fallbackMs;
    const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(value);
    const ms = m ? Number(m[1]) * DURATION_UNITS[(m[2] ?? 'ms').toLowerCase()]! : NaN;
    if (Number.isFinite(ms) && ms >= minMs) return Math.round(ms);
    return refuse(ctx, `must be a duration of at least ${minMs} ms such as 24h, 30m or 5s, got "${value}"`);
  });
}

/** An http(s) base URL without its trailing slash (paths are appended to it). */
function apiBaseUrl(fallback: string) {
  return variable.transform((raw, ctx): string => {
    const value = raw?.trim();
    if (value === undefined || value === '') return fallback;
    const url = parseUrl(value);
    if (url && ['http:', 'https:'].includes(url.protocol)) return value.replace(/\/+$/, '');
    return refuse(ctx, `must be an http(s) URL, got "${value}"`);
  });
}

/** Comma-separated; set but empty is the empty list. */
function list(fallback: string[]) {
  return variable.transform((raw): string[] =>
    raw === undefined
      ? fallback
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
  );
}

/**
 * KBQA_FOLDER_ROOTS: absolute paths, comma-separated (a path with a comma in it cannot be a root).
 * Relative ones are refused rather than resolved against whichever folder the process started in.
 */
const folderRoots = list([]).transform((roots, ctx): string[] => {
  const relativeRoot = roots.find((r) => !isAbsolute(r));
  if (relativeRoot !== undefined) {
    return refuse(ctx, `must list absolute paths, comma-separated; got "${relativeRoot}"`);
  }
  return roots.map((r) => resolve(r));
});

const logLevel = variable.transform((raw, ctx): LogLevel => {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return 'info';
  const level = value === 'log' ? 'info' : value;
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  return refuse(ctx, `must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
});

const adminToken = text(undefined).refine(
  (token) => token === undefined || (token.length >= 16 && !/\s/.test(token)),
  'must be at least 16 characters without spaces (it guards every project and key)',
);

/** Never echoes the URL, which may carry a password. */
const databaseUrl = variable.transform((raw, ctx): string | undefined => {
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  const url = parseUrl(value);
  if (url && ['postgres:', 'postgresql:'].includes(url.protocol) && url.hostname !== '') return value;
  return refuse(ctx, 'must be a PostgreSQL URL such as postgres://user:password@host:5432/kbqa');
});

/** Hex of 32 bytes; a typo stops the start instead of sealing under a wrong key. */
const secretKey = variable.transform((raw, ctx): string | undefined => {
  if (raw === undefined || raw === '') return undefined;
  const value = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 32) return bytes.toString('hex');
  }
  return refuse(ctx, 'must be 32 bytes as 64 hex digits or base64 (e.g. from `openssl rand -hex 32`)');
});

/** `off`, `none`, ... or unset: undefined; anything else is the trimmed name. */
function optionalName(offWords: string[]) {
  return variable.transform((raw): string | undefined => {
    const value = raw?.trim();
    return value === undefined || offWords.includes(value.toLowerCase()) ? undefined : value;
  });
}

// ---------------------------------------------------------------------------------------------
// The environment: every variable the service reads, then the answer generator's, which only
// the chosen KBQA_LLM's variables are checked for.
// ---------------------------------------------------------------------------------------------

function settingsSchema(readWorkers: number) {
  return z.object({
    PORT: int(3000, 0, 65535),
    HOST: text('0.0.0.0'),
    KBQA_VERSION_OVERRIDE: text(undefined),
    KBQA_DATA_DIR: text('./data'),
    KBQA_MODELS_DIR: text(undefined),
    KBQA_DATABASE_URL: databaseUrl,
    KBQA_LOG_LEVEL: logLevel,
    KBQA_BODY_LIMIT_BYTES: int(2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    KBQA_UPLOAD_MAX_FILE_BYTES: int(20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    KBQA_UPLOAD_MAX_BYTES: int(50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    KBQA_UPLOAD_MAX_FILES: int(100, 1, 10_000),
    KBQA_PDF_MAX_PAGES: int(1000, 1, 100_000),
    REDIS_URL: text(undefined),
    KBQA_QUEUE_NAME: text('kbqa-ingestion'),
    KBQA_WORKER: bool(true),
    KBQA_QUEUE_CONCURRENCY: int(2, 1, 16),
    KBQA_READ_WORKERS: int(readWorkers, 0, 64),
    KBQA_ANSWER_TRACE: text(undefined),
    KBQA_TASK_TIMEOUT_MS: int(3_600_000, 100, 86_400_000),
    KBQA_QUEUE_RECONCILE_MS: int(10_000, 100, 3_600_000),
    KBQA_QUEUE_STALL_MS: int(30_000, 1_000, 3_600_000),
    KBQA_TASK_LEASE_MS: int(30_000, 300, 3_600_000),
    KBQA_RATE_CHAT_PER_MIN: int(600, 0, 1_000_000),
    KBQA_RATE_ANON_CHAT_PER_MIN: int(60, 0, 1_000_000),
    KBQA_RATE_INGEST_PER_MIN: int(60, 0, 1_000_000),
    KBQA_RATE_FAILED_KEYS_PER_MIN: int(30, 0, 1_000_000),
    KBQA_ADMIN_TOKEN: adminToken,
    KBQA_TRUST_PROXY: bool(false),
    KBQA_SYNC_INTERVAL: duration(86_400_000, 1_000),
    KBQA_DASHBOARD_SESSION: duration(12 * 3_600_000, 1_000),
    KBQA_FOLDER_ROOTS: folderRoots,
    KBQA_FOLDER_RESCAN_INTERVAL: duration(600_000, 1_000),
    KBQA_BACKUP_INTERVAL: duration(undefined, 1_000, ['off', '0']),
    KBQA_BACKUP_KEEP: int(7, 1, 100_000),
    KBQA_EMBED_MODEL: text(DEFAULT_EMBED_MODEL),
    KBQA_OFFLINE: bool(false),
    KBQA_MODEL_HOST: text(undefined),
    KBQA_RERANK_MODEL: optionalName(['', 'none']),
    KBQA_RERANK_TOP: int(20, 1, 200),
    KBQA_RERANK_BUDGET_MS: int(300, 1, 60_000),
    KBQA_TOOL_TIMEOUT: duration(10_000, 100),
    KBQA_TOOL_MAX_BYTES: int(64 * 1024, 1024, 10 * 1024 * 1024),
    KBQA_TOOL_MAX_ROUNDS: int(3, 0, 10),
    KBQA_SECRET_KEY: secretKey,
    KBQA_SLACK_API_URL: apiBaseUrl('https://slack.com/api'),
    KBQA_DISCORD_API_URL: apiBaseUrl('https://discord.com/api/v10'),
    KBQA_INTEGRATION_TIMEOUT: duration(10_000, 100),
    KBQA_ALLOW_PRIVATE_HOSTS: list([]),
    KBQA_USER_AGENT: text('kbqa/0.1 (+https://github.com/kbqa/kbqa)'),
    KBQA_GIT_BASE_URLS: list(['https://github.com']),
    KBQA_YOUTUBE_ORIGIN: text(undefined),
  });
}

/** The overlap's bound follows the chunk size, so it is read once the size is. */
const chunkingSchema = z
  .object({ KBQA_CHUNK_SIZE: int(1000, 200, 8000), KBQA_CHUNK_OVERLAP: variable })
  .transform((env, ctx) => {
    const overlap = int(100, 0, Math.floor(env.KBQA_CHUNK_SIZE / 2)).safeParse(env.KBQA_CHUNK_OVERLAP);
    if (!overlap.success) {
      for (const issue of overlap.error.issues) {
        ctx.addIssue({ code: 'custom', path: ['KBQA_CHUNK_OVERLAP'], message: issue.message });
      }
      return z.NEVER;
    }
    const size = env.KBQA_CHUNK_SIZE;
    return { chunker: { targetSize: size, maxSize: size * 2, overlap: overlap.data } };
  });

const llmSchema = z.discriminatedUnion(
  'KBQA_LLM',
  [
    z.object({ KBQA_LLM: z.literal('extractive') }),
    z
      .object({
        KBQA_LLM: z.literal('openai'),
        KBQA_LLM_BASE_URL: text(undefined),
        KBQA_LLM_MODEL: text(undefined),
        KBQA_LLM_API_KEY: text(undefined),
        KBQA_LLM_TIMEOUT_MS: int(120_000, 100, 600_000),
        KBQA_LLM_IDLE_TIMEOUT_MS: int(30_000, 50, 600_000),
      })
      .refine((env) => env.KBQA_LLM_BASE_URL !== undefined && env.KBQA_LLM_MODEL !== undefined, {
        message: 'KBQA_LLM=openai needs KBQA_LLM_BASE_URL and KBQA_LLM_MODEL',
      }),
    z.object({
      KBQA_LLM: z.literal('local'),
      KBQA_LLM_MODEL: variable.transform((raw, ctx): string => {
        const model = raw?.trim() || DEFAULT_LOCAL_MODEL;
        if (/^[\w.-]+$/.test(model)) return model;
        return refuse(
          ctx,
          `must be a model name (letters, digits, ".", "_", "-") with KBQA_LLM=local, got "${model}"; set KBQA_LLM_MODEL_FILE for a path`,
        );
      }),
      KBQA_LLM_MODEL_FILE: text(undefined),
      KBQA_LLM_CONTEXT_TOKENS: int(DEFAULT_MODEL_CONTEXT_TOKENS, 50, 100_000),
      KBQA_LLM_MAX_TOKENS: int(512, 1, 8192),
      KBQA_LLM_SEQUENCES: variable
        .transform((raw) => (raw?.trim().toLowerCase() === 'auto' ? undefined : raw))
        .pipe(int(undefined, 1, 64)),
      KBQA_LLM_QUEUE: int(8, 0, 10_000),
      KBQA_LLM_THREADS: int(undefined, 1, 256),
    }),
  ],
  {
    error: (issue) => {
      const got = (issue.input as Env | undefined)?.KBQA_LLM;
      return `must be "extractive", "openai" or "local", got "${got}"`;
    },
  },
);

/** Every issue, each led by the variable it is about. */
function configError(error: z.ZodError): KbqaError {
  const messages = error.issues.map((issue) =>
    issue.path.length > 0 ? `${String(issue.path[0])} ${issue.message}` : issue.message,
  );
  return new KbqaError('CONFIG_INVALID', messages.join('; '));
}

function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw configError(result.error);
  return result.data;
}

/** Reads and validates the configuration; throws with a message naming each bad variable. */
export function loadConfig(
  env: Env = process.env,
  cwd: string = process.cwd(),
  invocation: Invocation = currentInvocation(),
): AppConfig {
  const schema = z.intersection(
    z.intersection(settingsSchema(availableParallelism()), chunkingSchema),
    llmSchema,
  );
  const e = parseOrThrow(schema, { ...env, KBQA_LLM: env.KBQA_LLM || 'extractive' });
  const dataDir = resolve(cwd, e.KBQA_DATA_DIR);
  const modelsDir = resolve(cwd, e.KBQA_MODELS_DIR ?? resolve(dataDir, 'models'));
  return {
    port: e.PORT,
    host: e.HOST,
    version: e.KBQA_VERSION_OVERRIDE ?? packageVersion(),
    dataDir,
    databaseFile: resolve(dataDir, 'kbqa.sqlite'),
    databaseUrl: e.KBQA_DATABASE_URL,
    logLevel: e.KBQA_LOG_LEVEL,
    command: commandName(invocation, cwd),
    bodyLimitBytes: e.KBQA_BODY_LIMIT_BYTES,
    uploads: {
      maxFileBytes: e.KBQA_UPLOAD_MAX_FILE_BYTES,
      maxRequestBytes: e.KBQA_UPLOAD_MAX_BYTES,
      maxFiles: e.KBQA_UPLOAD_MAX_FILES,
      maxPdfPages: e.KBQA_PDF_MAX_PAGES,
    },
    redisUrl: e.REDIS_URL,
    queueName: e.KBQA_QUEUE_NAME,
    runWorkers: e.KBQA_WORKER,
    queueConcurrency: e.KBQA_QUEUE_CONCURRENCY,
    readWorkers: e.KBQA_READ_WORKERS,
    answerTrace: e.KBQA_ANSWER_TRACE === undefined ? undefined : resolve(cwd, e.KBQA_ANSWER_TRACE),
    taskTimeoutMs: e.KBQA_TASK_TIMEOUT_MS,
    queueReconcileMs: e.KBQA_QUEUE_RECONCILE_MS,
    queueStallMs: e.KBQA_QUEUE_STALL_MS,
    taskLeaseMs: e.KBQA_TASK_LEASE_MS,
    rateLimits: {
      chatServerPerMin: e.KBQA_RATE_CHAT_PER_MIN,
      chatAnonPerMin: e.KBQA_RATE_ANON_CHAT_PER_MIN,
      ingestPerMin: e.KBQA_RATE_INGEST_PER_MIN,
      authFailPerMin: e.KBQA_RATE_FAILED_KEYS_PER_MIN,
    },
    adminToken: e.KBQA_ADMIN_TOKEN,
    trustProxy: e.KBQA_TRUST_PROXY,
    syncIntervalMs: e.KBQA_SYNC_INTERVAL,
    folders: { roots: e.KBQA_FOLDER_ROOTS, rescanIntervalMs: e.KBQA_FOLDER_RESCAN_INTERVAL },
    dashboardSessionMs: e.KBQA_DASHBOARD_SESSION,
    backup: { intervalMs: e.KBQA_BACKUP_INTERVAL, keep: e.KBQA_BACKUP_KEEP },
    chunker: e.chunker,
    embedding: {
      model: e.KBQA_EMBED_MODEL,
      modelsDir,
      offline: e.KBQA_OFFLINE,
      remoteHost: e.KBQA_MODEL_HOST,
      rerank: { model: e.KBQA_RERANK_MODEL, top: e.KBQA_RERANK_TOP, budgetMs: e.KBQA_RERANK_BUDGET_MS },
    },
    llm: llmConfig(e, cwd, modelsDir),
    tools: {
      timeoutMs: e.KBQA_TOOL_TIMEOUT,
      maxBytes: e.KBQA_TOOL_MAX_BYTES,
      maxRounds: e.KBQA_TOOL_MAX_ROUNDS,
    },
    secretKey: e.KBQA_SECRET_KEY,
    integrations: {
      slackApiUrl: e.KBQA_SLACK_API_URL,
      discordApiUrl: e.KBQA_DISCORD_API_URL,
      timeoutMs: e.KBQA_INTEGRATION_TIMEOUT,
    },
    web: {
      allowPrivateHosts: e.KBQA_ALLOW_PRIVATE_HOSTS,
      userAgent: e.KBQA_USER_AGENT,
      gitBaseUrls: e.KBQA_GIT_BASE_URLS,
      youtubeOrigin: e.KBQA_YOUTUBE_ORIGIN,
    },
  };
}

function llmConfig(e: z.output<typeof llmSchema>, cwd: string, modelsDir: string): AppConfig['llm'] {
  switch (e.KBQA_LLM) {
    case 'extractive':
      return { kind: 'extractive' };
    case 'openai':
      return {
        kind: 'openai',
        // The refinement saw both set.
        baseUrl: e.KBQA_LLM_BASE_URL!,
        model: e.KBQA_LLM_MODEL!,
        apiKey: e.KBQA_LLM_API_KEY,
        timeoutMs: e.KBQA_LLM_TIMEOUT_MS,
        idleTimeoutMs: e.KBQA_LLM_IDLE_TIMEOUT_MS,
      };
    case 'local':
      return {
        kind: 'local',
        model: e.KBQA_LLM_MODEL,
        modelFile:
          e.KBQA_LLM_MODEL_FILE === undefined
            ? localModelFile(modelsDir, e.KBQA_LLM_MODEL)
            : resolve(cwd, e.KBQA_LLM_MODEL_FILE),
        contextTokens: e.KBQA_LLM_CONTEXT_TOKENS,
        maxTokens: e.KBQA_LLM_MAX_TOKENS,
        sequences: e.KBQA_LLM_SEQUENCES,
        maxQueue: e.KBQA_LLM_QUEUE,
        threads: e.KBQA_LLM_THREADS,
      };
  }
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * KBQA_DATABASE_URL: undefined when unset (SQLite), the URL when it is a PostgreSQL one with a
 * host; CONFIG_INVALID otherwise, without echoing the URL, which may carry a password.
 */
export function parseDatabaseUrl(raw: string | undefined): string | undefined {
  return parseOrThrow(z.object({ KBQA_DATABASE_URL: databaseUrl }), { KBQA_DATABASE_URL: raw })
    .KBQA_DATABASE_URL;
}

/**
 * The AES key of `KBQA_SECRET_KEY`: 64 hex digits or the base64 of 32 bytes. Undefined when unset;
 * CONFIG_INVALID for anything else, so a typo stops the start instead of sealing under a wrong key.
 */
export function parseSecretKey(raw: string | undefined): string | undefined {
  return parseOrThrow(z.object({ KBQA_SECRET_KEY: secretKey }), { KBQA_SECRET_KEY: raw }).KBQA_SECRET_KEY;
}

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_MODEL_CONTEXT_TOKENS } from '@kbqa/answer';
import { KbqaError } from '@kbqa/core';
import { DEFAULT_EMBED_MODEL } from '@kbqa/embedder';
import { DEFAULT_LOCAL_MODEL } from '@kbqa/llm-local';
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

function logLevel(env: Env): LogLevel {
  const raw = env.KBQA_LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'info';
  const level = raw === 'log' ? 'info' : raw;
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new KbqaError(
      'CONFIG_INVALID',
      `KBQA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`,
    );
  }
  return level as LogLevel;
}

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

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new KbqaError('CONFIG_INVALID', `${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new KbqaError('CONFIG_INVALID', `${name} must be true or false, got "${env[name]}"`);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `24h`, `90m`, `5s` or `1500ms` (a bare number is milliseconds). */
export function duration(env: Env, name: string, fallbackMs: number, minMs: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallbackMs;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(raw);
  const ms = m ? Number(m[1]) * DURATION_UNITS[(m[2] ?? 'ms').toLowerCase()]! : NaN;
  if (!Number.isFinite(ms) || ms < minMs) {
    throw new KbqaError(
      'CONFIG_INVALID',
      `${name} must be a duration of at least ${minMs} ms such as 24h, 30m or 5s, got "${raw}"`,
    );
  }
  return Math.round(ms);
}

/** An http(s) base URL without its trailing slash (paths are appended to it). */
function apiBaseUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) {
    throw new KbqaError('CONFIG_INVALID', `${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * KBQA_FOLDER_ROOTS: absolute paths, comma-separated (a path with a comma in it cannot be a root).
 * Relative ones are refused rather than resolved against whichever folder the process started in.
 */
function folderRoots(env: Env): string[] {
  const roots = list(env, 'KBQA_FOLDER_ROOTS', []);
  const relativeRoot = roots.find((r) => !isAbsolute(r));
  if (relativeRoot !== undefined) {
    throw new KbqaError(
      'CONFIG_INVALID',
      `KBQA_FOLDER_ROOTS must list absolute paths, comma-separated; got "${relativeRoot}"`,
    );
  }
  return roots.map((r) => resolve(r));
}

function modelsDir(env: Env, cwd: string, dataDir: string): string {
  return resolve(cwd, env.KBQA_MODELS_DIR || resolve(dataDir, 'models'));
}

/** Where `kbqa models import` puts a local chat model, and where KBQA_LLM=local looks for it. */
export function localModelFile(modelsDirectory: string, model: string): string {
  return join(modelsDirectory, 'llm', `${model}.gguf`);
}

/** Reads and validates the configuration; throws with a message naming the bad variable. */
export function loadConfig(
  env: Env = process.env,
  cwd: string = process.cwd(),
  invocation: Invocation = currentInvocation(),
): AppConfig {
  const dataDir = resolve(cwd, env.KBQA_DATA_DIR || './data');
  const llmKind = env.KBQA_LLM || 'extractive';
  let llm: AppConfig['llm'];
  if (llmKind === 'extractive') {
    llm = { kind: 'extractive' };
  } else if (llmKind === 'openai') {
    const baseUrl = env.KBQA_LLM_BASE_URL;
    const model = env.KBQA_LLM_MODEL;
    if (!baseUrl || !model) {
      throw new KbqaError('CONFIG_INVALID', 'KBQA_LLM=openai needs KBQA_LLM_BASE_URL and KBQA_LLM_MODEL');
    }
    llm = {
      kind: 'openai',
      baseUrl,
      model,
      apiKey: env.KBQA_LLM_API_KEY || undefined,
      timeoutMs: int(env, 'KBQA_LLM_TIMEOUT_MS', 120_000, 100, 600_000),
      idleTimeoutMs: int(env, 'KBQA_LLM_IDLE_TIMEOUT_MS', 30_000, 50, 600_000),
    };
  } else if (llmKind === 'local') {
    const model = env.KBQA_LLM_MODEL?.trim() || DEFAULT_LOCAL_MODEL;
    if (!/^[\w.-]+$/.test(model)) {
      throw new KbqaError(
        'CONFIG_INVALID',
        `KBQA_LLM_MODEL must be a model name (letters, digits, ".", "_", "-") with KBQA_LLM=local, got "${model}"; set KBQA_LLM_MODEL_FILE for a path`,
      );
    }
    const modelFile = env.KBQA_LLM_MODEL_FILE
      ? resolve(cwd, env.KBQA_LLM_MODEL_FILE)
      : localModelFile(modelsDir(env, cwd, dataDir), model);
    const threads = env.KBQA_LLM_THREADS ? int(env, 'KBQA_LLM_THREADS', 1, 1, 256) : undefined;
    llm = {
      kind: 'local',
      model,
      modelFile,
      contextTokens: int(env, 'KBQA_LLM_CONTEXT_TOKENS', DEFAULT_MODEL_CONTEXT_TOKENS, 50, 100_000),
      maxTokens: int(env, 'KBQA_LLM_MAX_TOKENS', 512, 1, 8192),
      sequences:
        !env.KBQA_LLM_SEQUENCES || env.KBQA_LLM_SEQUENCES.trim().toLowerCase() === 'auto'
          ? undefined
          : int(env, 'KBQA_LLM_SEQUENCES', 1, 1, 64),
      maxQueue: int(env, 'KBQA_LLM_QUEUE', 8, 0, 10_000),
      threads,
    };
  } else {
    throw new KbqaError(
      'CONFIG_INVALID',
      `KBQA_LLM must be "extractive", "openai" or "local", got "${llmKind}"`,
    );
  }
  const adminToken = env.KBQA_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && (adminToken.length < 16 || /\s/.test(adminToken))) {
    throw new KbqaError(
      'CONFIG_INVALID',
      'KBQA_ADMIN_TOKEN must be at least 16 characters without spaces (it guards every project and key)',
    );
  }
  const targetSize = int(env, 'KBQA_CHUNK_SIZE', 1000, 200, 8000);
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    version: env.KBQA_VERSION_OVERRIDE || packageVersion(),
    dataDir,
    databaseFile: resolve(dataDir, 'kbqa.sqlite'),
    databaseUrl: parseDatabaseUrl(env.KBQA_DATABASE_URL),
    logLevel: logLevel(env),
    command: commandName(invocation, cwd),
    bodyLimitBytes: int(env, 'KBQA_BODY_LIMIT_BYTES', 2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    uploads: {
      maxFileBytes: int(env, 'KBQA_UPLOAD_MAX_FILE_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxRequestBytes: int(env, 'KBQA_UPLOAD_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxFiles: int(env, 'KBQA_UPLOAD_MAX_FILES', 100, 1, 10_000),
      maxPdfPages: int(env, 'KBQA_PDF_MAX_PAGES', 1000, 1, 100_000),
    },
    redisUrl: env.REDIS_URL || undefined,
    queueName: env.KBQA_QUEUE_NAME || 'kbqa-ingestion',
    runWorkers: bool(env, 'KBQA_WORKER', true),
    queueConcurrency: int(env, 'KBQA_QUEUE_CONCURRENCY', 2, 1, 16),
    readWorkers: int(env, 'KBQA_READ_WORKERS', availableParallelism(), 0, 64),
    answerTrace: env.KBQA_ANSWER_TRACE ? resolve(cwd, env.KBQA_ANSWER_TRACE) : undefined,
    taskTimeoutMs: int(env, 'KBQA_TASK_TIMEOUT_MS', 3_600_000, 100, 86_400_000),
    queueReconcileMs: int(env, 'KBQA_QUEUE_RECONCILE_MS', 10_000, 100, 3_600_000),
    queueStallMs: int(env, 'KBQA_QUEUE_STALL_MS', 30_000, 1_000, 3_600_000),
    taskLeaseMs: int(env, 'KBQA_TASK_LEASE_MS', 30_000, 300, 3_600_000),
    rateLimits: {
      chatServerPerMin: int(env, 'KBQA_RATE_CHAT_PER_MIN', 600, 0, 1_000_000),
      chatAnonPerMin: int(env, 'KBQA_RATE_ANON_CHAT_PER_MIN', 60, 0, 1_000_000),
      ingestPerMin: int(env, 'KBQA_RATE_INGEST_PER_MIN', 60, 0, 1_000_000),
      authFailPerMin: int(env, 'KBQA_RATE_FAILED_KEYS_PER_MIN', 30, 0, 1_000_000),
    },
    adminToken,
    trustProxy: bool(env, 'KBQA_TRUST_PROXY', false),
    syncIntervalMs: duration(env, 'KBQA_SYNC_INTERVAL', 86_400_000, 1_000),
    folders: {
      roots: folderRoots(env),
      rescanIntervalMs: duration(env, 'KBQA_FOLDER_RESCAN_INTERVAL', 600_000, 1_000),
    },
    dashboardSessionMs: duration(env, 'KBQA_DASHBOARD_SESSION', 12 * 3_600_000, 1_000),
    backup: {
      intervalMs: ['', 'off', '0'].includes(env.KBQA_BACKUP_INTERVAL?.trim().toLowerCase() ?? '')
        ? undefined
        : duration(env, 'KBQA_BACKUP_INTERVAL', 0, 1_000),
      keep: int(env, 'KBQA_BACKUP_KEEP', 7, 1, 100_000),
    },
    chunker: {
      targetSize,
      maxSize: targetSize * 2,
      overlap: int(env, 'KBQA_CHUNK_OVERLAP', 100, 0, Math.floor(targetSize / 2)),
    },
    embedding: {
      model: env.KBQA_EMBED_MODEL || DEFAULT_EMBED_MODEL,
      modelsDir: modelsDir(env, cwd, dataDir),
      offline: bool(env, 'KBQA_OFFLINE', false),
      remoteHost: env.KBQA_MODEL_HOST || undefined,
      rerank: {
        model: ['', 'none'].includes(env.KBQA_RERANK_MODEL?.trim().toLowerCase() ?? '')
          ? undefined
          : env.KBQA_RERANK_MODEL?.trim(),
        top: int(env, 'KBQA_RERANK_TOP', 20, 1, 200),
        budgetMs: int(env, 'KBQA_RERANK_BUDGET_MS', 300, 1, 60_000),
      },
    },
    llm,
    tools: {
      timeoutMs: duration(env, 'KBQA_TOOL_TIMEOUT', 10_000, 100),
      maxBytes: int(env, 'KBQA_TOOL_MAX_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
      maxRounds: int(env, 'KBQA_TOOL_MAX_ROUNDS', 3, 0, 10),
    },
    secretKey: parseSecretKey(env.KBQA_SECRET_KEY),
    integrations: {
      slackApiUrl: apiBaseUrl(env, 'KBQA_SLACK_API_URL', 'https://slack.com/api'),
      discordApiUrl: apiBaseUrl(env, 'KBQA_DISCORD_API_URL', 'https://discord.com/api/v10'),
      timeoutMs: duration(env, 'KBQA_INTEGRATION_TIMEOUT', 10_000, 100),
    },
    web: {
      allowPrivateHosts: list(env, 'KBQA_ALLOW_PRIVATE_HOSTS', []),
      userAgent: env.KBQA_USER_AGENT || 'kbqa/0.1 (+https://github.com/kbqa/kbqa)',
      gitBaseUrls: list(env, 'KBQA_GIT_BASE_URLS', ['https://github.com']),
      youtubeOrigin: env.KBQA_YOUTUBE_ORIGIN || undefined,
    },
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * KBQA_DATABASE_URL: undefined when unset (SQLite), the URL when it is a PostgreSQL one with a
 * host; CONFIG_INVALID otherwise, without echoing the URL, which may carry a password.
 */
export function parseDatabaseUrl(raw: string | undefined): string | undefined {
  const text = raw?.trim();
  if (text === undefined || text === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '') {
    throw new KbqaError(
      'CONFIG_INVALID',
      'KBQA_DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/kbqa',
    );
  }
  return text;
}

/**
 * The AES key of `KBQA_SECRET_KEY`: 64 hex digits or the base64 of 32 bytes. Undefined when unset;
 * CONFIG_INVALID for anything else, so a typo stops the start instead of sealing under a wrong key.
 */
export function parseSecretKey(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return text.toLowerCase();
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === 32) return bytes.toString('hex');
  }
  throw new KbqaError(
    'CONFIG_INVALID',
    'KBQA_SECRET_KEY must be 32 bytes as 64 hex digits or base64 (e.g. from `openssl rand -hex 32`)',
  );
}

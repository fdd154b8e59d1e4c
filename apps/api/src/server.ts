import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type INestApplication, Logger } from '@nestjs/common';
import type { ReadPool } from '@kbqa/read-pool';
import { AdminTokenService } from './admin/admin-token.service';
import { createApp } from './bootstrap';
import type { AppConfig } from './config/config';
import { INGESTION_QUEUE, type IngestionQueue } from './ingestion/ingestion-queue';
import { EmbeddingService } from './retrieval/embedding.service';
import { READ_POOL } from './retrieval/read-pool.module';
import { stopOnSignals } from './stop-on-signals';

/**
 * How long a stop waits for requests in flight (a chat being answered, a streamed answer) before
 * it closes their connections. Under the 30 s that Docker and systemd wait before SIGKILL, with
 * room left for the queue and the database to close.
 */
const REQUEST_GRACE_MS = 10_000;

/** Serves the API until a signal stops it: `node dist/main.js`, `kbqa start` and the binary's `start`. */
export async function serve(config: AppConfig): Promise<void> {
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  const logger = new Logger('kbqa');
  for (const line of startupLines(app, config, address.port)) logger.log(line);
  stopServerOnSignals(app, logger);
}

/**
 * The few lines a start prints: what runs where, and how to log in. The last one says
 * `listening on`, which scripts and tests wait for.
 */
export function startupLines(app: INestApplication, config: AppConfig, port: number): string[] {
  const pool = app.get<ReadPool | null>(READ_POOL);
  const queue = app.get<IngestionQueue>(INGESTION_QUEUE);
  const embedding = app.get(EmbeddingService);
  const token = app.get(AdminTokenService);
  const store = config.databaseUrl
    ? `PostgreSQL at ${redactedHost(config.databaseUrl)}`
    : `SQLite ${config.databaseFile}, ${pool ? `${pool.size} read workers` : 'reads on the event loop'}`;
  const queued =
    (queue.kind === 'bullmq' ? 'BullMQ on Redis' : 'in-process') +
    (config.runWorkers
      ? `, ${config.queueConcurrency} tasks at a time`
      : ', no ingestion workers in this process (KBQA_WORKER=0)');
  const state = embedding.state;
  const model =
    state.status === 'disabled'
      ? 'none (KBQA_EMBED_MODEL=none)'
      : state.status === 'unavailable'
        ? `${state.model} unavailable`
        : `${state.model} ${state.status}`;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return [
    `kbqa ${config.version}, data in ${config.dataDir}`,
    `store: ${store}`,
    `queue: ${queued}`,
    `retrieval: ${embedding.retrievalMode()}; embedding model: ${model}`,
    `dashboard: ${url}/dashboard/ (${loginHint(config, token.createdOnThisStart)})`,
    `listening on http://${config.host}:${port}`,
  ];
}

/**
 * How to log in to the dashboard. The generated token is never printed, even on the first start
 * (see AdminTokenService.onModuleInit): the line names the command that makes one, which needs
 * the data directory and so no more access than the token itself gives.
 */
function loginHint(config: AppConfig, firstStart: boolean): string {
  if (config.adminToken !== undefined) return 'log in with KBQA_ADMIN_TOKEN';
  // The command reads the data directory from the environment as the service does: name it
  // unless it is the default one of the folder the command is typed in.
  const dir = config.dataDir === resolve(process.cwd(), 'data') ? '' : `KBQA_DATA_DIR=${config.dataDir} `;
  const make = `\`${dir}${config.command} admin token\``;
  return firstStart
    ? `to log in, run ${make}: it prints an operator token, once`
    : `log in with your operator token; ${make} makes a new one`;
}

/** The host and database of a PostgreSQL URL, without its user and password. */
function redactedHost(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.host}${url.pathname}`;
}

/**
 * SIGTERM and SIGINT stop the service ({@link stopOnSignals}): no new connections, requests in
 * flight finish (for up to REQUEST_GRACE_MS), the queue stops and a running ingestion task is
 * left pending, so the next start runs it again.
 */
function stopServerOnSignals(app: INestApplication, logger: Logger): void {
  stopOnSignals(logger, async () => {
    const server = app.getHttpServer() as Server;
    let cut = false;
    const grace = setTimeout(() => {
      cut = true;
      server.closeAllConnections();
    }, REQUEST_GRACE_MS);
    try {
      // The server first: Nest's close runs the modules' destroy hooks (the tools' HTTP client, the
      // rate limiter's Redis connection) before it closes the server, under requests still running.
      await new Promise<void>((done) => server.close(() => done()));
      await app.close();
    } finally {
      clearTimeout(grace);
    }
    return (
      (cut ? ` (requests still open after ${REQUEST_GRACE_MS / 1000} s were cut)` : '') +
      '; a running ingestion task continues at the next start'
    );
  });
}

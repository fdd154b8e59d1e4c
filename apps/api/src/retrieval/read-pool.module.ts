import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ReadPool } from '@kbqa/read-pool';
import { rawDatabase } from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { DATA_SOURCE } from '../database/database.module';
import { ForegroundGate } from '../common/foreground';

/** The read pool (`ReadPool`), or null when search runs on the event loop (KBQA_READ_WORKERS=0). */
export const READ_POOL = Symbol('READ_POOL');

/** How often the pool's thread checkpoints the WAL while the service's connection does not. */
const CHECKPOINT_EVERY_MS = 200;
/** SQLite's own default, which the service's connection returns to without that thread. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

@Injectable()
class ReadPoolCloser implements OnApplicationShutdown {
  constructor(@Inject(READ_POOL) private readonly pool: ReadPool | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.close();
  }
}

/**
 * Search and extractive answers off the event loop, on worker threads with their own read-only
 * connections (docs/architecture.md, "Reads under load"). Only the HTTP application has one: the
 * CLI and the ingestion worker do not chat.
 */
@Global()
@Module({
  providers: [
    ForegroundGate,
    {
      provide: READ_POOL,
      // The data source first: it creates and migrates the file the workers open read-only.
      inject: [APP_CONFIG, DATA_SOURCE],
      useFactory: async (config: AppConfig, dataSource: DataSource): Promise<ReadPool | null> => {
        // An in-memory database is one connection's own; no other thread can open it. On
        // PostgreSQL a search waits on the server, not on this thread: the pool reads SQLite only.
        if (config.readWorkers === 0 || config.databaseFile === ':memory:' || config.databaseUrl) return null;
        const logger = new Logger('ReadPool');
        try {
          const pool = await ReadPool.start({
            file: config.databaseFile,
            workers: config.readWorkers,
            // The service's connection writes every chat's messages; its checkpoints move here.
            checkpointEveryMs: CHECKPOINT_EVERY_MS,
            onCheckpointer: (running) =>
              rawDatabase(dataSource).pragma(
                `wal_autocheckpoint = ${running ? 0 : SQLITE_AUTOCHECKPOINT_PAGES}`,
              ),
          });
          // The start-up lines (server.ts) say how many; this detail is for debugging.
          logger.debug(
            `${pool.size} read workers${pool.checkpointing ? ', WAL checkpoints on their own thread' : ''}`,
          );
          return pool;
        } catch (e) {
          // Chat still works on the event loop, only slower under load.
          logger.warn(
            `read workers did not start, search runs on the event loop: ${e instanceof Error ? e.message : String(e)}`,
          );
          return null;
        }
      },
    },
    ReadPoolCloser,
  ],
  exports: [READ_POOL, ForegroundGate],
})
export class ReadPoolModule {}

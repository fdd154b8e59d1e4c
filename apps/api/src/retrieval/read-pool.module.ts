import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ReadPool } from '@kbqa/read-pool';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { DATA_SOURCE } from '../database/database.module';

/** The read pool (`ReadPool`), or null when search runs on the event loop (KBQA_READ_WORKERS=0). */
export const READ_POOL = Symbol('READ_POOL');

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
    {
      provide: READ_POOL,
      // The data source first: it creates and migrates the file the workers open read-only.
      inject: [APP_CONFIG, DATA_SOURCE],
      useFactory: async (config: AppConfig): Promise<ReadPool | null> => {
        // An in-memory database is one connection's own; no other thread can open it. On
        // PostgreSQL a search waits on the server, not on this thread: the pool reads SQLite only.
        if (config.readWorkers === 0 || config.databaseFile === ':memory:' || config.databaseUrl) return null;
        const logger = new Logger('ReadPool');
        try {
          const pool = await ReadPool.start({ file: config.databaseFile, workers: config.readWorkers });
          logger.log(`${pool.size} read workers`);
          return pool;
        } catch (e) {
          // Chat still works on the event loop, only slower under load; the single-file binary,
          // which has no worker script to start, lands here too.
          logger.warn(
            `read workers did not start, search runs on the event loop: ${e instanceof Error ? e.message : String(e)}`,
          );
          return null;
        }
      },
    },
    ReadPoolCloser,
  ],
  exports: [READ_POOL],
})
export class ReadPoolModule {}

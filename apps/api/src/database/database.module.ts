import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { openDataSource, rawDatabase, SqliteChunkIndex, SqliteRequestRecords } from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config';

export const DATA_SOURCE = Symbol('DATA_SOURCE');
/** The chunk store (`ChunkStore` of @kbqa/core); SQLite today, another store can stand in. */
export const CHUNK_STORE = Symbol('CHUNK_STORE');
/** Keys, conversations, messages and the export (`RequestRecords` of @kbqa/core). */
export const REQUEST_RECORDS = Symbol('REQUEST_RECORDS');

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: DATA_SOURCE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => openDataSource({ file: config.databaseFile }),
    },
    {
      provide: SqliteChunkIndex,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource) => new SqliteChunkIndex(rawDatabase(dataSource)),
    },
    { provide: CHUNK_STORE, useExisting: SqliteChunkIndex },
    {
      provide: REQUEST_RECORDS,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource) => new SqliteRequestRecords(rawDatabase(dataSource)),
    },
    DatabaseCloser,
  ],
  exports: [DATA_SOURCE, SqliteChunkIndex, CHUNK_STORE, REQUEST_RECORDS],
})
export class DatabaseModule {}

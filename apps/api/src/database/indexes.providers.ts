import type { Provider } from '@nestjs/common';
import type { IndexRepository } from '@kbqa/core';
import { rawDatabase, SqliteIndexRepository } from '@kbqa/store-sqlite';
import { PostgresIndexRepository, postgresPool } from '@kbqa/store-postgres';
import type { DataSource } from 'typeorm';
// database.module imports this file too: DATA_SOURCE is read when the providers are built, not on load.
import { DATA_SOURCE } from './database.module';

/** Index rows and the questions about an index's tasks (`IndexRepository` of @kbqa/core). */
export const INDEX_REPOSITORY = Symbol('INDEX_REPOSITORY');

export function sqliteIndexesProviders(): Provider[] {
  return [
    {
      provide: INDEX_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource): IndexRepository =>
        new SqliteIndexRepository(rawDatabase(dataSource)),
    },
  ];
}

export function postgresIndexesProviders(): Provider[] {
  return [
    {
      provide: INDEX_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource): IndexRepository =>
        new PostgresIndexRepository(postgresPool(dataSource)),
    },
  ];
}

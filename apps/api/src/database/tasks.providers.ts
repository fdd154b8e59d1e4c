import type { Provider } from '@nestjs/common';
import type { SourceListing, TaskLeaseRepository, TaskRepository } from '@kbqa/core';
import {
  rawDatabase,
  SqliteSourceListing,
  SqliteTaskLeaseRepository,
  SqliteTaskRepository,
} from '@kbqa/store-sqlite';
import {
  PostgresSourceListing,
  PostgresTaskLeaseRepository,
  PostgresTaskRepository,
  postgresPool,
} from '@kbqa/store-postgres';
import type { DataSource } from 'typeorm';
// database.module imports this file too: DATA_SOURCE is read when the providers are built, not on load.
import { DATA_SOURCE } from './database.module';

/** Ingestion task rows (`TaskRepository` of @kbqa/core). */
export const TASK_REPOSITORY = Symbol('TASK_REPOSITORY');
/** Claims on tasks for processes sharing the database (`TaskLeaseRepository` of @kbqa/core). */
export const TASK_LEASE_REPOSITORY = Symbol('TASK_LEASE_REPOSITORY');
/** The operator's source list and the MCP resources' source texts (`SourceListing` of @kbqa/core). */
export const SOURCE_LISTING = Symbol('SOURCE_LISTING');

export function sqliteTasksProviders(): Provider[] {
  const on =
    <T>(make: (db: ReturnType<typeof rawDatabase>) => T) =>
    (dataSource: DataSource): T =>
      make(rawDatabase(dataSource));
  return [
    {
      provide: TASK_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: on((db): TaskRepository => new SqliteTaskRepository(db)),
    },
    {
      provide: TASK_LEASE_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: on((db): TaskLeaseRepository => new SqliteTaskLeaseRepository(db)),
    },
    {
      provide: SOURCE_LISTING,
      inject: [DATA_SOURCE],
      useFactory: on((db): SourceListing => new SqliteSourceListing(db)),
    },
  ];
}

export function postgresTasksProviders(): Provider[] {
  return [
    {
      provide: TASK_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource): TaskRepository =>
        new PostgresTaskRepository(postgresPool(dataSource)),
    },
    {
      provide: TASK_LEASE_REPOSITORY,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource): TaskLeaseRepository =>
        new PostgresTaskLeaseRepository(postgresPool(dataSource)),
    },
    {
      provide: SOURCE_LISTING,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource): SourceListing =>
        new PostgresSourceListing(postgresPool(dataSource)),
    },
  ];
}

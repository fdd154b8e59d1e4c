import type { Provider } from '@nestjs/common';
import {
  rawDatabase,
  SqliteDashboardSessionRepository,
  SqliteKeyRepository,
  SqliteProjectRepository,
  SqliteToolRepository,
  SqliteToolSourceRepository,
} from '@kbqa/store-sqlite';
import {
  PostgresDashboardSessionRepository,
  PostgresKeyRepository,
  PostgresProjectRepository,
  postgresPool,
  PostgresToolRepository,
  PostgresToolSourceRepository,
} from '@kbqa/store-postgres';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from './database.module';

/** Projects (`ProjectRepository` of @kbqa/core). */
export const PROJECT_REPOSITORY = Symbol('PROJECT_REPOSITORY');
/** API keys as the operator manages them (`KeyRepository` of @kbqa/core). */
export const KEY_REPOSITORY = Symbol('KEY_REPOSITORY');
/** Dashboard logins (`DashboardSessionRepository` of @kbqa/core). */
export const DASHBOARD_SESSION_REPOSITORY = Symbol('DASHBOARD_SESSION_REPOSITORY');
/** HTTP tools (`ToolRepository` of @kbqa/core). */
export const TOOL_REPOSITORY = Symbol('TOOL_REPOSITORY');
/** Tool sources, MCP servers (`ToolSourceRepository` of @kbqa/core). */
export const TOOL_SOURCE_REPOSITORY = Symbol('TOOL_SOURCE_REPOSITORY');

export function sqliteProjectsProviders(): Provider[] {
  const on = <T>(make: (db: ReturnType<typeof rawDatabase>) => T) => ({
    inject: [DATA_SOURCE],
    useFactory: (dataSource: DataSource) => make(rawDatabase(dataSource)),
  });
  return [
    { provide: PROJECT_REPOSITORY, ...on((db) => new SqliteProjectRepository(db)) },
    { provide: KEY_REPOSITORY, ...on((db) => new SqliteKeyRepository(db)) },
    { provide: DASHBOARD_SESSION_REPOSITORY, ...on((db) => new SqliteDashboardSessionRepository(db)) },
    { provide: TOOL_REPOSITORY, ...on((db) => new SqliteToolRepository(db)) },
    { provide: TOOL_SOURCE_REPOSITORY, ...on((db) => new SqliteToolSourceRepository(db)) },
  ];
}

export function postgresProjectsProviders(): Provider[] {
  const on = <T>(make: (pool: ReturnType<typeof postgresPool>) => T) => ({
    inject: [DATA_SOURCE],
    useFactory: (dataSource: DataSource) => make(postgresPool(dataSource)),
  });
  return [
    { provide: PROJECT_REPOSITORY, ...on((pool) => new PostgresProjectRepository(pool)) },
    { provide: KEY_REPOSITORY, ...on((pool) => new PostgresKeyRepository(pool)) },
    { provide: DASHBOARD_SESSION_REPOSITORY, ...on((pool) => new PostgresDashboardSessionRepository(pool)) },
    { provide: TOOL_REPOSITORY, ...on((pool) => new PostgresToolRepository(pool)) },
    { provide: TOOL_SOURCE_REPOSITORY, ...on((pool) => new PostgresToolSourceRepository(pool)) },
  ];
}

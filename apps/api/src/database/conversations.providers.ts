import type { Provider } from '@nestjs/common';
import {
  rawDatabase,
  SqliteAnalyticsRepository,
  SqliteConversationRepository,
  SqliteIntegrationRepository,
  SqliteTaughtAnswerRepository,
} from '@kbqa/store-sqlite';
import {
  PostgresAnalyticsRepository,
  PostgresConversationRepository,
  PostgresIntegrationRepository,
  PostgresTaughtAnswerRepository,
  postgresPool,
} from '@kbqa/store-postgres';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from './database.module';

/** Conversations and messages beyond a chat's writes (`ConversationRepository` of @kbqa/core). */
export const CONVERSATIONS = Symbol('CONVERSATIONS');
/** The teaching feature's pairs (`TaughtAnswerRepository` of @kbqa/core). */
export const TAUGHT_ANSWERS = Symbol('TAUGHT_ANSWERS');
/** The dashboard's aggregates (`AnalyticsRepository` of @kbqa/core). */
export const ANALYTICS = Symbol('ANALYTICS');
/** The chat integrations' settings, handled events and threads (`IntegrationRepository` of @kbqa/core). */
export const INTEGRATIONS = Symbol('INTEGRATIONS');

export function sqliteConversationsProviders(): Provider[] {
  const on = <T>(provide: symbol, make: (db: ReturnType<typeof rawDatabase>) => T): Provider => ({
    provide,
    inject: [DATA_SOURCE],
    useFactory: (dataSource: DataSource) => make(rawDatabase(dataSource)),
  });
  return [
    on(CONVERSATIONS, (db) => new SqliteConversationRepository(db)),
    on(TAUGHT_ANSWERS, (db) => new SqliteTaughtAnswerRepository(db)),
    on(ANALYTICS, (db) => new SqliteAnalyticsRepository(db)),
    on(INTEGRATIONS, (db) => new SqliteIntegrationRepository(db)),
  ];
}

export function postgresConversationsProviders(): Provider[] {
  const on = <T>(provide: symbol, make: (pool: ReturnType<typeof postgresPool>) => T): Provider => ({
    provide,
    inject: [DATA_SOURCE],
    useFactory: (dataSource: DataSource) => make(postgresPool(dataSource)),
  });
  return [
    on(CONVERSATIONS, (pool) => new PostgresConversationRepository(pool)),
    on(TAUGHT_ANSWERS, (pool) => new PostgresTaughtAnswerRepository(pool)),
    on(ANALYTICS, (pool) => new PostgresAnalyticsRepository(pool)),
    on(INTEGRATIONS, (pool) => new PostgresIntegrationRepository(pool)),
  ];
}

import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import {
  ENTITIES,
  openDataSource,
  rawDatabase,
  SqliteChunkIndex,
  SqliteRequestRecords,
} from '@kbqa/store-sqlite';
import {
  migrate,
  openPostgresChunkStore,
  PostgresRequestRecords,
  postgresPool,
  recordPoolConfig,
} from '@kbqa/store-postgres';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { postgresConversationsProviders, sqliteConversationsProviders } from './conversations.providers';
import { postgresTasksProviders, sqliteTasksProviders } from './tasks.providers';
import { postgresProjectsProviders, sqliteProjectsProviders } from './projects.providers';
import { postgresIndexesProviders, sqliteIndexesProviders } from './indexes.providers';

export const DATA_SOURCE = Symbol('DATA_SOURCE');
/** The chunk store (`ChunkStore` of @kbqa/core): SQLite, or PostgreSQL with KBQA_DATABASE_URL. */
export const CHUNK_STORE = Symbol('CHUNK_STORE');
/** Keys, conversations, messages and the export (`RequestRecords` of @kbqa/core). */
export const REQUEST_RECORDS = Symbol('REQUEST_RECORDS');

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    // For PostgreSQL this also ends the pool the chunk store and the request records share.
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * One database for everything: the SQLite file of the data directory, or, when
 * KBQA_DATABASE_URL is set, that PostgreSQL database and nothing else (no SQLite file is opened).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    const providers = config.databaseUrl === undefined ? sqliteProviders() : postgresProviders();
    return {
      module: DatabaseModule,
      providers: [...providers, DatabaseCloser],
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}

function sqliteProviders(): Provider[] {
  return [
    {
      provide: DATA_SOURCE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => openDataSource({ file: config.databaseFile }),
    },
    {
      provide: SqliteChunkIndex,
      inject: [DATA_SOURCE, APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new SqliteChunkIndex(rawDatabase(dataSource), undefined, { command: config.command }),
    },
    { provide: CHUNK_STORE, useExisting: SqliteChunkIndex },
    {
      provide: REQUEST_RECORDS,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource) => new SqliteRequestRecords(rawDatabase(dataSource)),
    },
    ...sqliteConversationsProviders(),
    ...sqliteTasksProviders(),
    ...sqliteProjectsProviders(),
    ...sqliteIndexesProviders(),
  ];
}

function postgresProviders(): Provider[] {
  return [
    {
      provide: DATA_SOURCE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => openPostgresDataSource(config.databaseUrl!),
    },
    {
      provide: CHUNK_STORE,
      inject: [DATA_SOURCE, APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        openPostgresChunkStore(postgresPool(dataSource), { command: config.command }),
    },
    {
      provide: REQUEST_RECORDS,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource) => new PostgresRequestRecords(postgresPool(dataSource)),
    },
    ...postgresConversationsProviders(),
    ...postgresTasksProviders(),
    ...postgresProjectsProviders(),
    ...postgresIndexesProviders(),
  ];
}

/**
 * The records' TypeORM data source on PostgreSQL, with the same entities as SQLite, migrated
 * before anything reads it: the store's migrations (chunk store and records) run under an
 * advisory lock, so API and worker processes started at once migrate the database once.
 */
async function openPostgresDataSource(url: string): Promise<DataSource> {
  const { connectionString, ...extra } = recordPoolConfig(url);
  const dataSource = new DataSource({
    type: 'postgres',
    url: connectionString,
    entities: ENTITIES,
    migrationsRun: false,
    synchronize: false,
    extra,
  });
  await dataSource.initialize();
  try {
    await migrate(postgresPool(dataSource));
  } catch (e) {
    await dataSource.destroy();
    throw e;
  }
  return dataSource;
}

// The public API: what the service, the command line and the benchmarks use.
export {
  type LexicalRanking,
  openPostgresChunkStore,
  PostgresChunkStore,
  type PostgresChunkStoreOptions,
} from './chunk-store';
export { PostgresVectorStore, type Queryable } from './vector-store';
export { migrate, MIGRATIONS } from './migrations';
export { postgresPool, recordPoolConfig } from './pool';
export { PostgresRequestRecords } from './request-records';
export {
  copySqliteToPostgres,
  type CopiedTable,
  type CopyOptions,
  type CopyResult,
  type SqliteReader,
} from './copy-sqlite';
export { Batcher, type BatcherOptions } from './batcher';
export * from './records/conversations';
export { PostgresSourceListing, PostgresTaskLeaseRepository, PostgresTaskRepository } from './records/tasks';
export * from './records/projects';
export * from './records/indexes';

// The public API: what the service, the read pool and the benchmarks use. Ranking arithmetic is
// in @kbqa/ranking, the stored timestamp and record id helpers in @kbqa/core.
export { SqliteChunkIndex, type SqliteChunkIndexOptions, type SourceRecord } from './chunk-index';
export type { TermScores } from './term-scores';
export { SqliteVectorIndex, type VectorSearchTuning } from './vector-index';
export {
  checkpoint,
  type CheckpointResult,
  openCheckpointConnection,
  openDataSource,
  openReadConnection,
  rawDatabase,
  type SqliteStoreOptions,
} from './data-source';
export * from './entities';
export { SqliteRequestRecords } from './request-records';
export { writeTransaction } from './write-transaction';
export * from './backup';
export { MIGRATIONS } from './migrations';
export * from './records/conversations';
export { SqliteSourceListing, SqliteTaskLeaseRepository, SqliteTaskRepository } from './records/tasks';
export * from './records/projects';
export * from './records/indexes';

import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TaskStatus = 'pending' | 'running' | 'completed';
export type TaskKind =
  | 'documents'
  | 'files'
  | 'website-crawler'
  | 'docusaurus'
  | 'github'
  | 'youtube'
  | 'url'
  | 'sitemap'
  | 'openapi'
  | 'folder';

@Entity('ingestion_tasks')
export class IngestionTaskEntity {
  /**
   * Random, not sequential (see `newTaskId`): ingestionStatus answers without a key, so a
   * guessable id would let anyone walk every project's tasks.
   */
  @PrimaryColumn('integer')
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  kind!: TaskKind;

  @Column('text')
  status!: TaskStatus;

  @Column('integer', { default: 0 })
  current!: number;

  @Column('integer', { default: 0 })
  total!: number;

  @Column('text', { name: 'current_step', default: 'PENDING' })
  currentStep!: string;

  /** JSON of what to ingest (the raw documents, or the ingestData request); kept so a restart can run it again. */
  @Column('text')
  payload!: string;

  /** Set when completed: whether the ingestion succeeded. */
  @Column('boolean', { nullable: true })
  success!: boolean | null;

  @Column('text', { name: 'error_code', nullable: true })
  errorCode!: string | null;

  @Column('text', { nullable: true })
  error!: string | null;

  /** JSON report: counts, and the sources indexed and items skipped (`kbqa tasks show`). */
  @Column('text', { nullable: true })
  stats!: string | null;

  /** Sources indexed, kept apart from `stats` so a status poll never reads the whole report. */
  @Column('integer', { name: 'indexed_count', default: 0 })
  indexedCount!: number;

  /** Pages, files or entries skipped. */
  @Column('integer', { name: 'skipped_count', default: 0 })
  skippedCount!: number;

  /** The index this task loads or syncs; null for raw documents. */
  @Column('integer', { name: 'index_id', nullable: true })
  indexId!: number | null;

  /** JSON of the sync counts (added, updated, unchanged, removed, failed), set when completed. */
  @Column('text', { nullable: true })
  counts!: string | null;

  /** Started by the auto-sync schedule, not by hand: cancelled while pending when auto sync is switched off. */
  @Column('boolean', { default: false })
  scheduled!: boolean;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;

  @Column('text', { name: 'finished_at', nullable: true })
  finishedAt!: string | null;
}

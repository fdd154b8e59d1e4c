import type { SourceType } from '@kbqa/core';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One `ingestData` root of a project: its type, URL and options. Every page, file or video it
 * brought in belongs to it (`sources.index_id`); calling `ingestData` again with the same type and
 * URL re-syncs it, and with auto sync on it is re-synced every `KBQA_SYNC_INTERVAL`.
 */
@Entity('indexes')
export class IndexEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  type!: SourceType;

  /** The request's URL without its fragment (see `indexUrl`). */
  @Column('text')
  url!: string;

  /** JSON of the load options (include/exclude paths) of the last `ingestData` call. */
  @Column('text', { default: '{}' })
  options!: string;

  @Column('boolean', { name: 'auto_sync', default: false })
  autoSync!: boolean;

  /** When the next automatic sync is due (stored, so restarts keep the schedule); null when off. */
  @Column('text', { name: 'next_sync_at', nullable: true })
  nextSyncAt!: string | null;

  /** When the last sync (or first load) of the index ended. */
  @Column('text', { name: 'last_synced_at', nullable: true })
  lastSyncedAt!: string | null;

  @Column('integer', { name: 'last_task_id', nullable: true })
  lastTaskId!: number | null;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;
}

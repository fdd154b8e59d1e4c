import type { SourceKind } from '@kbqa/core';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type { SourceKind } from '@kbqa/core';

@Entity('sources')
export class SourceEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  /** The unique source string of the project (URL or label). */
  @Column('text')
  source!: string;

  @Column('text')
  kind!: SourceKind;

  @Column('text', { name: 'date_added' })
  dateAdded!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;

  /** Re-ingested every 24 hours when on (dashboard feature). */
  @Column('boolean', { name: 'auto_sync', default: false })
  autoSync!: boolean;
}

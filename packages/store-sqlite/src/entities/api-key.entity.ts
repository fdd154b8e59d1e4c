import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { KeyKind } from '@kbqa/core';

export type { KeyKind };

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  kind!: KeyKind;

  /** The readable start of the key (`kbqa_sk_ab12…`), kept to tell keys apart in listings. */
  @Column('text')
  prefix!: string;

  /** sha256 of the whole key; the key itself is never stored. */
  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'revoked_at', nullable: true })
  revokedAt!: string | null;

  /** When the key last authenticated, to the minute (see `RequestRecords.touchKey`); null if never. */
  @Column('text', { name: 'last_used_at', nullable: true })
  lastUsedAt!: string | null;
}

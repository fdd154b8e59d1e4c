import type { Channel, KeyKind } from '@kbqa/core';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('conversations')
export class ConversationEntity {
  /** Random (randomRecordId) for new conversations: an id tells nothing of its neighbours. */
  @PrimaryColumn('integer')
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  /** tracking.roleInfo of the chat that carried it. */
  @Column('text', { name: 'role_info', nullable: true })
  roleInfo!: string | null;

  /** The kind of key that started it: an anon key acts only on conversations an anon key started. */
  @Column('text', { name: 'started_by', default: 'server' })
  startedBy!: KeyKind;

  /** Where it was started (analytics per channel). */
  @Column('text', { name: 'channel', default: 'api' })
  channel!: Channel;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'ended_at', nullable: true })
  endedAt!: string | null;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Sender } from '@kbqa/core';

export type { Sender };

@Entity('messages')
export class MessageEntity {
  /** Random (randomRecordId) for new messages; order them by `createdAt`, then id. */
  @PrimaryColumn('integer')
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('integer', { name: 'conversation_id' })
  conversationId!: number;

  @Column('text')
  sender!: Sender;

  @Column('text')
  text!: string;

  /** For AI messages: the Human message it answers (export pairs them). */
  @Column('integer', { name: 'reply_to', nullable: true })
  replyTo!: number | null;

  /** JSON array of the sources used: [{chunk_id, source, link, score}]. */
  @Column('text', { default: '[]' })
  sources!: string;

  /** JSON array of the answer's tool calls: [{id, internal_run_id, tool_name, has_error, date}]. */
  @Column('text', { name: 'tools_used', default: '[]' })
  toolsUsed!: string;

  /** The documentation version a Human message asked about, when it named one. */
  @Column('text', { nullable: true })
  version!: string | null;

  @Column('integer', { name: 'rating_value', default: 0 })
  ratingValue!: number;

  /** False while an answer is still streaming or was cut off by a disconnect. */
  @Column('boolean', { default: true })
  complete!: boolean;

  @Column('text', { name: 'created_at' })
  createdAt!: string;
}

import type { Pool } from 'pg';
import type { Channel, KeyKind, NewMessage } from '@kbqa/core';
import { nowTimestamp, RANDOM_ID_ATTEMPTS, randomRecordId } from '@kbqa/core';
import { Batcher } from './batcher';

/** A message to store, and for a new conversation (`conversationId` null) its role info, starter and channel. */
export interface MessageWrite extends Omit<NewMessage, 'conversationId'> {
  conversationId: number | null;
  roleInfo: string | null;
  startedBy: KeyKind;
  channel: Channel;
}

/** Ids of one stored {@link MessageWrite}: its conversation (new or given) and the message. */
export interface StoredMessage {
  conversationId: number;
  messageId: number;
}

interface Pending {
  write: MessageWrite;
  /** When the write was asked for: its rows' created_at, whenever the batch is written. */
  at: string;
}

/**
 * Group commit for chat messages. Every chat writes its question and its answer, and one
 * statement and one commit each cost PostgreSQL more than the rows. So the writes asked for
 * while others are being written go together (a {@link Batcher}): one statement for new
 * conversations and messages, their random ids (randomRecordId) drawn up front so each row's ids
 * are known, one commit. A caller is answered only after that commit.
 */
export class MessageWrites {
  private readonly batcher: Batcher<Pending, StoredMessage>;

  constructor(private readonly pool: Pool) {
    this.batcher = new Batcher((batch) => this.insert(batch));
  }

  write(write: MessageWrite): Promise<StoredMessage> {
    return this.batcher.add({ write, at: nowTimestamp() });
  }

  /** Stores the writes in one statement; their ids in the writes' order. */
  private insert(batch: Pending[]): Promise<StoredMessage[]> {
    // The statement is atomic: on a collision nothing of the batch was written; draw all again.
    return withRandomIds(() => this.insertOnce(batch));
  }

  private async insertOnce(batch: Pending[]): Promise<StoredMessage[]> {
    const column = <T>(pick: (w: MessageWrite) => T): T[] => batch.map((p) => pick(p.write));
    const { rows } = await this.pool.query<{ conversation_id: number | string; message_id: number | string }>(
      {
        name: 'kbqa_message_writes',
        text: `WITH input AS (
         SELECT u.*,
                CASE WHEN u.conversation_id IS NULL THEN u.drawn_conversation END AS new_conversation
         FROM unnest($1::integer[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                     $7::text[], $8::boolean[], $9::text[], $10::text[], $11::text[], $12::bigint[],
                     $13::bigint[], $14::text[], $15::text[])
              WITH ORDINALITY AS u(project_id, conversation_id, role_info, sender, text, reply_to,
                                   sources, complete, tools_used, created_at, started_by,
                                   drawn_conversation, message_id, version, channel, ord)
       ), conversation_rows AS (
         INSERT INTO conversations (id, project_id, role_info, started_by, channel, created_at)
         SELECT new_conversation, project_id, role_info, started_by, channel, created_at FROM input
         WHERE new_conversation IS NOT NULL ORDER BY ord
       ), message_rows AS (
         INSERT INTO messages (id, project_id, conversation_id, sender, text, reply_to, sources, complete, tools_used, version, created_at)
         SELECT message_id, project_id, coalesce(conversation_id, new_conversation), sender, text, reply_to,
                sources, complete, tools_used, version, created_at
         FROM input ORDER BY ord
       )
       SELECT coalesce(conversation_id, new_conversation) AS conversation_id, message_id
       FROM input ORDER BY ord`,
        values: [
          column((w) => w.projectId),
          column((w) => w.conversationId),
          column((w) => w.roleInfo),
          column((w) => w.sender),
          column((w) => w.text),
          column((w) => w.replyTo),
          column((w) => JSON.stringify(w.sources)),
          column((w) => w.complete),
          column((w) => JSON.stringify(w.toolsUsed ?? [])),
          batch.map((p) => p.at),
          column((w) => w.startedBy),
          batch.map(() => randomRecordId()),
          batch.map(() => randomRecordId()),
          column((w) => w.version ?? null),
          column((w) => w.channel),
        ],
      },
    );
    // bigint columns: numbers whatever the pool's int8 parser (ids stay below 2^48).
    return rows.map((r) => ({ conversationId: Number(r.conversation_id), messageId: Number(r.message_id) }));
  }
}

/**
 * Runs `insert`, which draws random ids (randomRecordId) for the rows it writes in one statement,
 * again when PostgreSQL refuses one as taken (unique_violation, about 1 in 2^48 per row).
 */
export async function withRandomIds<T>(insert: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await insert();
    } catch (e) {
      const collided = (e as { code?: unknown }).code === '23505';
      if (!collided || attempt >= RANDOM_ID_ATTEMPTS) throw e;
    }
  }
}

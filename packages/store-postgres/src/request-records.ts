import type { Pool } from 'pg';
import type { ActiveKey, ExportedPair, ExportFilters, KeyKind, NewMessage, RequestRecords } from '@kbqa/core';
import { nowTimestamp } from '@kbqa/store-sqlite';

/**
 * {@link RequestRecords} on the PostgreSQL records tables (migration 2), the same rows as
 * SqliteRequestRecords writes: timestamps as nowTimestamp() text, JSON as text. The statements a
 * chat runs are named, so each connection parses and plans them once, not on every chat.
 */
export class PostgresRequestRecords implements RequestRecords {
  constructor(private readonly pool: Pool) {}

  async findActiveKey(keyHash: string): Promise<ActiveKey | undefined> {
    const { rows } = await this.pool.query<{
      id: number;
      project_id: number;
      kind: KeyKind;
      key_hash: string;
    }>({
      name: 'kbqa_active_key',
      text: 'SELECT id, project_id, kind, key_hash FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      values: [keyHash],
    });
    const row = rows[0];
    return row && { id: row.id, projectId: row.project_id, kind: row.kind, keyHash: row.key_hash };
  }

  async touchKey(keyId: number, at: string): Promise<void> {
    await this.pool.query({
      name: 'kbqa_touch_key',
      text: 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2',
      values: [at, keyId],
    });
  }

  async createConversation(projectId: number, roleInfo: string | null): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>({
      name: 'kbqa_new_conversation',
      text: 'INSERT INTO conversations (project_id, role_info, created_at) VALUES ($1, $2, $3) RETURNING id',
      values: [projectId, roleInfo, nowTimestamp()],
    });
    return rows[0]!.id;
  }

  /** One statement: the conversation's insert feeds the message's, one round trip and one commit. */
  async startConversation(
    projectId: number,
    roleInfo: string | null,
    first: Omit<NewMessage, 'projectId' | 'conversationId'>,
  ): Promise<{ conversationId: number; messageId: number }> {
    const at = nowTimestamp();
    const { rows } = await this.pool.query<{ conversation_id: number; id: number }>({
      name: 'kbqa_new_conversation_message',
      text: `WITH c AS (INSERT INTO conversations (project_id, role_info, created_at) VALUES ($1::integer, $2::text, $3::text) RETURNING id)
       INSERT INTO messages (project_id, conversation_id, sender, text, reply_to, sources, complete, tools_used, created_at)
       SELECT $1::integer, c.id, $4::text, $5::text, $6::integer, $7::text, $8::boolean, $9::text, $3::text
       FROM c RETURNING conversation_id, id`,
      values: [projectId, roleInfo, at, ...messageColumns(first)],
    });
    return { conversationId: rows[0]!.conversation_id, messageId: rows[0]!.id };
  }

  async addMessage(m: NewMessage): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>({
      name: 'kbqa_new_message',
      text: `INSERT INTO messages (project_id, conversation_id, sender, text, reply_to, sources, complete, tools_used, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      values: [m.projectId, m.conversationId, ...messageColumns(m), nowTimestamp()],
    });
    return rows[0]!.id;
  }

  async exportPairs(projectId: number, filters: ExportFilters): Promise<ExportedPair[]> {
    const params: Array<string | number> = [projectId];
    const where: string[] = ['ai.project_id = $1', "ai.sender = 'AI'"];
    const param = (value: string | number): string => `$${params.push(value)}`;
    if (filters.rating !== undefined) where.push(`ai.rating_value = ${param(filters.rating)}`);
    // Timestamps are stored as UTC text (nowTimestamp), so day bounds compare as strings.
    if (filters.startDate) where.push(`ai.created_at >= ${param(`${filters.startDate}T00:00:00.000000`)}`);
    if (filters.endDate) where.push(`ai.created_at <= ${param(`${filters.endDate}T23:59:59.999999`)}`);
    const { rows } = await this.pool.query<ExportedPair>(
      `SELECT ai.id AS "messageId", ai.conversation_id AS "conversationId", ai.created_at AS "timestamp",
              ai.text AS "aiResponse", COALESCE(h.text, '') AS "humanQuery", ai.tools_used AS "toolsUsed"
       FROM messages ai LEFT JOIN messages h ON h.id = ai.reply_to
       WHERE ${where.join(' AND ')}
       ORDER BY ai.id`,
      params,
    );
    return rows;
  }
}

/** A message's sender, text, reply_to, sources, complete and tools_used, as both inserts bind them. */
function messageColumns(m: Omit<NewMessage, 'projectId' | 'conversationId'>): unknown[] {
  return [
    m.sender,
    m.text,
    m.replyTo,
    JSON.stringify(m.sources),
    m.complete,
    JSON.stringify(m.toolsUsed ?? []),
  ];
}

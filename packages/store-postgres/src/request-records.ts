import type { Pool } from 'pg';
import type {
  ActiveKey,
  Channel,
  ExportedPair,
  ExportFilters,
  KeyKind,
  NewMessage,
  RequestRecords,
} from '@kbqa/core';
import { keyChannel, nowTimestamp, randomRecordId } from '@kbqa/core';
import { Batcher } from './batcher';
import { MessageWrites, withRandomIds } from './message-writes';

/**
 * {@link RequestRecords} on the PostgreSQL records tables (migration 2), the same rows as
 * SqliteRequestRecords writes: random ids, timestamps as nowTimestamp() text, JSON as text. The statements a
 * chat runs are named, so each connection parses and plans them once, and concurrent chats' key
 * lookups and message writes go together, one statement each per turn of the event loop.
 */
export class PostgresRequestRecords implements RequestRecords {
  private readonly writes: MessageWrites;
  private readonly keyLookups = new Batcher((hashes: string[]) => this.lookUpKeys(hashes));

  constructor(private readonly pool: Pool) {
    this.writes = new MessageWrites(pool);
  }

  /** Looked up together with the other chats' keys of the same turn (one statement, {@link Batcher}). */
  findActiveKey(keyHash: string): Promise<ActiveKey | undefined> {
    return this.keyLookups.add(keyHash);
  }

  private async lookUpKeys(hashes: string[]): Promise<Array<ActiveKey | undefined>> {
    const { rows } = await this.pool.query<{
      id: number;
      project_id: number;
      kind: KeyKind;
      key_hash: string;
    }>({
      name: 'kbqa_active_keys',
      text: 'SELECT id, project_id, kind, key_hash FROM api_keys WHERE key_hash = ANY($1::text[]) AND revoked_at IS NULL',
      values: [[...new Set(hashes)]],
    });
    const found = new Map(
      rows.map((r) => [r.key_hash, { id: r.id, projectId: r.project_id, kind: r.kind, keyHash: r.key_hash }]),
    );
    return hashes.map((h) => found.get(h));
  }

  async touchKey(keyId: number, at: string): Promise<void> {
    await this.pool.query({
      name: 'kbqa_touch_key',
      text: 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2',
      values: [at, keyId],
    });
  }

  async createConversation(
    projectId: number,
    roleInfo: string | null,
    startedBy: KeyKind = 'server',
    channel: Channel = keyChannel(startedBy),
  ): Promise<number> {
    const at = nowTimestamp();
    return withRandomIds(async () => {
      const id = randomRecordId();
      await this.pool.query({
        name: 'kbqa_new_conversation',
        text: 'INSERT INTO conversations (id, project_id, role_info, started_by, channel, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        values: [id, projectId, roleInfo, startedBy, channel, at],
      });
      return id;
    });
  }

  /** With its first message, in one statement shared with the other chats' writes (MessageWrites). */
  startConversation(
    projectId: number,
    roleInfo: string | null,
    first: Omit<NewMessage, 'projectId' | 'conversationId'>,
    startedBy: KeyKind = 'server',
    channel: Channel = keyChannel(startedBy),
  ): Promise<{ conversationId: number; messageId: number }> {
    return this.writes.write({ ...first, projectId, conversationId: null, roleInfo, startedBy, channel });
  }

  async addMessage(m: NewMessage): Promise<number> {
    // The conversation exists: its starter and channel are not written.
    return (await this.writes.write({ ...m, roleInfo: null, startedBy: 'server', channel: 'api' })).messageId;
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
       ORDER BY ai.created_at, ai.id`,
      params,
    );
    return rows;
  }
}

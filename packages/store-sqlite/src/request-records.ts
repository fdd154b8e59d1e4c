import type BetterSqlite3 from 'better-sqlite3';
import type {
  ActiveKey,
  Channel,
  ExportedPair,
  ExportFilters,
  KeyKind,
  NewMessage,
  RequestRecords,
  Sender,
} from '@kbqa/core';
import { keyChannel, nowTimestamp, RANDOM_ID_ATTEMPTS, randomRecordId } from '@kbqa/core';

/**
 * {@link RequestRecords} on one SQLite database, with statements prepared once. Conversations and
 * messages get random ids (randomRecordId), so an id tells nothing of its neighbours.
 */
export class SqliteRequestRecords implements RequestRecords {
  private readonly stmt: ReturnType<SqliteRequestRecords['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      findActiveKey: db.prepare<
        [string],
        { id: number; project_id: number; kind: KeyKind; key_hash: string }
      >('SELECT id, project_id, kind, key_hash FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL'),
      touchKey: db.prepare<[string, number]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
      insertConversation: db.prepare<[number, number, string | null, KeyKind, Channel, string]>(
        'INSERT INTO conversations (id, project_id, role_info, started_by, channel, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertMessage: db.prepare<
        [number, number, number, Sender, string, number | null, string, number, string, string | null, string]
      >(
        `INSERT INTO messages (id, project_id, conversation_id, sender, text, reply_to, sources, complete, tools_used, version, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  findActiveKey(keyHash: string): ActiveKey | undefined {
    const row = this.stmt.findActiveKey.get(keyHash);
    return row && { id: row.id, projectId: row.project_id, kind: row.kind, keyHash: row.key_hash };
  }

  touchKey(keyId: number, at: string): void {
    this.stmt.touchKey.run(at, keyId);
  }

  createConversation(
    projectId: number,
    roleInfo: string | null,
    startedBy: KeyKind = 'server',
    channel: Channel = keyChannel(startedBy),
  ): number {
    const at = nowTimestamp();
    return withRandomId((id) =>
      this.stmt.insertConversation.run(id, projectId, roleInfo, startedBy, channel, at),
    );
  }

  startConversation(
    projectId: number,
    roleInfo: string | null,
    first: Omit<NewMessage, 'projectId' | 'conversationId'>,
    startedBy: KeyKind = 'server',
    channel: Channel = keyChannel(startedBy),
  ): { conversationId: number; messageId: number } {
    return this.db.transaction(() => {
      const conversationId = this.createConversation(projectId, roleInfo, startedBy, channel);
      return { conversationId, messageId: this.addMessage({ ...first, projectId, conversationId }) };
    })();
  }

  addMessage(m: NewMessage): number {
    const at = nowTimestamp();
    return withRandomId((id) =>
      this.stmt.insertMessage.run(
        id,
        m.projectId,
        m.conversationId,
        m.sender,
        m.text,
        m.replyTo,
        JSON.stringify(m.sources),
        m.complete ? 1 : 0,
        JSON.stringify(m.toolsUsed ?? []),
        m.version ?? null,
        at,
      ),
    );
  }

  exportPairs(projectId: number, filters: ExportFilters): ExportedPair[] {
    const where: string[] = ['ai.project_id = ?', "ai.sender = 'AI'"];
    const params: Array<string | number> = [projectId];
    if (filters.rating !== undefined) {
      where.push('ai.rating_value = ?');
      params.push(filters.rating);
    }
    // Timestamps are stored as UTC text (nowTimestamp), so day bounds compare as strings.
    if (filters.startDate) {
      where.push('ai.created_at >= ?');
      params.push(`${filters.startDate}T00:00:00.000000`);
    }
    if (filters.endDate) {
      where.push('ai.created_at <= ?');
      params.push(`${filters.endDate}T23:59:59.999999`);
    }
    return this.db
      .prepare<Array<string | number>, ExportedPair>(
        `SELECT ai.id AS messageId, ai.conversation_id AS conversationId, ai.created_at AS timestamp,
                ai.text AS aiResponse, COALESCE(h.text, '') AS humanQuery, ai.tools_used AS toolsUsed
         FROM messages ai LEFT JOIN messages h ON h.id = ai.reply_to
         WHERE ${where.join(' AND ')}
         ORDER BY ai.created_at, ai.id`,
      )
      .all(...params);
  }
}

/** Runs `insert` with a fresh random id, drawing again on a collision; returns the id stored. */
function withRandomId(insert: (id: number) => unknown): number {
  for (let attempt = 1; ; attempt++) {
    const id = randomRecordId();
    try {
      insert(id);
      return id;
    } catch (e) {
      const collided = (e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
      if (!collided || attempt >= RANDOM_ID_ATTEMPTS) throw e;
    }
  }
}

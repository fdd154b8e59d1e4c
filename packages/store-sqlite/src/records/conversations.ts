import type BetterSqlite3 from 'better-sqlite3';
import type {
  AnalyticsRepository,
  ConversationListFilter,
  ConversationRecord,
  ConversationRepository,
  ConversationSummary,
  GapCandidate,
  IntegrationRecord,
  IntegrationRepository,
  KeyKind,
  MessageRecord,
  Platform,
  Sender,
  TaughtAnswerRecord,
  TaughtAnswerRepository,
  TaughtCandidateRecord,
} from '@kbqa/core';

interface ConversationRow {
  id: number;
  project_id: number;
  role_info: string | null;
  started_by: KeyKind;
  created_at: string;
  ended_at: string | null;
}

interface MessageRow {
  id: number;
  project_id: number;
  conversation_id: number;
  sender: Sender;
  text: string;
  reply_to: number | null;
  sources: string;
  tools_used: string;
  version: string | null;
  rating_value: number;
  complete: number;
  created_at: string;
}

const MESSAGE_COLUMNS =
  'id, project_id, conversation_id, sender, text, reply_to, sources, tools_used, version, rating_value, complete, created_at';

function toConversation(r: ConversationRow): ConversationRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    roleInfo: r.role_info,
    startedBy: r.started_by,
    createdAt: r.created_at,
    endedAt: r.ended_at,
  };
}

function toMessage(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    conversationId: r.conversation_id,
    sender: r.sender,
    text: r.text,
    replyTo: r.reply_to,
    sources: r.sources,
    toolsUsed: r.tools_used,
    version: r.version,
    ratingValue: r.rating_value,
    complete: r.complete !== 0,
    createdAt: r.created_at,
  };
}

/** {@link ConversationRepository} on one SQLite database, its fixed statements prepared once. */
export class SqliteConversationRepository implements ConversationRepository {
  private readonly stmt: ReturnType<SqliteConversationRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    const conversation =
      'SELECT id, project_id, role_info, started_by, created_at, ended_at FROM conversations';
    return {
      conversation: db.prepare<[number], ConversationRow>(`${conversation} WHERE id = ?`),
      projectConversation: db.prepare<[number, number], ConversationRow>(
        `${conversation} WHERE id = ? AND project_id = ?`,
      ),
      setRoleInfo: db.prepare<[string, number]>('UPDATE conversations SET role_info = ? WHERE id = ?'),
      end: db.prepare<[string, number]>(
        'UPDATE conversations SET ended_at = ? WHERE id = ? AND ended_at IS NULL',
      ),
      messagesOf: db.prepare<[number, number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE project_id = ? AND conversation_id = ? ORDER BY created_at, id`,
      ),
      allMessagesOf: db.prepare<[number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY created_at, id`,
      ),
      recent: db.prepare<[number, number, number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE project_id = ? AND conversation_id = ?
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      answer: db.prepare<[number, number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ? AND project_id = ? AND sender = 'AI'`,
      ),
      rate: db.prepare<[number, number, number]>(
        "UPDATE messages SET rating_value = ? WHERE id = ? AND project_id = ? AND sender = 'AI'",
      ),
    };
  }

  findConversation(id: number, projectId?: number): ConversationRecord | undefined {
    const row =
      projectId === undefined
        ? this.stmt.conversation.get(id)
        : this.stmt.projectConversation.get(id, projectId);
    return row && toConversation(row);
  }

  setRoleInfo(id: number, roleInfo: string): void {
    this.stmt.setRoleInfo.run(roleInfo, id);
  }

  endConversation(id: number, at: string): void {
    this.stmt.end.run(at, id);
  }

  messagesOf(projectId: number, conversationId: number): MessageRecord[] {
    return this.stmt.messagesOf.all(projectId, conversationId).map(toMessage);
  }

  allMessagesOf(conversationId: number): MessageRecord[] {
    return this.stmt.allMessagesOf.all(conversationId).map(toMessage);
  }

  recentMessages(projectId: number, conversationId: number, limit: number): MessageRecord[] {
    return this.stmt.recent.all(projectId, conversationId, limit).map(toMessage);
  }

  findAnswer(projectId: number, messageId: number): MessageRecord | undefined {
    const row = this.stmt.answer.get(messageId, projectId);
    return row && toMessage(row);
  }

  rateAnswer(projectId: number, messageId: number, rating: number): boolean {
    return this.stmt.rate.run(rating, messageId, projectId).changes > 0;
  }

  listConversations(
    projectId: number,
    filter: ConversationListFilter,
  ): { total: number; conversations: ConversationSummary[] } {
    const where: string[] = ['c.project_id = ?'];
    const params: Array<string | number> = [projectId];
    if (filter.start !== undefined) {
      where.push('c.created_at >= ?');
      params.push(filter.start);
    }
    if (filter.end !== undefined) {
      where.push('c.created_at <= ?');
      params.push(filter.end);
    }
    const rated = (value: number) =>
      `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI' AND m.rating_value = ${value})`;
    if (filter.rating === 'good') where.push(rated(1));
    if (filter.rating === 'bad') where.push(rated(-1));
    if (filter.rating === 'unrated') {
      where.push(
        `NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI' AND m.rating_value <> 0)`,
      );
    }
    // A substring match (LIKE, the search text's wildcards escaped), as the sources' search
    // does: messages have no full-text index, and a project's are few enough.
    for (const word of filter.words) {
      where.push(
        `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND lower(m.text) LIKE ? ESCAPE '!')`,
      );
      params.push(`%${word.replace(/[!%_]/g, '!$&')}%`);
    }
    const condition = where.join(' AND ');
    const count = this.db
      .prepare<Array<string | number>, { n: number }>(
        `SELECT count(*) AS n FROM conversations c WHERE ${condition}`,
      )
      .get(...params);
    const rows = this.db
      .prepare<
        Array<string | number>,
        {
          id: number;
          created_at: string;
          ended_at: string | null;
          messages: number;
          first_question: string | null;
          good: number;
          bad: number;
        }
      >(
        `SELECT c.id, c.created_at, c.ended_at,
           (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS messages,
           (SELECT m.text FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'Human'
            ORDER BY m.created_at, m.id LIMIT 1) AS first_question,
           (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
            AND m.rating_value = 1) AS good,
           (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
            AND m.rating_value = -1) AS bad
         FROM conversations c WHERE ${condition}
         ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, filter.limit, filter.offset);
    return {
      total: count?.n ?? 0,
      conversations: rows.map((r) => ({
        id: r.id,
        createdAt: r.created_at,
        endedAt: r.ended_at,
        messages: r.messages,
        firstQuestion: r.first_question,
        good: r.good,
        bad: r.bad,
      })),
    };
  }
}

const TAUGHT_COLUMNS = `t.id, t.project_id AS projectId, t.question, t.answer, s.source,
  t.created_at AS createdAt, t.updated_at AS updatedAt`;
/** A taught pair counts while its source exists (the public deleteSource may remove it). */
const TAUGHT_JOIN = `taught_answers t
  JOIN sources s ON s.project_id = t.project_id AND s.source = 'taught:' || t.id AND s.kind = 'teach'`;

/** {@link TaughtAnswerRepository} on one SQLite database; the match every chat runs is prepared once. */
export class SqliteTaughtAnswerRepository implements TaughtAnswerRepository {
  private readonly stmt: ReturnType<SqliteTaughtAnswerRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      list: db.prepare<[number], TaughtAnswerRecord>(
        `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.project_id = ? ORDER BY t.id`,
      ),
      get: db.prepare<[number], TaughtAnswerRecord>(
        `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.id = ?`,
      ),
      insert: db.prepare<[number, string, string, string, string]>(
        'INSERT INTO taught_answers (project_id, question, answer, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      ),
      update: db.prepare<[string, string, string, number]>(
        'UPDATE taught_answers SET question = ?, answer = ?, updated_at = ? WHERE id = ?',
      ),
      delete: db.prepare<[number]>('DELETE FROM taught_answers WHERE id = ?'),
      deleteOfProject: db.prepare<[number, number]>(
        'DELETE FROM taught_answers WHERE id = ? AND project_id = ?',
      ),
      candidates: db.prepare<[number], TaughtCandidateRecord>(
        `SELECT t.id, t.question, t.answer, s.source, s.id AS sourceId, c.id AS chunkId, c.document_id AS documentId
         FROM ${TAUGHT_JOIN}
         JOIN chunks c ON c.id = (SELECT min(id) FROM chunks WHERE source_id = s.id)
         WHERE t.project_id = ?`,
      ),
    };
  }

  list(projectId: number): TaughtAnswerRecord[] {
    return this.stmt.list.all(projectId);
  }

  get(id: number): TaughtAnswerRecord | undefined {
    return this.stmt.get.get(id);
  }

  insert(pair: { projectId: number; question: string; answer: string; at: string }): number {
    const { lastInsertRowid } = this.stmt.insert.run(
      pair.projectId,
      pair.question,
      pair.answer,
      pair.at,
      pair.at,
    );
    return Number(lastInsertRowid);
  }

  update(id: number, pair: { question: string; answer: string; at: string }): void {
    this.stmt.update.run(pair.question, pair.answer, pair.at, id);
  }

  delete(id: number, projectId?: number): void {
    if (projectId === undefined) this.stmt.delete.run(id);
    else this.stmt.deleteOfProject.run(id, projectId);
  }

  candidates(projectId: number): TaughtCandidateRecord[] {
    return this.stmt.candidates.all(projectId);
  }
}

/** {@link AnalyticsRepository} on one SQLite database: read-only aggregates, statements prepared once. */
export class SqliteAnalyticsRepository implements AnalyticsRepository {
  private readonly stmt: ReturnType<SqliteAnalyticsRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    type Range = [number, string, string];
    const gaps = (byVersion: string) =>
      db.prepare<
        Array<string | number>,
        { question: string; asked_at: string; no_source: number; rated_bad: number }
      >(
        `WITH answered AS (
           SELECT h.text AS question, h.created_at AS asked_at, ai.rating_value AS rating, ai.text AS answer,
             json_array_length(ai.sources) AS found
           FROM messages ai JOIN messages h ON h.id = ai.reply_to
           WHERE ai.project_id = ? AND ai.sender = 'AI' AND h.created_at >= ? AND h.created_at <= ?${byVersion})
         SELECT question, asked_at,
           CASE WHEN coalesce(found, 0) = 0 OR substr(answer, 1, ?) = ? THEN 1 ELSE 0 END AS no_source,
           CASE WHEN rating = -1 THEN 1 ELSE 0 END AS rated_bad
         FROM answered
         WHERE coalesce(found, 0) = 0 OR substr(answer, 1, ?) = ? OR rating = -1`,
      );
    return {
      perDay: db.prepare<Range, { day: string; n: number }>(
        `SELECT substr(created_at, 1, 10) AS day, count(*) AS n FROM messages
         WHERE project_id = ? AND sender = 'Human' AND created_at >= ? AND created_at <= ?
         GROUP BY day`,
      ),
      // A question counts under the channel its conversation was started in.
      byChannel: db.prepare<Range, { channel: string; n: number }>(
        `SELECT c.channel, count(*) AS n
         FROM messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE m.project_id = ? AND m.sender = 'Human' AND m.created_at >= ? AND m.created_at <= ?
         GROUP BY c.channel`,
      ),
      ratings: db.prepare<Range, { answers: number; good: number | null; bad: number | null }>(
        `SELECT count(*) AS answers, sum(CASE WHEN rating_value = 1 THEN 1 ELSE 0 END) AS good,
           sum(CASE WHEN rating_value = -1 THEN 1 ELSE 0 END) AS bad FROM messages
         WHERE project_id = ? AND sender = 'AI' AND created_at >= ? AND created_at <= ?`,
      ),
      perVersion: db.prepare<Range, { version: string | null; n: number }>(
        `SELECT version, count(*) AS n FROM messages
         WHERE project_id = ? AND sender = 'Human' AND created_at >= ? AND created_at <= ?
         GROUP BY version`,
      ),
      ended: db.prepare<Range, { created_at: string; ended_at: string }>(
        `SELECT created_at, ended_at FROM conversations
         WHERE project_id = ? AND ended_at IS NOT NULL AND created_at >= ? AND created_at <= ?`,
      ),
      gaps: gaps(''),
      gapsOfVersion: gaps(' AND h.version = ?'),
    };
  }

  questionsPerDay(projectId: number, start: string, end: string): Array<{ day: string; questions: number }> {
    return this.stmt.perDay.all(projectId, start, end).map((r) => ({ day: r.day, questions: r.n }));
  }

  questionsByChannel(
    projectId: number,
    start: string,
    end: string,
  ): Array<{ channel: string; questions: number }> {
    return this.stmt.byChannel
      .all(projectId, start, end)
      .map((r) => ({ channel: r.channel, questions: r.n }));
  }

  answerRatings(
    projectId: number,
    start: string,
    end: string,
  ): { answers: number; good: number; bad: number } {
    const r = this.stmt.ratings.get(projectId, start, end);
    return { answers: r?.answers ?? 0, good: r?.good ?? 0, bad: r?.bad ?? 0 };
  }

  questionsPerVersion(
    projectId: number,
    start: string,
    end: string,
  ): Array<{ version: string | null; questions: number }> {
    return this.stmt.perVersion
      .all(projectId, start, end)
      .map((r) => ({ version: r.version, questions: r.n }));
  }

  endedConversations(
    projectId: number,
    start: string,
    end: string,
  ): Array<{ createdAt: string; endedAt: string }> {
    return this.stmt.ended
      .all(projectId, start, end)
      .map((r) => ({ createdAt: r.created_at, endedAt: r.ended_at }));
  }

  gapCandidates(
    projectId: number,
    range: { start: string; end: string; version?: string; notCovered: string },
  ): GapCandidate[] {
    // The not-covered answer may be followed by "You may want to read: …": compare its start.
    const notCovered = [range.notCovered.length, range.notCovered];
    const rows =
      range.version === undefined
        ? this.stmt.gaps.all(projectId, range.start, range.end, ...notCovered, ...notCovered)
        : this.stmt.gapsOfVersion.all(
            projectId,
            range.start,
            range.end,
            range.version,
            ...notCovered,
            ...notCovered,
          );
    return rows.map((r) => ({
      question: r.question,
      askedAt: r.asked_at,
      noSource: r.no_source === 1,
      ratedBad: r.rated_bad === 1,
    }));
  }
}

interface IntegrationRow {
  project_id: number;
  platform: Platform;
  settings: string;
  created_at: string;
  updated_at: string;
  last_event_at: string | null;
  last_event: string | null;
}

function toIntegration(r: IntegrationRow): IntegrationRecord {
  return {
    projectId: r.project_id,
    platform: r.platform,
    settings: JSON.parse(r.settings) as Record<string, string>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastEventAt: r.last_event_at,
    lastEvent: r.last_event,
  };
}

/** {@link IntegrationRepository} on one SQLite database, statements prepared once. */
export class SqliteIntegrationRepository implements IntegrationRepository {
  private readonly stmt: ReturnType<SqliteIntegrationRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    const columns = 'project_id, platform, settings, created_at, updated_at, last_event_at, last_event';
    return {
      get: db.prepare<[number, Platform], IntegrationRow>(
        `SELECT ${columns} FROM chat_integrations WHERE project_id = ? AND platform = ?`,
      ),
      list: db.prepare<[number], IntegrationRow>(
        `SELECT ${columns} FROM chat_integrations WHERE project_id = ? ORDER BY platform`,
      ),
      put: db.prepare<[number, Platform, string, string, string]>(
        `INSERT INTO chat_integrations (project_id, platform, settings, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id, platform) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare<[number, Platform]>(
        'DELETE FROM chat_integrations WHERE project_id = ? AND platform = ?',
      ),
      touch: db.prepare<[string, string, number, Platform]>(
        'UPDATE chat_integrations SET last_event_at = ?, last_event = ? WHERE project_id = ? AND platform = ?',
      ),
      event: db.prepare<[number, Platform, string, string]>(
        `INSERT INTO integration_events (project_id, platform, event_key, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (project_id, platform, event_key) DO NOTHING`,
      ),
      forget: db.prepare<[string]>('DELETE FROM integration_events WHERE created_at < ?'),
      thread: db.prepare<[number, Platform, string], { conversation_id: number }>(
        'SELECT conversation_id FROM integration_threads WHERE project_id = ? AND platform = ? AND thread_key = ?',
      ),
      link: db.prepare<[number, Platform, string, number, string]>(
        `INSERT INTO integration_threads (project_id, platform, thread_key, conversation_id, created_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id, platform, thread_key) DO UPDATE SET conversation_id = excluded.conversation_id`,
      ),
    };
  }

  get(projectId: number, platform: Platform): IntegrationRecord | undefined {
    const row = this.stmt.get.get(projectId, platform);
    return row && toIntegration(row);
  }

  list(projectId: number): IntegrationRecord[] {
    return this.stmt.list.all(projectId).map(toIntegration);
  }

  put(projectId: number, platform: Platform, settings: Record<string, string>, at: string): void {
    this.stmt.put.run(projectId, platform, JSON.stringify(settings), at, at);
  }

  delete(projectId: number, platform: Platform): boolean {
    return this.stmt.delete.run(projectId, platform).changes > 0;
  }

  touch(projectId: number, platform: Platform, event: string, at: string): void {
    this.stmt.touch.run(at, event, projectId, platform);
  }

  firstDelivery(
    projectId: number,
    platform: Platform,
    eventKey: string,
    at: string,
    forgetBefore: string,
  ): boolean {
    const first = this.stmt.event.run(projectId, platform, eventKey, at).changes > 0;
    // Pruned as events come, an indexed range delete: no timer to run or stop.
    if (first) this.stmt.forget.run(forgetBefore);
    return first;
  }

  conversationOf(projectId: number, platform: Platform, threadKey: string): number | undefined {
    return this.stmt.thread.get(projectId, platform, threadKey)?.conversation_id;
  }

  linkThread(
    projectId: number,
    platform: Platform,
    threadKey: string,
    conversationId: number,
    at: string,
  ): void {
    this.stmt.link.run(projectId, platform, threadKey, conversationId, at);
  }
}

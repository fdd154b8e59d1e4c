import type { Pool } from 'pg';
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
import { Batcher } from '../batcher';

// Ids and counts are bigint: numbers with the API's pool (recordPoolConfig), text with a plain
// pool; read both the same.

interface ConversationRow {
  id: number | string;
  project_id: number;
  role_info: string | null;
  started_by: KeyKind;
  created_at: string;
  ended_at: string | null;
}

interface MessageRow {
  id: number | string;
  project_id: number;
  conversation_id: number | string;
  sender: Sender;
  text: string;
  reply_to: number | string | null;
  sources: string;
  tools_used: string;
  version: string | null;
  rating_value: number;
  complete: boolean;
  created_at: string;
}

const MESSAGE_COLUMNS =
  'id, project_id, conversation_id, sender, text, reply_to, sources, tools_used, version, rating_value, complete, created_at';
const CONVERSATION_COLUMNS = 'id, project_id, role_info, started_by, created_at, ended_at';

function toConversation(r: ConversationRow): ConversationRecord {
  return {
    id: Number(r.id),
    projectId: r.project_id,
    roleInfo: r.role_info,
    startedBy: r.started_by,
    createdAt: r.created_at,
    endedAt: r.ended_at,
  };
}

function toMessage(r: MessageRow): MessageRecord {
  return {
    id: Number(r.id),
    projectId: r.project_id,
    conversationId: Number(r.conversation_id),
    sender: r.sender,
    text: r.text,
    replyTo: r.reply_to === null ? null : Number(r.reply_to),
    sources: r.sources,
    toolsUsed: r.tools_used,
    version: r.version,
    ratingValue: r.rating_value,
    complete: r.complete,
    createdAt: r.created_at,
  };
}

/** {@link ConversationRepository} on the PostgreSQL records tables, the rows SqliteConversationRepository reads. */
export class PostgresConversationRepository implements ConversationRepository {
  constructor(private readonly pool: Pool) {}

  async findConversation(id: number, projectId?: number): Promise<ConversationRecord | undefined> {
    const { rows } =
      projectId === undefined
        ? await this.pool.query<ConversationRow>(
            `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`,
            [id],
          )
        : await this.pool.query<ConversationRow>(
            `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1 AND project_id = $2`,
            [id, projectId],
          );
    return rows[0] && toConversation(rows[0]);
  }

  async setRoleInfo(id: number, roleInfo: string): Promise<void> {
    await this.pool.query('UPDATE conversations SET role_info = $1 WHERE id = $2', [roleInfo, id]);
  }

  async endConversation(id: number, at: string): Promise<void> {
    await this.pool.query('UPDATE conversations SET ended_at = $1 WHERE id = $2 AND ended_at IS NULL', [
      at,
      id,
    ]);
  }

  async messagesOf(projectId: number, conversationId: number): Promise<MessageRecord[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE project_id = $1 AND conversation_id = $2 ORDER BY created_at, id`,
      [projectId, conversationId],
    );
    return rows.map(toMessage);
  }

  async allMessagesOf(conversationId: number): Promise<MessageRecord[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY created_at, id`,
      [conversationId],
    );
    return rows.map(toMessage);
  }

  /** A chat that continues a conversation without its history reads this: named, planned once a connection. */
  async recentMessages(projectId: number, conversationId: number, limit: number): Promise<MessageRecord[]> {
    const { rows } = await this.pool.query<MessageRow>({
      name: 'kbqa_recent_messages',
      text: `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE project_id = $1 AND conversation_id = $2
             ORDER BY created_at DESC, id DESC LIMIT $3`,
      values: [projectId, conversationId, limit],
    });
    return rows.map(toMessage);
  }

  async findAnswer(projectId: number, messageId: number): Promise<MessageRecord | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1 AND project_id = $2 AND sender = 'AI'`,
      [messageId, projectId],
    );
    return rows[0] && toMessage(rows[0]);
  }

  async rateAnswer(projectId: number, messageId: number, rating: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE messages SET rating_value = $1 WHERE id = $2 AND project_id = $3 AND sender = 'AI'",
      [rating, messageId, projectId],
    );
    return (rowCount ?? 0) > 0;
  }

  async listConversations(
    projectId: number,
    filter: ConversationListFilter,
  ): Promise<{ total: number; conversations: ConversationSummary[] }> {
    const params: Array<string | number> = [projectId];
    const param = (value: string | number): string => `$${params.push(value)}`;
    const where: string[] = ['c.project_id = $1'];
    if (filter.start !== undefined) where.push(`c.created_at >= ${param(filter.start)}`);
    if (filter.end !== undefined) where.push(`c.created_at <= ${param(filter.end)}`);
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
      const pattern = param(`%${word.replace(/[!%_]/g, '!$&')}%`);
      where.push(
        `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND lower(m.text) LIKE ${pattern} ESCAPE '!')`,
      );
    }
    const condition = where.join(' AND ');
    const count = await this.pool.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM conversations c WHERE ${condition}`,
      params,
    );
    const page = [...params];
    const { rows } = await this.pool.query<{
      id: number | string;
      created_at: string;
      ended_at: string | null;
      messages: number | string;
      first_question: string | null;
      good: number | string;
      bad: number | string;
    }>(
      `SELECT c.id, c.created_at, c.ended_at,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS messages,
         (SELECT m.text FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'Human'
          ORDER BY m.created_at, m.id LIMIT 1) AS first_question,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
          AND m.rating_value = 1) AS good,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
          AND m.rating_value = -1) AS bad
       FROM conversations c WHERE ${condition}
       ORDER BY c.created_at DESC, c.id DESC LIMIT $${page.push(filter.limit)} OFFSET $${page.push(filter.offset)}`,
      page,
    );
    return {
      total: Number(count.rows[0]?.n ?? 0),
      conversations: rows.map((r) => ({
        id: Number(r.id),
        createdAt: r.created_at,
        endedAt: r.ended_at,
        messages: Number(r.messages),
        firstQuestion: r.first_question,
        good: Number(r.good),
        bad: Number(r.bad),
      })),
    };
  }
}

const TAUGHT_COLUMNS = `t.id, t.project_id AS "projectId", t.question, t.answer, s.source,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;
/** A taught pair counts while its source exists (the public deleteSource may remove it). */
const TAUGHT_JOIN = `taught_answers t
  JOIN sources s ON s.project_id = t.project_id AND s.source = 'taught:' || t.id AND s.kind = 'teach'`;

/**
 * {@link TaughtAnswerRepository} on PostgreSQL. Every chat reads its project's taught pairs, so
 * concurrent chats read them together (one named statement a turn of the event loop, {@link Batcher}).
 */
export class PostgresTaughtAnswerRepository implements TaughtAnswerRepository {
  private readonly candidateReads = new Batcher((projectIds: number[]) => this.candidatesOf(projectIds));

  constructor(private readonly pool: Pool) {}

  async list(projectId: number): Promise<TaughtAnswerRecord[]> {
    const { rows } = await this.pool.query<TaughtAnswerRecord>(
      `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.project_id = $1 ORDER BY t.id`,
      [projectId],
    );
    return rows;
  }

  async get(id: number): Promise<TaughtAnswerRecord | undefined> {
    const { rows } = await this.pool.query<TaughtAnswerRecord>(
      `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.id = $1`,
      [id],
    );
    return rows[0];
  }

  async insert(pair: { projectId: number; question: string; answer: string; at: string }): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>(
      `INSERT INTO taught_answers (project_id, question, answer, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4) RETURNING id`,
      [pair.projectId, pair.question, pair.answer, pair.at],
    );
    return rows[0]!.id;
  }

  async update(id: number, pair: { question: string; answer: string; at: string }): Promise<void> {
    await this.pool.query(
      'UPDATE taught_answers SET question = $1, answer = $2, updated_at = $3 WHERE id = $4',
      [pair.question, pair.answer, pair.at, id],
    );
  }

  async delete(id: number, projectId?: number): Promise<void> {
    if (projectId === undefined) await this.pool.query('DELETE FROM taught_answers WHERE id = $1', [id]);
    else
      await this.pool.query('DELETE FROM taught_answers WHERE id = $1 AND project_id = $2', [id, projectId]);
  }

  candidates(projectId: number): Promise<TaughtCandidateRecord[]> {
    return this.candidateReads.add(projectId);
  }

  /** Each project's taught pairs with the first chunk of their source, in one statement for all. */
  private async candidatesOf(projectIds: number[]): Promise<TaughtCandidateRecord[][]> {
    // Named: each connection of the pool parses and plans it once (unnamed, planning was most of
    // what the match cost PostgreSQL a chat).
    const { rows } = await this.pool.query<TaughtCandidateRecord & { projectId: number }>({
      name: 'kbqa_taught_candidates',
      text: `SELECT t.id, t.project_id AS "projectId", t.question, t.answer, s.source, s.id AS "sourceId",
                    c.id AS "chunkId", c.document_id AS "documentId"
             FROM ${TAUGHT_JOIN}
             JOIN chunks c ON c.id = (SELECT min(id) FROM chunks WHERE source_id = s.id)
             WHERE t.project_id = ANY($1::integer[])`,
      values: [[...new Set(projectIds)]],
    });
    return projectIds.map((id) =>
      rows
        .filter((r) => r.projectId === id)
        .map(({ projectId: _, ...r }) => ({
          ...r,
          sourceId: Number(r.sourceId),
          chunkId: Number(r.chunkId),
          documentId: Number(r.documentId),
        })),
    );
  }
}

/** {@link AnalyticsRepository} on PostgreSQL: the SQLite store's statements, numbered parameters. */
export class PostgresAnalyticsRepository implements AnalyticsRepository {
  constructor(private readonly pool: Pool) {}

  async questionsPerDay(
    projectId: number,
    start: string,
    end: string,
  ): Promise<Array<{ day: string; questions: number }>> {
    const { rows } = await this.pool.query<{ day: string; n: number | string }>(
      `SELECT substr(created_at, 1, 10) AS day, count(*) AS n FROM messages
       WHERE project_id = $1 AND sender = 'Human' AND created_at >= $2 AND created_at <= $3
       GROUP BY day`,
      [projectId, start, end],
    );
    return rows.map((r) => ({ day: r.day, questions: Number(r.n) }));
  }

  async questionsByChannel(
    projectId: number,
    start: string,
    end: string,
  ): Promise<Array<{ channel: string; questions: number }>> {
    // A question counts under the channel its conversation was started in.
    const { rows } = await this.pool.query<{ channel: string; n: number | string }>(
      `SELECT c.channel, count(*) AS n
       FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.project_id = $1 AND m.sender = 'Human' AND m.created_at >= $2 AND m.created_at <= $3
       GROUP BY c.channel`,
      [projectId, start, end],
    );
    return rows.map((r) => ({ channel: r.channel, questions: Number(r.n) }));
  }

  async answerRatings(
    projectId: number,
    start: string,
    end: string,
  ): Promise<{ answers: number; good: number; bad: number }> {
    const { rows } = await this.pool.query<{
      answers: number | string;
      good: number | string | null;
      bad: number | string | null;
    }>(
      `SELECT count(*) AS answers, sum(CASE WHEN rating_value = 1 THEN 1 ELSE 0 END) AS good,
         sum(CASE WHEN rating_value = -1 THEN 1 ELSE 0 END) AS bad FROM messages
       WHERE project_id = $1 AND sender = 'AI' AND created_at >= $2 AND created_at <= $3`,
      [projectId, start, end],
    );
    const r = rows[0];
    return { answers: Number(r?.answers ?? 0), good: Number(r?.good ?? 0), bad: Number(r?.bad ?? 0) };
  }

  async questionsPerVersion(
    projectId: number,
    start: string,
    end: string,
  ): Promise<Array<{ version: string | null; questions: number }>> {
    const { rows } = await this.pool.query<{ version: string | null; n: number | string }>(
      `SELECT version, count(*) AS n FROM messages
       WHERE project_id = $1 AND sender = 'Human' AND created_at >= $2 AND created_at <= $3
       GROUP BY version`,
      [projectId, start, end],
    );
    return rows.map((r) => ({ version: r.version, questions: Number(r.n) }));
  }

  async endedConversations(
    projectId: number,
    start: string,
    end: string,
  ): Promise<Array<{ createdAt: string; endedAt: string }>> {
    const { rows } = await this.pool.query<{ created_at: string; ended_at: string }>(
      `SELECT created_at, ended_at FROM conversations
       WHERE project_id = $1 AND ended_at IS NOT NULL AND created_at >= $2 AND created_at <= $3`,
      [projectId, start, end],
    );
    return rows.map((r) => ({ createdAt: r.created_at, endedAt: r.ended_at }));
  }

  async gapCandidates(
    projectId: number,
    range: { start: string; end: string; version?: string; notCovered: string },
  ): Promise<GapCandidate[]> {
    const byVersion = range.version !== undefined ? ' AND h.version = $6' : '';
    // The not-covered answer may be followed by "You may want to read: …": compare its start.
    const { rows } = await this.pool.query<{
      question: string;
      asked_at: string;
      no_source: number;
      rated_bad: number;
    }>(
      `WITH answered AS (
         SELECT h.text AS question, h.created_at AS asked_at, ai.rating_value AS rating, ai.text AS answer,
           json_array_length(ai.sources::json) AS found
         FROM messages ai JOIN messages h ON h.id = ai.reply_to
         WHERE ai.project_id = $1 AND ai.sender = 'AI' AND h.created_at >= $2 AND h.created_at <= $3${byVersion})
       SELECT question, asked_at,
         CASE WHEN coalesce(found, 0) = 0 OR substr(answer, 1, $4) = $5 THEN 1 ELSE 0 END AS no_source,
         CASE WHEN rating = -1 THEN 1 ELSE 0 END AS rated_bad
       FROM answered
       WHERE coalesce(found, 0) = 0 OR substr(answer, 1, $4) = $5 OR rating = -1`,
      [
        projectId,
        range.start,
        range.end,
        range.notCovered.length,
        range.notCovered,
        ...(range.version !== undefined ? [range.version] : []),
      ],
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

const INTEGRATION_COLUMNS =
  'project_id, platform, settings, created_at, updated_at, last_event_at, last_event';

/** {@link IntegrationRepository} on PostgreSQL, the statements of the SQLite store. */
export class PostgresIntegrationRepository implements IntegrationRepository {
  constructor(private readonly pool: Pool) {}

  async get(projectId: number, platform: Platform): Promise<IntegrationRecord | undefined> {
    const { rows } = await this.pool.query<IntegrationRow>(
      `SELECT ${INTEGRATION_COLUMNS} FROM chat_integrations WHERE project_id = $1 AND platform = $2`,
      [projectId, platform],
    );
    return rows[0] && toIntegration(rows[0]);
  }

  async list(projectId: number): Promise<IntegrationRecord[]> {
    const { rows } = await this.pool.query<IntegrationRow>(
      `SELECT ${INTEGRATION_COLUMNS} FROM chat_integrations WHERE project_id = $1 ORDER BY platform`,
      [projectId],
    );
    return rows.map(toIntegration);
  }

  async put(
    projectId: number,
    platform: Platform,
    settings: Record<string, string>,
    at: string,
  ): Promise<void> {
    await this.pool.query(
      `INSERT INTO chat_integrations (project_id, platform, settings, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (project_id, platform) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
      [projectId, platform, JSON.stringify(settings), at],
    );
  }

  async delete(projectId: number, platform: Platform): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM chat_integrations WHERE project_id = $1 AND platform = $2',
      [projectId, platform],
    );
    return (rowCount ?? 0) > 0;
  }

  async touch(projectId: number, platform: Platform, event: string, at: string): Promise<void> {
    await this.pool.query(
      'UPDATE chat_integrations SET last_event_at = $1, last_event = $2 WHERE project_id = $3 AND platform = $4',
      [at, event, projectId, platform],
    );
  }

  async firstDelivery(
    projectId: number,
    platform: Platform,
    eventKey: string,
    at: string,
    forgetBefore: string,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO integration_events (project_id, platform, event_key, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, platform, event_key) DO NOTHING`,
      [projectId, platform, eventKey, at],
    );
    const first = (rowCount ?? 0) > 0;
    // Pruned as events come, an indexed range delete: no timer to run or stop.
    if (first) await this.pool.query('DELETE FROM integration_events WHERE created_at < $1', [forgetBefore]);
    return first;
  }

  async conversationOf(
    projectId: number,
    platform: Platform,
    threadKey: string,
  ): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ conversation_id: number | string }>(
      'SELECT conversation_id FROM integration_threads WHERE project_id = $1 AND platform = $2 AND thread_key = $3',
      [projectId, platform, threadKey],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].conversation_id);
  }

  async linkThread(
    projectId: number,
    platform: Platform,
    threadKey: string,
    conversationId: number,
    at: string,
  ): Promise<void> {
    await this.pool.query(
      `INSERT INTO integration_threads (project_id, platform, thread_key, conversation_id, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, platform, thread_key) DO UPDATE SET conversation_id = excluded.conversation_id`,
      [projectId, platform, threadKey, conversationId, at],
    );
  }
}

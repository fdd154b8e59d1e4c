import { Inject, Injectable } from '@nestjs/common';
import { NOT_COVERED_ANSWER } from '@kbqa/answer';
import { CHANNELS, type Channel, KbqaError, isoUtc } from '@kbqa/core';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../database/database.module';
import { ProjectsService } from '../projects/projects.service';
import type {
  AnalyticsResponse,
  ConversationListResponse,
  ConversationResponse,
  GapListResponse,
  ListConversationsQuery,
} from './analytics.dto';
import {
  daysOf,
  durationSummary,
  fillDays,
  MAX_RANGE_DAYS,
  ratingSummary,
  resolveRange,
  storedBounds,
  storedMs,
} from './analytics.util';
import { groupGaps } from './gaps.util';
import { DEFAULT_PAGE } from './paging.dto';
import { onPostgres, runSql } from '../database/sql';

type Sql = { where: string[]; params: Array<string | number> };

/** Sources as chat stores them on an AI message (ConversationsService.addAi). */
type StoredSources = Array<{ link?: unknown; score?: unknown }>;

/**
 * What the dashboard reads of a project's conversations: the list and one conversation with
 * its messages, the charts (questions per day, ratings, durations) and the documentation gaps.
 * Read-only SQL over the stored conversations and messages; times are stored as UTC text, so
 * day ranges compare as strings.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly projects: ProjectsService,
  ) {}

  /**
   * Conversations newest first, filtered by the day they started, by the ratings of their answers
   * and by words (`q`): each word must occur in one of its messages, not all in the same one.
   */
  async conversations(projectId: number, query: ListConversationsQuery): Promise<ConversationListResponse> {
    await this.projects.getProject(projectId);
    checkOrder(query);
    const sql: Sql = { where: ['c.project_id = ?'], params: [projectId] };
    inRange(sql, 'c.created_at', query);
    const rated = (value: number) =>
      `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI' AND m.rating_value = ${value})`;
    if (query.rating === 'good') sql.where.push(rated(1));
    if (query.rating === 'bad') sql.where.push(rated(-1));
    if (query.rating === 'unrated') {
      sql.where.push(
        `NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI' AND m.rating_value <> 0)`,
      );
    }
    // A substring match on both stores (LIKE, the search text's wildcards escaped), as the
    // sources' search does: messages have no full-text index, and a project's are few enough.
    for (const word of searchWords(query.q)) {
      sql.where.push(
        `EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND lower(m.text) LIKE ? ESCAPE '!')`,
      );
      sql.params.push(`%${word.replace(/[!%_]/g, '!$&')}%`);
    }
    const where = sql.where.join(' AND ');
    const [count] = await runSql<Array<{ n: number }>>(
      this.dataSource,
      `SELECT count(*) AS n FROM conversations c WHERE ${where}`,
      sql.params,
    );
    const rows = await runSql<
      Array<{
        id: number;
        created_at: string;
        ended_at: string | null;
        messages: number;
        first_question: string | null;
        good: number;
        bad: number;
      }>
    >(
      this.dataSource,
      `SELECT c.id, c.created_at, c.ended_at,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS messages,
         (SELECT m.text FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'Human'
          ORDER BY m.created_at, m.id LIMIT 1) AS first_question,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
          AND m.rating_value = 1) AS good,
         (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender = 'AI'
          AND m.rating_value = -1) AS bad
       FROM conversations c WHERE ${where}
       ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?`,
      [...sql.params, query.limit ?? DEFAULT_PAGE, query.offset ?? 0],
    );
    return {
      total: count?.n ?? 0,
      conversations: rows.map((r) => ({
        ...r,
        created_at: isoUtc(r.created_at),
        ended_at: isoUtc(r.ended_at),
      })),
    };
  }

  /** One conversation (of any project: the operator sees all) with its messages in order. */
  async conversation(id: number): Promise<ConversationResponse> {
    const [c] = await runSql<
      Array<{ id: number; project_id: number; created_at: string; ended_at: string | null }>
    >(this.dataSource, 'SELECT id, project_id, created_at, ended_at FROM conversations WHERE id = ?', [id]);
    if (!c) throw new KbqaError('NOT_FOUND', `conversation ${id} does not exist`);
    const messages = await runSql<
      Array<{
        id: number;
        sender: 'Human' | 'AI';
        text: string;
        sources: string;
        rating_value: number;
        created_at: string;
      }>
    >(
      this.dataSource,
      'SELECT id, sender, text, sources, rating_value, created_at FROM messages WHERE conversation_id = ? ORDER BY created_at, id',
      [id],
    );
    return {
      id: c.id,
      project_id: c.project_id,
      created_at: isoUtc(c.created_at),
      ended_at: isoUtc(c.ended_at),
      messages: messages.map((m) => ({
        id: m.id,
        role: m.sender,
        text: m.text,
        sources: parseSources(m.sources).map((s) => ({
          link: typeof s.link === 'string' ? s.link : '',
          relevance_score: typeof s.score === 'number' ? Math.round(s.score * 1e4) / 1e4 : 0,
        })),
        rating: m.rating_value,
        created_at: isoUtc(m.created_at),
      })),
    };
  }

  /** Questions per day, ratings of the answers and durations of ended conversations over a day range. */
  async analytics(projectId: number, range: { from?: string; to?: string }): Promise<AnalyticsResponse> {
    await this.projects.getProject(projectId);
    const { from, to } = checkedRange(range);
    const { start, end } = storedBounds({ from, to });
    const perDay = await runSql<Array<{ day: string; n: number }>>(
      this.dataSource,
      `SELECT substr(created_at, 1, 10) AS day, count(*) AS n FROM messages
       WHERE project_id = ? AND sender = 'Human' AND created_at >= ? AND created_at <= ?
       GROUP BY day`,
      [projectId, start, end],
    );
    // A question counts under the channel its conversation was started in.
    const byChannel = await runSql<Array<{ channel: string; n: number | string }>>(
      this.dataSource,
      `SELECT c.channel, count(*) AS n
       FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.project_id = ? AND m.sender = 'Human' AND m.created_at >= ? AND m.created_at <= ?
       GROUP BY c.channel`,
      [projectId, start, end],
    );
    const channels = Object.fromEntries(CHANNELS.map((c) => [c, 0])) as Record<Channel, number>;
    for (const r of byChannel) {
      if (r.channel in channels) channels[r.channel as Channel] = Number(r.n);
    }
    const [ratings] = await runSql<Array<{ answers: number; good: number | null; bad: number | null }>>(
      this.dataSource,
      `SELECT count(*) AS answers, sum(CASE WHEN rating_value = 1 THEN 1 ELSE 0 END) AS good,
         sum(CASE WHEN rating_value = -1 THEN 1 ELSE 0 END) AS bad FROM messages
       WHERE project_id = ? AND sender = 'AI' AND created_at >= ? AND created_at <= ?`,
      [projectId, start, end],
    );
    const perVersion = await runSql<Array<{ version: string | null; n: number }>>(
      this.dataSource,
      `SELECT version, count(*) AS n FROM messages
       WHERE project_id = ? AND sender = 'Human' AND created_at >= ? AND created_at <= ?
       GROUP BY version`,
      [projectId, start, end],
    );
    const ended = await runSql<Array<{ created_at: string; ended_at: string }>>(
      this.dataSource,
      `SELECT created_at, ended_at FROM conversations
       WHERE project_id = ? AND ended_at IS NOT NULL AND created_at >= ? AND created_at <= ?`,
      [projectId, start, end],
    );
    return {
      from,
      to,
      questions_per_day: fillDays(from, to, new Map(perDay.map((r) => [r.day, r.n]))),
      questions_by_channel: channels,
      ratings: ratingSummary(ratings?.answers ?? 0, ratings?.good ?? 0, ratings?.bad ?? 0),
      durations: durationSummary(
        ended.map((c) => Math.max(0, (storedMs(c.ended_at) - storedMs(c.created_at)) / 1000)),
      ),
      questions_per_version: perVersion
        .map((r) => ({ version: r.version, questions: Number(r.n) }))
        .sort((a, b) => b.questions - a.questions || (a.version ?? '').localeCompare(b.version ?? '')),
    };
  }

  /**
   * Questions of the range whose answer had no relevant source (none stored, or the extractive
   * "not in the documentation" answer) or was rated bad,
   * grouped by similar wording (groupGaps).
   */
  async gaps(
    projectId: number,
    range: { from?: string; to?: string; version?: string },
  ): Promise<GapListResponse> {
    await this.projects.getProject(projectId);
    const { start, end } = storedBounds(checkedRange(range));
    const byVersion = range.version !== undefined ? ' AND h.version = ?' : '';
    const notCovered = [NOT_COVERED_ANSWER.length, NOT_COVERED_ANSWER];
    const rows = await runSql<
      Array<{ question: string; asked_at: string; no_source: number; rated_bad: number }>
    >(
      this.dataSource,
      `WITH answered AS (
         SELECT h.text AS question, h.created_at AS asked_at, ai.rating_value AS rating, ai.text AS answer,
           json_array_length(ai.sources${onPostgres(this.dataSource) ? '::json' : ''}) AS found
         FROM messages ai JOIN messages h ON h.id = ai.reply_to
         WHERE ai.project_id = ? AND ai.sender = 'AI' AND h.created_at >= ? AND h.created_at <= ?${byVersion})
       SELECT question, asked_at,
         CASE WHEN coalesce(found, 0) = 0 OR substr(answer, 1, ?) = ? THEN 1 ELSE 0 END AS no_source,
         CASE WHEN rating = -1 THEN 1 ELSE 0 END AS rated_bad
       FROM answered
       WHERE coalesce(found, 0) = 0 OR substr(answer, 1, ?) = ? OR rating = -1`,
      // The not-covered answer may be followed by "You may want to read: …": compare its start.
      [
        projectId,
        start,
        end,
        ...(range.version !== undefined ? [range.version] : []),
        ...notCovered,
        ...notCovered,
      ],
    );
    const groups = groupGaps(
      rows.map((r) => ({
        question: r.question,
        askedAt: r.asked_at,
        noSource: r.no_source === 1,
        ratedBad: r.rated_bad === 1,
      })),
    );
    return { gaps: groups.map((g) => ({ ...g, last_asked: isoUtc(g.last_asked) })) };
  }
}

function checkOrder(range: { from?: string; to?: string }): void {
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw new KbqaError('BAD_REQUEST', 'from must not be after to');
  }
}

/** The range with its defaults, refused when reversed or longer than MAX_RANGE_DAYS. */
function checkedRange(range: { from?: string; to?: string }): { from: string; to: string } {
  const resolved = resolveRange(range);
  checkOrder(resolved);
  if (daysOf(resolved.from, resolved.to).length > MAX_RANGE_DAYS) {
    throw new KbqaError('BAD_REQUEST', `the range must be at most ${MAX_RANGE_DAYS} days`);
  }
  return resolved;
}

function inRange(sql: Sql, column: string, range: { from?: string; to?: string }): void {
  const { start, end } = storedBounds(range);
  if (start !== undefined) {
    sql.where.push(`${column} >= ?`);
    sql.params.push(start);
  }
  if (end !== undefined) {
    sql.where.push(`${column} <= ?`);
    sql.params.push(end);
  }
}

function parseSources(json: string): StoredSources {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as StoredSources) : [];
  } catch {
    return [];
  }
}

/** The distinct words of a search, lower-cased; at most 10, so a pasted paragraph stays one query. */
export function searchWords(q: string | undefined): string[] {
  if (!q) return [];
  return [...new Set(q.toLowerCase().split(/\s+/).filter(Boolean))].slice(0, 10);
}

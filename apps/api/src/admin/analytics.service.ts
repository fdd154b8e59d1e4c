import { Inject, Injectable } from '@nestjs/common';
import { NOT_COVERED_ANSWER } from '@kbqa/answer';
import {
  type AnalyticsRepository,
  CHANNELS,
  type Channel,
  type ConversationRepository,
  KbqaError,
  isoUtc,
} from '@kbqa/core';
import { ANALYTICS, CONVERSATIONS } from '../database/conversations.providers';
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

/** Sources as chat stores them on an AI message (ConversationsService.addAi). */
type StoredSources = Array<{ link?: unknown; score?: unknown }>;

/**
 * What the dashboard reads of a project's conversations: the list and one conversation with
 * its messages, the charts (questions per day, ratings, durations) and the documentation gaps.
 * Read-only over the stored conversations and messages; times are stored as UTC text, so day
 * ranges are stored-timestamp bounds (storedBounds).
 */
@Injectable()
export class AnalyticsService {
  constructor(
    @Inject(CONVERSATIONS) private readonly conversationRecords: ConversationRepository,
    @Inject(ANALYTICS) private readonly records: AnalyticsRepository,
    private readonly projects: ProjectsService,
  ) {}

  /**
   * Conversations newest first, filtered by the day they started, by the ratings of their answers
   * and by words (`q`): each word must occur in one of its messages, not all in the same one.
   */
  async conversations(projectId: number, query: ListConversationsQuery): Promise<ConversationListResponse> {
    await this.projects.getProject(projectId);
    checkOrder(query);
    const { start, end } = storedBounds(query);
    const { total, conversations } = await this.conversationRecords.listConversations(projectId, {
      start,
      end,
      rating: query.rating,
      words: searchWords(query.q),
      limit: query.limit ?? DEFAULT_PAGE,
      offset: query.offset ?? 0,
    });
    return {
      total,
      conversations: conversations.map((c) => ({
        id: c.id,
        created_at: isoUtc(c.createdAt),
        ended_at: isoUtc(c.endedAt),
        messages: c.messages,
        first_question: c.firstQuestion,
        good: c.good,
        bad: c.bad,
      })),
    };
  }

  /** One conversation (of any project: the operator sees all) with its messages in order. */
  async conversation(id: number): Promise<ConversationResponse> {
    const c = await this.conversationRecords.findConversation(id);
    if (!c) throw new KbqaError('NOT_FOUND', `conversation ${id} does not exist`);
    const messages = await this.conversationRecords.allMessagesOf(id);
    return {
      id: c.id,
      project_id: c.projectId,
      created_at: isoUtc(c.createdAt),
      ended_at: isoUtc(c.endedAt),
      messages: messages.map((m) => ({
        id: m.id,
        role: m.sender,
        text: m.text,
        sources: parseSources(m.sources).map((s) => ({
          link: typeof s.link === 'string' ? s.link : '',
          relevance_score: typeof s.score === 'number' ? Math.round(s.score * 1e4) / 1e4 : 0,
        })),
        rating: m.ratingValue,
        created_at: isoUtc(m.createdAt),
      })),
    };
  }

  /** Questions per day, ratings of the answers and durations of ended conversations over a day range. */
  async analytics(projectId: number, range: { from?: string; to?: string }): Promise<AnalyticsResponse> {
    await this.projects.getProject(projectId);
    const { from, to, start, end } = checkedRange(range);
    const perDay = await this.records.questionsPerDay(projectId, start, end);
    // A question counts under the channel its conversation was started in.
    const byChannel = await this.records.questionsByChannel(projectId, start, end);
    const channels = Object.fromEntries(CHANNELS.map((c) => [c, 0])) as Record<Channel, number>;
    for (const r of byChannel) {
      if (r.channel in channels) channels[r.channel as Channel] = r.questions;
    }
    const ratings = await this.records.answerRatings(projectId, start, end);
    const perVersion = await this.records.questionsPerVersion(projectId, start, end);
    const ended = await this.records.endedConversations(projectId, start, end);
    return {
      from,
      to,
      questions_per_day: fillDays(from, to, new Map(perDay.map((r) => [r.day, r.questions]))),
      questions_by_channel: channels,
      ratings: ratingSummary(ratings.answers, ratings.good, ratings.bad),
      durations: durationSummary(
        ended.map((c) => Math.max(0, (storedMs(c.endedAt) - storedMs(c.createdAt)) / 1000)),
      ),
      questions_per_version: perVersion
        .map((r) => ({ version: r.version, questions: r.questions }))
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
    const { start, end } = checkedRange(range);
    const rows = await this.records.gapCandidates(projectId, {
      start,
      end,
      version: range.version,
      notCovered: NOT_COVERED_ANSWER,
    });
    const groups = groupGaps(rows);
    return { gaps: groups.map((g) => ({ ...g, last_asked: isoUtc(g.last_asked) })) };
  }
}

function checkOrder(range: { from?: string; to?: string }): void {
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw new KbqaError('BAD_REQUEST', 'from must not be after to');
  }
}

/**
 * The range with its defaults and its stored-timestamp bounds (storedBounds), refused when
 * reversed or longer than MAX_RANGE_DAYS.
 */
function checkedRange(range: { from?: string; to?: string }): {
  from: string;
  to: string;
  start: string;
  end: string;
} {
  const resolved = resolveRange(range);
  checkOrder(resolved);
  if (daysOf(resolved.from, resolved.to).length > MAX_RANGE_DAYS) {
    throw new KbqaError('BAD_REQUEST', `the range must be at most ${MAX_RANGE_DAYS} days`);
  }
  const { start, end } = storedBounds(resolved);
  return { ...resolved, start: start!, end: end! };
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

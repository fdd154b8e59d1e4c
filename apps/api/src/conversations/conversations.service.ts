import { Inject, Injectable } from '@nestjs/common';
import {
  type Channel,
  type ConversationRecord,
  type ConversationRepository,
  type HistoryTurn,
  KbqaError,
  type KeyKind,
  type MessageRecord,
  type RequestRecords,
  nowTimestamp,
} from '@kbqa/core';
import { REQUEST_RECORDS } from '../database/database.module';
import { CONVERSATIONS } from '../database/conversations.providers';
import { ProjectsService } from '../projects/projects.service';
import { type ExportedMessageResponse, parseToolsUsed } from './conversations.dto';

export interface StoredSource {
  chunk_id: number;
  source: string;
  link: string;
  score: number;
}

/**
 * Conversations, their messages, ratings and the export; every call scoped to a project. Ids are
 * random, so they order nothing: messages go by the time they were stored, then id. An anon key
 * (shipped in every reader's browser) acts only on conversations an anon key started; a server key
 * on all of its project's. Any other conversation answers as one that does not exist.
 */
@Injectable()
export class ConversationsService {
  constructor(
    @Inject(CONVERSATIONS) private readonly conversations: ConversationRepository,
    /** Chat writes two messages and often a conversation per request: the store's hot path. */
    @Inject(REQUEST_RECORDS) private readonly records: RequestRecords,
    private readonly projects: ProjectsService,
  ) {}

  /** Creates a conversation started by a key of kind `by` and returns its id. */
  async create(projectId: number, by: KeyKind, roleInfo?: string): Promise<number> {
    return this.records.createConversation(projectId, roleInfo ?? null, by);
  }

  /**
   * The conversation if it is the project's and a key of kind `by` may act on it; 404 otherwise
   * (the same answer for all three).
   */
  async get(projectId: number, id: number, by: KeyKind): Promise<ConversationRecord> {
    const c = await this.conversations.findConversation(id, projectId);
    if (!c || !mayActOn(by, c)) throw new KbqaError('NOT_FOUND', `conversation ${id} not found`);
    return c;
  }

  /** A conversation a chat may continue: the project's, this key's to act on, not ended. Returns its id. */
  async open(projectId: number, id: number, by: KeyKind, roleInfo?: string): Promise<number> {
    const c = await this.get(projectId, id, by);
    if (c.endedAt) throw new KbqaError('CONVERSATION_ENDED', `conversation ${id} has ended; start a new one`);
    if (roleInfo !== undefined && roleInfo !== c.roleInfo)
      await this.conversations.setRoleInfo(c.id, roleInfo);
    return c.id;
  }

  async end(projectId: number, id: number, by: KeyKind): Promise<void> {
    const c = await this.get(projectId, id, by);
    if (!c.endedAt) await this.conversations.endConversation(c.id, nowTimestamp());
  }

  /** Server keys only (byConversationId). */
  async messagesOf(projectId: number, conversationId: number): Promise<MessageRecord[]> {
    await this.get(projectId, conversationId, 'server');
    return this.conversations.messagesOf(projectId, conversationId);
  }

  /**
   * The last `turns` questions of a conversation with the answers given to them (empty for a
   * question left unanswered), oldest first: the history of a chat that continues a conversation
   * without sending one.
   */
  async recentTurns(projectId: number, conversationId: number, turns: number): Promise<HistoryTurn[]> {
    const recent = await this.conversations.recentMessages(projectId, conversationId, turns * 2);
    const answers = new Map<number, string>();
    for (const m of recent) if (m.sender === 'AI' && m.replyTo !== null) answers.set(m.replyTo, m.text);
    return recent
      .filter((m) => m.sender === 'Human')
      .slice(0, turns)
      .reverse()
      .map((m) => ({ prompt: m.text, response: answers.get(m.id) ?? '' }));
  }

  /**
   * Creates a conversation with the user's question as its first message; returns both ids.
   * `channel` is where it was asked (default: the key kind's).
   */
  async startWithHuman(
    projectId: number,
    by: KeyKind,
    roleInfo: string | undefined,
    text: string,
    version?: string,
    channel?: Channel,
  ): Promise<{ conversationId: number; humanMessageId: number }> {
    const { conversationId, messageId } = await this.records.startConversation(
      projectId,
      roleInfo ?? null,
      { sender: 'Human', text, replyTo: null, sources: [], complete: true, version: version ?? null },
      by,
      channel,
    );
    return { conversationId, humanMessageId: messageId };
  }

  /** Stores the user's question; returns the message id. */
  async addHuman(projectId: number, conversationId: number, text: string, version?: string): Promise<number> {
    return this.records.addMessage({
      projectId,
      conversationId,
      sender: 'Human',
      text,
      replyTo: null,
      sources: [],
      complete: true,
      version: version ?? null,
    });
  }

  /** Stores an answer (partial when `complete` is false) with its tool calls; returns the message id. */
  async addAi(
    projectId: number,
    conversationId: number,
    replyTo: number,
    text: string,
    sources: StoredSource[],
    complete: boolean,
    toolsUsed: unknown[] = [],
  ): Promise<number> {
    return this.records.addMessage({
      projectId,
      conversationId,
      sender: 'AI',
      text,
      replyTo,
      sources,
      complete,
      toolsUsed,
    });
  }

  /**
   * Rates an AI message of the project in a conversation a key of kind `by` may act on; anything
   * else is the same PERMISSION_DENIED answer (SPEC.md's answer for a message that does not exist).
   */
  async rate(projectId: number, messageId: number, rating: number, by: KeyKind): Promise<void> {
    const denied = () => new KbqaError('PERMISSION_DENIED', 'Permission denied to rate this message');
    if (by === 'anon') {
      const m = await this.conversations.findAnswer(projectId, messageId);
      const c = m && (await this.conversations.findConversation(m.conversationId, projectId));
      if (!c || !mayActOn(by, c)) throw denied();
    }
    if (!(await this.conversations.rateAnswer(projectId, messageId, rating))) throw denied();
  }

  /** Human/AI pairs of the project for analytics, filtered by rating and inclusive UTC days. */
  async export(
    projectId: number,
    filters: { rating?: number; startDate?: string; endDate?: string },
  ): Promise<ExportedMessageResponse[]> {
    const project = await this.projects.getProject(projectId);
    if (!project.exportEnabled) {
      throw new KbqaError(
        'EXPORT_DISABLED',
        'message export is not enabled for this project; ask the operator to enable it',
      );
    }
    const pairs = await this.records.exportPairs(projectId, filters);
    return pairs.map((p) => ({
      project_id: projectId,
      message_id: p.messageId,
      conversation_id: p.conversationId,
      timestamp: p.timestamp,
      human_query: p.humanQuery,
      ai_response: p.aiResponse,
      tools_used: parseToolsUsed(p.toolsUsed),
    }));
  }
}

/** A server key acts on every conversation of its project, an anon key on those anon keys started. */
function mayActOn(by: KeyKind, c: ConversationRecord): boolean {
  return by === 'server' || c.startedBy === 'anon';
}

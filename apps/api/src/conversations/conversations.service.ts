import { Inject, Injectable } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import {
  ConversationEntity,
  MessageEntity,
  nowTimestamp,
  ProjectEntity,
  rawDatabase,
  type Sender,
} from '@kbqa/store-sqlite';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource, Repository } from 'typeorm';
import { DATA_SOURCE } from '../database/database.module';
import type { ExportedMessageResponse } from './conversations.dto';

export interface StoredSource {
  chunk_id: number;
  source: string;
  link: string;
  score: number;
}

/** Conversations, their messages, ratings and the export; every call scoped to a project. */
@Injectable()
export class ConversationsService {
  private readonly conversations: Repository<ConversationEntity>;
  private readonly messages: Repository<MessageEntity>;
  private readonly projects: Repository<ProjectEntity>;

  /** Chat writes two messages and often a conversation per request: prepared statements. */
  private readonly insertConversation: BetterSqlite3.Statement<[number, string | null, string]>;
  private readonly insertMessage: BetterSqlite3.Statement<
    [number, number, Sender, string, number | null, string, number, string]
  >;

  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {
    this.conversations = dataSource.getRepository(ConversationEntity);
    this.messages = dataSource.getRepository(MessageEntity);
    this.projects = dataSource.getRepository(ProjectEntity);
    const db = rawDatabase(dataSource);
    this.insertConversation = db.prepare(
      'INSERT INTO conversations (project_id, role_info, created_at) VALUES (?, ?, ?)',
    );
    this.insertMessage = db.prepare(
      `INSERT INTO messages (project_id, conversation_id, sender, text, reply_to, sources, complete, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Creates a conversation and returns its id. */
  create(projectId: number, roleInfo?: string): number {
    return Number(this.insertConversation.run(projectId, roleInfo ?? null, nowTimestamp()).lastInsertRowid);
  }

  /** The conversation if it is the project's; 404 otherwise (the same answer for both). */
  async get(projectId: number, id: number): Promise<ConversationEntity> {
    const c = await this.conversations.findOneBy({ id, projectId });
    if (!c) throw new KbqaError('NOT_FOUND', `conversation ${id} not found`);
    return c;
  }

  /** A conversation a chat may continue: the project's and not ended. Returns its id. */
  async open(projectId: number, id: number, roleInfo?: string): Promise<number> {
    const c = await this.get(projectId, id);
    if (c.endedAt) throw new KbqaError('CONVERSATION_ENDED', `conversation ${id} has ended; start a new one`);
    if (roleInfo !== undefined && roleInfo !== c.roleInfo)
      await this.conversations.update(c.id, { roleInfo });
    return c.id;
  }

  async end(projectId: number, id: number): Promise<void> {
    const c = await this.get(projectId, id);
    if (!c.endedAt) await this.conversations.update(c.id, { endedAt: nowTimestamp() });
  }

  async messagesOf(projectId: number, conversationId: number): Promise<MessageEntity[]> {
    await this.get(projectId, conversationId);
    return this.messages.find({ where: { projectId, conversationId }, order: { id: 'ASC' } });
  }

  /** Stores the user's question; returns the message id. */
  addHuman(projectId: number, conversationId: number, text: string): number {
    return Number(
      this.insertMessage.run(projectId, conversationId, 'Human', text, null, '[]', 1, nowTimestamp())
        .lastInsertRowid,
    );
  }

  /** Stores an answer (partial when `complete` is false); returns the message id. */
  addAi(
    projectId: number,
    conversationId: number,
    replyTo: number,
    text: string,
    sources: StoredSource[],
    complete: boolean,
  ): number {
    return Number(
      this.insertMessage.run(
        projectId,
        conversationId,
        'AI',
        text,
        replyTo,
        JSON.stringify(sources),
        complete ? 1 : 0,
        nowTimestamp(),
      ).lastInsertRowid,
    );
  }

  /** Rates an AI message of the project; anything else is the same PERMISSION_DENIED answer. */
  async rate(projectId: number, messageId: number, rating: number): Promise<void> {
    const result = await this.messages.update(
      { id: messageId, projectId, sender: 'AI' },
      { ratingValue: rating },
    );
    if (!result.affected) throw new KbqaError('PERMISSION_DENIED', 'Permission denied to rate this message');
  }

  /** Human/AI pairs of the project for analytics, filtered by rating and inclusive UTC days. */
  async export(
    projectId: number,
    filters: { rating?: number; startDate?: string; endDate?: string },
  ): Promise<ExportedMessageResponse[]> {
    const project = await this.projects.findOneBy({ id: projectId });
    if (!project?.exportEnabled) {
      throw new KbqaError(
        'EXPORT_DISABLED',
        'message export is not enabled for this project; ask the operator to enable it',
      );
    }
    const where: string[] = ['ai.project_id = ?', "ai.sender = 'AI'"];
    const params: Array<string | number> = [projectId];
    if (filters.rating !== undefined) {
      where.push('ai.rating_value = ?');
      params.push(filters.rating);
    }
    if (filters.startDate) {
      where.push('ai.created_at >= ?');
      params.push(`${filters.startDate}T00:00:00.000000`);
    }
    if (filters.endDate) {
      where.push('ai.created_at <= ?');
      params.push(`${filters.endDate}T23:59:59.999999`);
    }
    const rows = await this.dataSource.query<Array<Omit<ExportedMessageResponse, 'project_id'>>>(
      `SELECT ai.id AS message_id, ai.conversation_id, ai.created_at AS timestamp, ai.text AS ai_response,
              COALESCE(h.text, '') AS human_query
       FROM messages ai LEFT JOIN messages h ON h.id = ai.reply_to
       WHERE ${where.join(' AND ')}
       ORDER BY ai.id`,
      params,
    );
    return rows.map((r) => ({
      project_id: projectId,
      message_id: r.message_id,
      conversation_id: r.conversation_id,
      timestamp: r.timestamp,
      human_query: r.human_query,
      ai_response: r.ai_response,
    }));
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import { RateLimits } from '../common/rate-limit';
import { ChatService } from '../chat/chat.service';
import type { ChatDto } from '../chat/chat.dto';
import { ConversationsService } from '../conversations/conversations.service';
import { IntegrationsRepository, type Platform } from './integrations.repository';

export interface AnswerSourceLink {
  title: string;
  link: string;
}

/** What a platform posts: an answer, or a sentence saying why there is none. */
export type Outcome =
  | { kind: 'answer'; text: string; sources: AnswerSourceLink[]; messageId: number; conversationId: number }
  | { kind: 'refused'; text: string };

export interface Question {
  projectId: number;
  platform: Platform;
  question: string;
  /**
   * The platform's thread (`team:channel:thread_ts` on Slack): a thread is one conversation, so a
   * follow-up there continues the conversation its first question started.
   */
  threadKey?: string;
  /** What the chat rate limit counts against: the Slack workspace or the Discord guild. */
  limitKey: string;
  signal: AbortSignal;
  /** Told the answer's text so far each time a piece of it is generated. */
  onText?: (soFar: string) => void;
}

/**
 * Answers questions asked on a chat platform the way serviceChat answers a server key: the same
 * retrieval, answer and stored messages, the same per-minute chat limit (KBQA_RATE_CHAT_PER_MIN),
 * counted per workspace or guild rather than per key. A failure is an outcome to post, never
 * silence in the channel.
 */
@Injectable()
export class IntegrationAnswers {
  private readonly logger = new Logger('Integrations');

  constructor(
    private readonly chat: ChatService,
    private readonly conversations: ConversationsService,
    private readonly repository: IntegrationsRepository,
    private readonly limits: RateLimits,
  ) {}

  async ask(q: Question): Promise<Outcome> {
    const wait = await this.limits.consume('chatServer', `${q.platform}:${q.projectId}:${q.limitKey}`);
    if (wait !== undefined) {
      return {
        kind: 'refused',
        text: `Too many questions from this ${q.platform === 'slack' ? 'workspace' : 'server'} right now; please ask again in ${wait} s.`,
      };
    }
    try {
      return await this.answer(q);
    } catch (e) {
      const err = KbqaError.from(e);
      this.logger.warn(`${q.platform} question of project ${q.projectId} failed: ${err.code} ${err.message}`);
      return { kind: 'refused', text: refusalText(err) };
    }
  }

  /** Rates an answer as rateMessage does (1 good, -1 bad); PERMISSION_DENIED for anything else. */
  rate(projectId: number, messageId: number, rating: 1 | -1): Promise<void> {
    return this.conversations.rate(projectId, messageId, rating, 'server');
  }

  private async answer(q: Question): Promise<Outcome> {
    const known =
      q.threadKey !== undefined
        ? await this.repository.conversationOf(q.projectId, q.platform, q.threadKey)
        : undefined;
    const dto = { question: q.question.slice(0, 10_000), shouldStream: false } as ChatDto;
    let turn;
    try {
      turn = await this.chat.start(
        q.projectId,
        'server',
        { ...dto, conversation_id: known },
        q.signal,
        q.platform,
      );
    } catch (e) {
      // The thread's conversation was ended or deleted in the dashboard: the thread starts a new one.
      const code = e instanceof KbqaError ? e.code : undefined;
      if (known === undefined || (code !== 'CONVERSATION_ENDED' && code !== 'NOT_FOUND')) throw e;
      turn = await this.chat.start(q.projectId, 'server', dto, q.signal, q.platform);
    }
    let text = '';
    try {
      for await (const piece of turn.pieces) {
        text += piece;
        q.onText?.(text);
      }
    } catch (e) {
      await this.chat.finish(turn, text, false);
      throw e;
    }
    const messageId = await this.chat.finish(turn, text, true);
    if (q.threadKey !== undefined && turn.conversationId !== known) {
      await this.repository.linkThread(q.projectId, q.platform, q.threadKey, turn.conversationId);
    }
    const seen = new Set<string>();
    const sources: AnswerSourceLink[] = [];
    for (const s of turn.sources) {
      if (seen.has(s.link)) continue;
      seen.add(s.link);
      sources.push({ title: s.title, link: s.link });
    }
    return { kind: 'answer', text, sources, messageId, conversationId: turn.conversationId };
  }
}

function refusalText(err: KbqaError): string {
  if (err.code === 'MODEL_BUSY') return 'The answer model is busy right now; please ask again in a minute.';
  if (err.code === 'RATE_LIMITED') return 'Too many questions right now; please ask again in a minute.';
  return `Sorry, I could not answer that (${err.code}). Please try again later.`;
}

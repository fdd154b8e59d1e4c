import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import { analyzeQuestion, condenseFollowUp, resolveFollowUp } from '@kbqa/answer';
import { isStopWord } from '@kbqa/text';
import {
  type AnswerGenerator,
  type AnswerSource,
  type AnswerToolEvent,
  type Channel,
  type HistoryTurn,
  type KeyKind,
  KbqaError,
  type MetadataCondition,
  parseWhere,
  type SearchHit,
  VERSION_FIELD,
} from '@kbqa/core';
import { ANSWER_GENERATOR } from '../answer/answer.module';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { parseLooseId } from '../common/validators';
import { ConversationsService } from '../conversations/conversations.service';
import { ProjectsService } from '../projects/projects.service';
import { RetrievalService } from '../retrieval/retrieval.service';
import { type TaughtMatch, TeachingService } from '../teaching/teaching.service';
import { ToolsService } from '../tools/tools.service';
import { type ChatDto, NUM_CHUNKS, type ToolUsage } from './chat.dto';

/** Turns of a stored conversation used as the history of a chat that sends none. */
const STORED_TURNS = 3;

/** A chat between retrieval and the stored AI message. */
export interface ChatTurn {
  projectId: number;
  conversationId: number;
  humanMessageId: number;
  sources: SearchHit[];
  /** Answer pieces, in order; stops when the signal given to start() aborts. */
  pieces: AsyncIterable<string>;
  /** Whether the model was offered tools (the project has some this key may use, and the generator calls tools). */
  toolsOffered: boolean;
  /** The tool calls made so far, in order; filled while `pieces` is read. */
  toolsUsed: ToolUsage[];
  /**
   * Told of each tool call and result as they happen, before the answer's text: the stream
   * writes them as events. Set it before reading `pieces`.
   */
  onToolEvent?: (event: AnswerToolEvent) => void;
}

@Injectable()
export class ChatService {
  constructor(
    private readonly retrieval: RetrievalService,
    private readonly conversations: ConversationsService,
    private readonly projects: ProjectsService,
    private readonly teaching: TeachingService,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
    private readonly tools: ToolsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Validates filters, opens (or creates) the conversation, retrieves sources and stores the
   * Human message. Everything that can be refused is refused here, before a byte is streamed.
   * The model is offered the project's tools this key may use: all for a server key, the public
   * ones for an anon key. A conversation it starts is of `channel` (default: the key kind's).
   */
  async start(
    projectId: number,
    keyKind: KeyKind,
    dto: ChatDto,
    signal: AbortSignal,
    channel?: Channel,
  ): Promise<ChatTurn> {
    // Before anything is written: a busy local model is a 503 with Retry-After, not a stored turn.
    this.generator.throwIfBusy?.();
    const filters = parseWhere(dto.where);
    if (dto.version !== undefined && filters.some((f) => f.field === VERSION_FIELD)) {
      throw new KbqaError('BAD_REQUEST', 'give the version as version or as where.version, not both');
    }
    const roleInfo = dto.tracking?.roleInfo;
    // A new conversation is created with the question, below: one write for both.
    const continued =
      dto.conversation_id !== undefined
        ? await this.conversations.open(projectId, parseLooseId(dto.conversation_id)!, keyKind, roleInfo)
        : undefined;
    // A client that continues a conversation without its history gets the stored one, so a
    // follow-up still has the turn it follows.
    const history: HistoryTurn[] = dto.history?.length
      ? dto.history.map((h) => ({ prompt: h.prompt, response: h.response }))
      : continued !== undefined
        ? await this.conversations.recentTurns(projectId, continued, STORED_TURNS)
        : [];
    const standalone = history.length
      ? await this.generator.condenseQuestion(dto.question, history, signal)
      : dto.question;
    const topK = dto.retriever_options?.num_chunks ?? NUM_CHUNKS.default;
    const threshold = dto.relevance_threshold ?? 0;
    const search = searchQuestion(dto.question, standalone, history);
    // The version asked about, stored with the question for analytics per version.
    const asked = dto.version ?? whereVersion(filters);
    const { hits, fallbackVersion } = await this.retrieval.retrieveVersioned({
      projectId,
      ...search,
      topK,
      filters,
      threshold,
      ...(dto.version !== undefined ? { version: dto.version } : {}),
    });
    // A taught pair has no metadata, so a `where` filter would never let it through retrieval;
    // with one it is not put first either. Its score (the question similarity) meets the threshold.
    // A follow-up read as a question of its own is matched as that ("and for the reply?" must not
    // match an answer taught for the request); otherwise as the condenser gave it.
    const matched = search.question !== dto.question.trim() ? search.question : standalone;
    const match =
      filters.length === 0 && threshold < 1 ? await this.teaching.match(projectId, matched) : undefined;
    const taught = match && match.similarity >= threshold ? match : undefined;
    const sources = taught ? withTaughtFirst(hits, taught, topK) : hits;
    const { conversationId, humanMessageId } =
      continued !== undefined
        ? {
            conversationId: continued,
            humanMessageId: await this.conversations.addHuman(projectId, continued, dto.question, asked),
          }
        : await this.conversations.startWithHuman(projectId, keyKind, roleInfo, dto.question, asked, channel);
    // The reader's own words, not the conversation's: a follow-up may name what the docs lack.
    const unknownWords = this.generator.usesUnknownWords
      ? await this.retrieval.absentWords(projectId, questionWords(dto.question))
      : undefined;
    // The key lookup proved the project exists; its prompt is read only for a model that uses it.
    const systemPrompt = this.generator.usesSystemPrompt
      ? ((await this.projects.getProject(projectId)).systemPrompt ?? undefined)
      : undefined;
    const tools = this.generator.supportsTools
      ? await this.tools.chatTools(projectId, keyKind, search.question)
      : [];
    const runId = randomUUID();
    const calledAt = new Map<string, string>();
    const turn: Omit<ChatTurn, 'pieces'> = {
      projectId,
      conversationId,
      humanMessageId,
      sources,
      toolsOffered: tools.length > 0,
      toolsUsed: [],
    };
    const onToolEvent = (event: AnswerToolEvent): void => {
      if (event.type === 'called') calledAt.set(event.callId, new Date().toISOString());
      else {
        turn.toolsUsed.push({
          id: randomUUID(),
          internal_run_id: runId,
          tool_name: event.name,
          has_error: event.result.has_error,
          date: calledAt.get(event.callId) ?? new Date().toISOString(),
        });
      }
      turn.onToolEvent?.(event);
    };
    const answerSources = toAnswerSources(sources, taught !== undefined);
    if (this.config.answerTrace) {
      const line = JSON.stringify({ ...search, unknownWords, sources: answerSources });
      await appendFile(this.config.answerTrace, `${line}\n`);
    }
    // The whole question for the answer; `focus` only narrows what lexical search weighs fully.
    const generated = this.generator.generate({
      question: search.question,
      context: search.context,
      unknownWords,
      sources: answerSources,
      history,
      additionalContext: dto.additional_context,
      temperature: dto.temperature,
      systemPrompt,
      signal,
      tools,
      onToolEvent,
    });
    // The reader asked about one version (or none: the default one) and is answered from another.
    const pieces =
      fallbackVersion !== undefined && sources.length > 0
        ? withLead(versionNote(dto.version, fallbackVersion), generated)
        : generated;
    return Object.assign(turn, { pieces });
  }

  /** Stores the AI message (a partial one when the client went away) and returns its id. */
  finish(turn: ChatTurn, text: string, complete: boolean): Promise<number> {
    return this.conversations.addAi(
      turn.projectId,
      turn.conversationId,
      turn.humanMessageId,
      text,
      turn.sources.map((s) => ({ chunk_id: s.chunkId, source: s.source, link: s.link, score: s.score })),
      complete,
      turn.toolsUsed,
    );
  }
}

/**
 * What retrieval searches for and the answer is composed for. A standalone rewrite by a language
 * model is searched as is. Without one (the question unchanged, or the model-free condenser's
 * form), a follow-up is read against the conversation ({@link resolveFollowUp}): one that points
 * back ("how do I apply it globally?", "what about the default?") is searched as the question it
 * stands for, the previous subject at full weight, the rest of the conversation's topic as
 * lower-weight context; "and for guards?" is searched for its new subject (`focus`), the previous
 * question's frame as context; a follow-up with a subject of its own is searched with its own
 * words, the topic as context, so it can change the topic.
 */
export function searchQuestion(
  question: string,
  standalone: string,
  history: HistoryTurn[],
): { question: string; context?: string; topic?: string; focus?: string } {
  const rewritten =
    standalone.trim() !== question.trim() && standalone !== condenseFollowUp(question, history);
  const resolved: { question: string; context?: string; focus?: string } = rewritten
    ? { question: standalone }
    : resolveFollowUp(question, history);
  // A definition's topic points retrieval at the opening of the topic's own page (SearchQuery.topic).
  const shape = analyzeQuestion(resolved.question);
  const topic = shape.type === 'definition' ? shape.topic : undefined;
  return {
    question: resolved.question,
    ...(resolved.context ? { context: resolved.context } : {}),
    ...(resolved.focus ? { focus: resolved.focus } : {}),
    ...(topic ? { topic } : {}),
  };
}

/** Most words of a question looked up in the index (ChunkStore.absentWords). */
const MAX_LOOKED_UP_WORDS = 24;

/**
 * The distinct content words of a question as written ("PM2", "NestJS", "Fly" of "Fly.io"),
 * stop words and one-letter words left out, at most {@link MAX_LOOKED_UP_WORDS}.
 */
export function questionWords(question: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of question.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const lower = word.toLowerCase();
    if (lower.length < 2 || isStopWord(lower) || seen.has(lower)) continue;
    seen.add(lower);
    out.push(word);
    if (out.length >= MAX_LOOKED_UP_WORDS) break;
  }
  return out;
}

/**
 * The taught answer as the first source, in place of any of its chunks that retrieval found
 * (its content there is the whole answer), the other hits after it, topK in all.
 */
export function withTaughtFirst(hits: SearchHit[], taught: TaughtMatch, topK: number): SearchHit[] {
  return [taught.hit, ...hits.filter((h) => h.sourceId !== taught.hit.sourceId)].slice(0, topK);
}

/** Sources as the answer generator reads them, numbered from 1; the first is curated when taught. */
export function toAnswerSources(hits: SearchHit[], taughtFirst: boolean): AnswerSource[] {
  return hits.map((h, i) => ({
    n: i + 1,
    content: h.content,
    title: h.title,
    link: h.link,
    score: h.score,
    headingPath: h.headingPath,
    curated: taughtFirst && i === 0,
  }));
}

/** What an answer from another version than the one asked for begins with. */
export function versionNote(asked: string | undefined, answeredFrom: string): string {
  const missing = asked !== undefined ? `Version ${asked} of the documentation` : 'The current documentation';
  return `${missing} does not cover this; this answer comes from version ${answeredFrom}.\n\n`;
}

async function* withLead(lead: string, pieces: AsyncIterable<string>): AsyncIterable<string> {
  yield lead;
  yield* pieces;
}

/** The version a `where` filter asks for with `$eq`, when it does. */
function whereVersion(filters: MetadataCondition[]): string | undefined {
  const only = filters.find((f) => f.field === VERSION_FIELD && f.op === '$eq');
  return only === undefined ? undefined : String(only.value);
}

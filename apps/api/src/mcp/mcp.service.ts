import { Inject, Injectable } from '@nestjs/common';
import { type AnswerGenerator, KbqaError, parseWhere, type SearchHit } from '@kbqa/core';
import { citeAnswer } from '@kbqa/text';
import { ANSWER_GENERATOR } from '../answer/answer.module';
import { NUM_CHUNKS } from '../chat/chat.dto';
import { toAnswerSources, withTaughtFirst } from '../chat/chat.service';
import { type Bucket, RateLimits } from '../common/rate-limit';
import { ConversationsService } from '../conversations/conversations.service';
import { type AuthenticatedKey, ProjectsService } from '../projects/projects.service';
import { RetrievalService } from '../retrieval/retrieval.service';
import { TeachingService } from '../teaching/teaching.service';

/** Who is calling a tool: the authenticated key and the client address (anon limits count per reader). */
export interface McpCaller {
  auth: AuthenticatedKey;
  address: string;
}

export interface SearchInput {
  question: string;
  where?: Record<string, unknown>;
  num_chunks?: number;
}

export interface McpPassage {
  link: string;
  title?: string;
  content: string;
  relevance_score: number;
}

/** The `ask` tool's structured output: the answer as generated, its `[n]` numbering `sources` (passages). */
export interface McpAnswer {
  answer: string;
  sources: Array<{ link: string; relevance_score: number }>;
}

/** An answer with its text for reading: markers renumbered by page, the pages listed after it. */
export interface McpAskResult extends McpAnswer {
  text: string;
}

/**
 * An answer as a model or person reads it: its markers renumbered by page (@kbqa/text's
 * citeAnswer, as the widget and dashboard number them), then each page once under its number, with
 * its title when it has one.
 */
export function answerText(answer: string, hits: SearchHit[]): string {
  const cited = citeAnswer(answer, hits);
  const list = cited.pages.map((p) => `[${p.n}] ${[p.title, p.link].filter(Boolean).join(' - ')}`).join('\n');
  return list ? `${cited.text}\n\nSources:\n${list}` : cited.text;
}

/** Scores as serviceChat shows them: four decimals. */
function score(hit: SearchHit): number {
  return Math.round(hit.score * 1e4) / 1e4;
}

export function mapPassage(hit: SearchHit): McpPassage {
  return {
    link: hit.link,
    ...(hit.title ? { title: hit.title } : {}),
    content: hit.content,
    relevance_score: score(hit),
  };
}

/**
 * What the MCP tools do, apart from the protocol: retrieval and answers of one project, counted
 * against the same per-key chat limits as serviceChat. An `ask` is a question: it is stored as a
 * conversation of one question and its answer, of channel `mcp`, so the project's analytics,
 * gaps and conversation list see it as they see a chat (an MCP client keeps its own history, so
 * the next `ask` is a conversation of its own). A `search` is retrieval, like a search box: a model
 * may call it many times for one question, so it is not stored.
 */
@Injectable()
export class McpKnowledgeService {
  constructor(
    private readonly retrieval: RetrievalService,
    private readonly projects: ProjectsService,
    private readonly teaching: TeachingService,
    private readonly conversations: ConversationsService,
    private readonly limits: RateLimits,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
  ) {}

  async search(caller: McpCaller, input: SearchInput): Promise<McpPassage[]> {
    const filters = parseWhere(input.where);
    await this.countRequest(caller);
    // Versioned documentation answers from its default version, as serviceChat does.
    const { hits } = await this.retrieval.retrieveVersioned({
      projectId: caller.auth.projectId,
      question: input.question,
      topK: input.num_chunks ?? NUM_CHUNKS.default,
      filters,
      threshold: 0,
    });
    return hits.map(mapPassage);
  }

  /**
   * The answer serviceChat would give to a first question (taught answers first, the project's
   * system prompt), stored as serviceChat stores it (a cut-off answer as incomplete).
   */
  async ask(caller: McpCaller, question: string, signal: AbortSignal): Promise<McpAskResult> {
    await this.countRequest(caller);
    // Before anything is stored, as serviceChat: a busy local model is a refusal, not a question.
    this.generator.throwIfBusy?.();
    const projectId = caller.auth.projectId;
    const topK = NUM_CHUNKS.default;
    const { hits } = await this.retrieval.retrieveVersioned({
      projectId,
      question,
      topK,
      filters: [],
      threshold: 0,
    });
    const taught = await this.teaching.match(projectId, question);
    const sources = taught ? withTaughtFirst(hits, taught, topK) : hits;
    const project = await this.projects.getProject(projectId);
    const { conversationId, humanMessageId } = await this.conversations.startWithHuman(
      projectId,
      caller.auth.kind,
      undefined,
      question,
      undefined,
      'mcp',
    );
    const store = (text: string, complete: boolean) =>
      this.conversations.addAi(
        projectId,
        conversationId,
        humanMessageId,
        text,
        sources.map((s) => ({ chunk_id: s.chunkId, source: s.source, link: s.link, score: s.score })),
        complete,
      );
    let answer = '';
    try {
      const pieces = this.generator.generate({
        question,
        sources: toAnswerSources(sources, taught !== undefined),
        history: [],
        systemPrompt: project.systemPrompt ?? undefined,
        signal,
      });
      for await (const piece of pieces) {
        if (signal.aborted) throw new KbqaError('ABORTED', 'the request was cancelled');
        answer += piece;
      }
    } catch (e) {
      await store(answer, false);
      throw e;
    }
    await store(answer, true);
    return {
      answer,
      sources: sources.map((h) => ({ link: h.link, relevance_score: score(h) })),
      text: answerText(answer, sources),
    };
  }

  /** The bucket serviceChat counts in: per server key, or per anon key and client address. */
  private async countRequest({ auth, address }: McpCaller): Promise<void> {
    const [bucket, key]: [Bucket, string] =
      auth.kind === 'anon' ? ['chatAnon', `${auth.keyId}:${address}`] : ['chatServer', String(auth.keyId)];
    const retryAfter = await this.limits.consume(bucket, key);
    if (retryAfter !== undefined) {
      throw new KbqaError(
        'RATE_LIMITED',
        `rate limit reached for this ${auth.kind === 'anon' ? 'reader' : 'key'}; retry after ${retryAfter} s`,
      );
    }
  }
}

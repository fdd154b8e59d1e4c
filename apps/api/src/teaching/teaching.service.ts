import { Inject, Injectable } from '@nestjs/common';
import { MarkdownChunker } from '@kbqa/chunker';
import {
  type ChunkStore,
  KbqaError,
  type SearchHit,
  type TaughtAnswerRecord,
  type TaughtAnswerRepository,
  nowTimestamp,
  taughtSource,
} from '@kbqa/core';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { CHUNK_STORE } from '../database/database.module';
import { TAUGHT_ANSWERS } from '../database/conversations.providers';
import { ProjectsService } from '../projects/projects.service';
import { EmbeddingService } from '../retrieval/embedding.service';
import { bestTaughtMatch } from './taught-match';

/** A taught pair close enough to a question, as the first source of its answer. */
export interface TaughtMatch {
  hit: SearchHit;
  similarity: number;
}

/**
 * The teaching feature: curated question/answer pairs per project. Each pair is a row of
 * `taught_answers` (the text as entered) and a source `taught:<id>` of kind `teach` whose
 * document has the question as its title and the answer as its content, chunked and embedded
 * like any document: it shows in retrieval and getSources, and `delete_all` keeps it.
 */
@Injectable()
export class TeachingService {
  private readonly chunker: MarkdownChunker;

  constructor(
    @Inject(TAUGHT_ANSWERS) private readonly taught: TaughtAnswerRepository,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly projects: ProjectsService,
    private readonly embedding: EmbeddingService,
  ) {
    this.chunker = new MarkdownChunker(config.chunker);
  }

  /** A project's taught pairs, oldest first; NOT_FOUND for an unknown project. */
  async list(projectId: number): Promise<TaughtAnswerRecord[]> {
    await this.projects.getProject(projectId);
    return this.taught.list(projectId);
  }

  async get(id: number): Promise<TaughtAnswerRecord> {
    const pair = await this.taught.get(id);
    if (!pair) throw new KbqaError('NOT_FOUND', `taught answer ${id} does not exist`);
    return pair;
  }

  async create(projectId: number, question: string, answer: string): Promise<TaughtAnswerRecord> {
    await this.projects.getProject(projectId);
    const row = { projectId, question: question.trim(), answer: answer.trim() };
    const id = await this.taught.insert({ ...row, at: nowTimestamp() });
    try {
      await this.index({ id, ...row });
    } catch (e) {
      await this.taught.delete(id);
      throw e;
    }
    return this.get(id);
  }

  /** Changes the question, the answer or both, and indexes the pair again. */
  async update(id: number, change: { question?: string; answer?: string }): Promise<TaughtAnswerRecord> {
    const row = await this.get(id);
    if (change.question != null) row.question = change.question.trim();
    if (change.answer != null) row.answer = change.answer.trim();
    await this.taught.update(row.id, { question: row.question, answer: row.answer, at: nowTimestamp() });
    await this.index(row);
    return this.get(id);
  }

  /** Removes the pair with its source, chunks and vectors. */
  async delete(id: number): Promise<void> {
    const pair = await this.get(id);
    await this.store.deleteSource(pair.projectId, pair.source);
    await this.taught.delete(id);
  }

  /** Forgets the pair row of a taught source removed by other means (the operator's source list). */
  async forgetSource(projectId: number, source: string): Promise<void> {
    const id = /^taught:([1-9][0-9]*)$/.exec(source)?.[1];
    if (id) await this.taught.delete(Number(id), projectId);
  }

  /**
   * The taught pair whose question is close to `question` (see bestTaughtMatch), as a search hit
   * whose content is the whole answer and whose title is the taught question.
   */
  async match(projectId: number, question: string): Promise<TaughtMatch | undefined> {
    // Every chat asks: the store keeps it one prepared or named statement (and on PostgreSQL
    // shares it with the other chats asking at the same time).
    const best = bestTaughtMatch(question, await this.taught.candidates(projectId));
    if (!best) return undefined;
    const { pair, similarity } = best;
    return {
      similarity,
      hit: {
        chunkId: pair.chunkId,
        documentId: pair.documentId,
        sourceId: pair.sourceId,
        source: pair.source,
        content: pair.answer,
        title: pair.question,
        headingPath: [],
        link: pair.source,
        score: similarity,
      },
    };
  }

  /** (Re)writes the pair's source: one document, the question as title, the answer as content. */
  private async index(row: {
    id: number;
    projectId: number;
    question: string;
    answer: string;
  }): Promise<void> {
    const source = taughtSource(row.id);
    const document = { source, title: row.question, content: row.answer, link: source };
    const [result] = await this.store.replaceSources([
      {
        projectId: row.projectId,
        source,
        kind: 'teach',
        documents: [{ document, chunks: this.chunker.chunk(document) }],
      },
    ]);
    // Without a model this does nothing; the background backfill embeds them once one is ready.
    await this.embedding.embedChunks(result?.chunkIds ?? [], AbortSignal.timeout(60_000), () =>
      Promise.resolve(),
    );
  }
}

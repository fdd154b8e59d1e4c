import { Inject, Injectable } from '@nestjs/common';
import { MarkdownChunker } from '@kbqa/chunker';
import { type ChunkStore, KbqaError, type SearchHit, nowTimestamp } from '@kbqa/core';
import { TaughtAnswerEntity, taughtSource } from '@kbqa/store-sqlite';
import type { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { CHUNK_STORE, DATA_SOURCE } from '../database/database.module';
import { ProjectsService } from '../projects/projects.service';
import { EmbeddingService } from '../retrieval/embedding.service';
import { bestTaughtMatch } from './taught-match';
import { onPostgres, runNamedSql, runSql } from '../database/sql';
import { Batcher } from '@kbqa/store-postgres';

/** A taught pair with the source that indexes it. */
export interface TaughtPair {
  id: number;
  projectId: number;
  question: string;
  answer: string;
  source: string;
  createdAt: string;
  updatedAt: string;
}

/** A taught pair with the first chunk of its source: what a chat's question is compared with. */
interface TaughtCandidate {
  id: number;
  question: string;
  answer: string;
  source: string;
  sourceId: number;
  chunkId: number;
  documentId: number;
}

/** A taught pair close enough to a question, as the first source of its answer. */
export interface TaughtMatch {
  hit: SearchHit;
  similarity: number;
}

const TAUGHT_COLUMNS = `t.id, t.project_id AS "projectId", t.question, t.answer, s.source,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;
/** A taught pair counts while its source exists (the public deleteSource may remove it). */
const TAUGHT_JOIN = `taught_answers t
  JOIN sources s ON s.project_id = t.project_id AND s.source = 'taught:' || t.id AND s.kind = 'teach'`;

/**
 * The teaching feature: curated question/answer pairs per project. Each pair is a row of
 * `taught_answers` (the text as entered) and a source `taught:<id>` of kind `teach` whose
 * document has the question as its title and the answer as its content, chunked and embedded
 * like any document: it shows in retrieval and getSources, and `delete_all` keeps it.
 */
@Injectable()
export class TeachingService {
  private readonly taught: Repository<TaughtAnswerEntity>;
  /** On PostgreSQL, concurrent chats read their projects' taught pairs together (one statement a turn). */
  private readonly candidateReads: Batcher<number, TaughtCandidate[]> | undefined;
  private readonly chunker: MarkdownChunker;

  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly projects: ProjectsService,
    private readonly embedding: EmbeddingService,
  ) {
    this.taught = dataSource.getRepository(TaughtAnswerEntity);
    this.chunker = new MarkdownChunker(config.chunker);
    this.candidateReads = onPostgres(dataSource)
      ? new Batcher((projectIds: number[]) => this.candidatesOf(projectIds))
      : undefined;
  }

  /** A project's taught pairs, oldest first; NOT_FOUND for an unknown project. */
  async list(projectId: number): Promise<TaughtPair[]> {
    await this.projects.getProject(projectId);
    return runSql<TaughtPair[]>(
      this.dataSource,
      `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.project_id = ? ORDER BY t.id`,
      [projectId],
    );
  }

  async get(id: number): Promise<TaughtPair> {
    const [pair] = await runSql<TaughtPair[]>(
      this.dataSource,
      `SELECT ${TAUGHT_COLUMNS} FROM ${TAUGHT_JOIN} WHERE t.id = ?`,
      [id],
    );
    if (!pair) throw new KbqaError('NOT_FOUND', `taught answer ${id} does not exist`);
    return pair;
  }

  async create(projectId: number, question: string, answer: string): Promise<TaughtPair> {
    await this.projects.getProject(projectId);
    const now = nowTimestamp();
    const row = await this.taught.save(
      this.taught.create({
        projectId,
        question: question.trim(),
        answer: answer.trim(),
        createdAt: now,
        updatedAt: now,
      }),
    );
    try {
      await this.index(row);
    } catch (e) {
      await this.taught.delete(row.id);
      throw e;
    }
    return this.get(row.id);
  }

  /** Changes the question, the answer or both, and indexes the pair again. */
  async update(id: number, change: { question?: string; answer?: string }): Promise<TaughtPair> {
    const pair = await this.get(id);
    const row = await this.taught.findOneByOrFail({ id: pair.id });
    if (change.question != null) row.question = change.question.trim();
    if (change.answer != null) row.answer = change.answer.trim();
    row.updatedAt = nowTimestamp();
    await this.taught.save(row);
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
    if (id) await this.taught.delete({ id: Number(id), projectId });
  }

  /**
   * Each project's taught pairs with the first chunk of their source, in one statement for all
   * the projects (on PostgreSQL, the chats of one turn of the event loop ask together).
   */
  private async candidatesOf(projectIds: number[]): Promise<TaughtCandidate[][]> {
    const rows = await runNamedSql<TaughtCandidate & { projectId: number }>(
      this.dataSource,
      'kbqa_taught_candidates',
      `SELECT t.id, t.project_id AS "projectId", t.question, t.answer, s.source, s.id AS "sourceId",
              c.id AS "chunkId", c.document_id AS "documentId"
       FROM ${TAUGHT_JOIN}
       JOIN chunks c ON c.id = (SELECT min(id) FROM chunks WHERE source_id = s.id)
       WHERE ${this.candidateReads ? 't.project_id = ANY(?::integer[])' : 't.project_id = ?'}`,
      this.candidateReads ? [projectIds] : projectIds,
    );
    return projectIds.map((id) => rows.filter((r) => r.projectId === id));
  }

  /**
   * The taught pair whose question is close to `question` (see bestTaughtMatch), as a search hit
   * whose content is the whole answer and whose title is the taught question.
   */
  async match(projectId: number, question: string): Promise<TaughtMatch | undefined> {
    const candidates = await (this.candidateReads
      ? this.candidateReads.add(projectId)
      : this.candidatesOf([projectId]).then((c) => c[0]!));
    const best = bestTaughtMatch(question, candidates);
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
  private async index(row: TaughtAnswerEntity): Promise<void> {
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

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  type Chunker,
  type ChunkDraft,
  type ChunkStore,
  type IndexedDocument,
  type IndexedSource,
  KbqaError,
  type KnownSource,
  type LoadedDocument,
  type LoadRequest,
  type ReplaceSourceInput,
  type SourceKind,
  type SourceType,
  type SkipCode,
  type SkippedItem,
  parseVersionPattern,
  sourceContentHash,
  stampVersion,
  versionHintsOf,
  withVersionMetadata,
  nowTimestamp,
  type IndexRepository,
  type TaskRepository,
  type TaskToRun,
  type TaskUpdate,
} from '@kbqa/core';
import { ForegroundGate } from '../common/foreground';
import { DiskSpace } from '../health/disk-space';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { CHUNK_STORE } from '../database/database.module';
import { INDEX_REPOSITORY } from '../database/indexes.providers';
import { TASK_REPOSITORY } from '../database/tasks.providers';
import type { TaskRunner } from './ingestion-queue';
import { CHUNKER, SUMMARIZER, type Summarizer } from './ingestion.tokens';
import { LoaderRegistry } from './loader-registry';
import { TASK_LEASES, type TaskLeases } from './task-leases';
import { EmbeddingService } from '../retrieval/embedding.service';
import { extractFile } from '@kbqa/loader-files';

/** Payload of a raw-documents task, as stored in the task row. */
export interface DocumentsPayload {
  documents: Array<{
    content: string;
    source: string;
    metadata?: Record<string, string | number | boolean>;
    options?: { summarize?: boolean; summarize_max_chars?: number };
  }>;
}

/** Payload of an `ingestFiles` task: the files as uploaded (base64), read when the task runs. */
export interface FilesPayload {
  files: Array<{ name: string; data: string }>;
  metadata?: Record<string, string | number | boolean>;
}

const PROGRESS_INTERVAL_MS = 250;
/**
 * Documents written per transaction on the raw-documents path. Ingestion shares the event loop
 * with chat: a smaller batch keeps each synchronous write short (a chat waits for at most one),
 * a larger one makes fewer FTS5 segments. 25 keeps ingestion well above 1,000 documents/s.
 */
const WRITE_BATCH_DOCUMENTS = 25;
/**
 * Store upkeep (FTS5 merging) per WRITE_BATCH_DOCUMENTS documents written: three 100-page
 * steps keep up. Loaders write a page at a time, so upkeep waits until that many accumulated.
 */
const MERGE_STEPS_PER_BATCH = 3;
/**
 * Longest wait for chat requests in flight before the next ingestion step: under a steady stream
 * of chats ingestion still takes a step this often.
 */
const FOREGROUND_WAIT_MS = 50;
/** Longest run of synchronous chunking before other requests get the event loop. */
const SLICE_MS = 4;

/** What a task did, stored with it for `ingestionStatus` counts and `kbqa tasks show`. */
export interface TaskStats {
  documents: number;
  chunks: number;
  sources: number;
  /** Sources (page URLs, file links, labels) indexed, in order; capped at {@link MAX_LISTED}. */
  indexed: string[];
  /** Pages, files or sitemap entries passed over, and why; capped at {@link MAX_LISTED}. */
  skipped: Array<{ url: string; code?: SkipCode; reason: string }>;
  /** Skipped items in all, including those beyond the list's cap. */
  skippedCount: number;
  /** `ingestData` tasks: what the load or sync did to the index's pages. */
  counts?: SyncCounts;
  /**
   * Sources this task wrote (of `indexed`) that were gone when it ended: deleted (deleteSource)
   * while it ran, so the index holds that many fewer than `sources` and the counts say.
   */
  deletedDuringRun?: number;
  /**
   * Why pages the sync did not see were kept (it stopped at a limit or met failures), and that
   * sources it wrote were deleted while it ran.
   */
  note?: string;
  /** Include and exclude patterns of the request that matched no URL the load met. */
  unmatchedPaths?: { includePaths?: string[]; excludePaths?: string[] };
}

/** What a load or sync of an index did, page by page. */
export interface SyncCounts {
  /** Pages new to the index. */
  added: number;
  /** Pages whose content changed: chunked again, only changed chunks embedded again. */
  updated: number;
  /** Pages the same as before (304, same lastmod or blob id, same content): left as they were. */
  unchanged: number;
  /** Pages gone from the site (404 or 410, or absent from a complete load). */
  removed: number;
  /** Pages that could not be fetched or read this time (kept if the index had them). */
  failed: number;
}

/**
 * The counts a completed task reports beside `indexed` and `skipped` (the task row's `counts`,
 * spread into ingestionStatus's `result`): an ingestData task's {@link SyncCounts}, and for any
 * task the sources it wrote that were deleted while it ran, when there were any.
 */
export interface ReportedCounts extends Partial<SyncCounts> {
  deleted_during_run?: number;
  /** Only when some did: `include_paths` that matched no URL the load met. */
  unmatched_include_paths?: string[];
  /** Only when some did: `exclude_paths` that matched no URL the load met, so excluded nothing. */
  unmatched_exclude_paths?: string[];
}

/**
 * Skip codes after which a load is not a complete view of the site: pages it did not see may
 * still exist, so only pages seen gone (404, 410) are removed.
 */
const INCOMPLETE_CODES: ReadonlySet<SkipCode> = new Set(['LIMIT', 'FAILED', 'ROBOTS']);

/** Longest list of indexed or skipped items kept per task (a 10,000-page crawl fits). */
const MAX_LISTED = 20_000;

/**
 * Runs ingestion tasks: documents → chunker → index → embeddings, with progress in the task
 * row. Every source is replaced in its own transaction, so running a task again after a crash
 * leaves exactly one copy of its content.
 */
@Injectable()
export class IngestionRunner implements TaskRunner {
  private readonly logger = new Logger(IngestionRunner.name);
  constructor(
    @Inject(TASK_REPOSITORY) private readonly tasks: TaskRepository,
    @Inject(INDEX_REPOSITORY) private readonly indexes: IndexRepository,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    @Inject(CHUNKER) private readonly chunker: Chunker,
    @Inject(SUMMARIZER) private readonly summarizer: Summarizer | null,
    private readonly loaders: LoaderRegistry,
    private readonly embedding: EmbeddingService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly foreground?: ForegroundGate,
    /** Without Redis: runs only tasks it claimed, and writes them only while it holds them. */
    @Optional() @Inject(TASK_LEASES) private readonly leases: TaskLeases | null = null,
    /** Told of writes that failed for lack of space, for /health (the API process only). */
    @Optional() private readonly disk?: DiskSpace,
  ) {}

  async run(taskId: number, shutdown: AbortSignal): Promise<void> {
    const task = await this.tasks.toRun(taskId);
    if (!task || task.status === 'completed') return;
    // A task ends by itself after taskTimeoutMs; shutdown instead leaves it for the next start.
    const deadline = AbortSignal.timeout(this.config.taskTimeoutMs);
    // Another process took the task over (this one did not renew its lease in time).
    const lost = new AbortController();
    const signal = AbortSignal.any([shutdown, deadline, lost.signal]);
    if (this.leases) {
      // Another process runs it, or another task of its project; it stays for whoever is free.
      if (!(await this.leases.claim(task))) return;
    } else {
      await this.tasks.update(taskId, {
        status: 'running',
        attempts: task.attempts + 1,
        updatedAt: nowTimestamp(),
      });
    }
    const release = this.leases?.hold(taskId, () => lost.abort());
    try {
      await this.runClaimed(task, shutdown, deadline, lost.signal, signal);
    } finally {
      release?.();
    }
  }

  private async runClaimed(
    task: TaskToRun,
    shutdown: AbortSignal,
    deadline: AbortSignal,
    lost: AbortSignal,
    signal: AbortSignal,
  ): Promise<void> {
    const taskId = task.id;
    const started = Date.now();
    this.logger.log(
      `task ${taskId} started: project ${task.projectId}, ${task.kind}` +
        (task.attempts > 0 ? ` (attempt ${task.attempts + 1})` : ''),
    );
    const stats: TaskStats = {
      documents: 0,
      chunks: 0,
      sources: 0,
      indexed: [],
      skipped: [],
      skippedCount: 0,
    };
    try {
      const chunkIds =
        task.kind === 'documents'
          ? await this.runDocuments(task, signal, stats)
          : task.kind === 'files'
            ? await this.runFiles(task, signal, stats)
            : await this.runLoader(task, signal, stats);
      await this.embedding.embedChunks(chunkIds, signal, (current, total) =>
        this.progress(taskId, { step: 'EMBEDDING', current, total }),
      );
      await this.noteDeletedDuringRun(task, stats);
      if (!(await this.finish(task, { success: true, stats }))) return;
      this.disk?.noteWritten();
      const c = stats.counts;
      this.logger.log(
        `task ${taskId} completed in ${seconds(started)}: ${stats.sources} source(s), ` +
          `${stats.chunks} chunk(s), ${stats.skippedCount} skipped` +
          (c
            ? ` (${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ` +
              `${c.failed} failed)`
            : ''),
      );
    } catch (e) {
      if (lost.aborted) {
        this.logger.warn(`task ${taskId}: another process took it over; this run stops without an outcome`);
        return;
      }
      if (shutdown.aborted) {
        // Shutting down: leave the task for the next start (or another process), which runs it again.
        await this.writeTask(taskId, {
          status: 'pending',
          currentStep: 'PENDING',
          updatedAt: nowTimestamp(),
        });
        await this.leases?.release(taskId);
        return;
      }
      const error = deadline.aborted
        ? new KbqaError(
            'TIMEOUT',
            `the task ran longer than ${Math.round(this.config.taskTimeoutMs / 1000)} s and was stopped`,
          )
        : KbqaError.from(e);
      if (error.code === 'INTERNAL') this.logger.error(`task ${taskId}: ${error.stack ?? error.message}`);
      if (error.code === 'STORAGE_FULL') this.disk?.noteFull();
      // Best effort: the store may be what failed; the failure is the report's first news.
      await this.noteDeletedDuringRun(task, stats).catch(() => undefined);
      if (!(await this.finish(task, { success: false, stats, error }))) return;
      this.logger.warn(`task ${taskId} failed after ${seconds(started)} (${error.code}): ${error.message}`);
    }
  }

  private async runDocuments(task: TaskToRun, signal: AbortSignal, stats: TaskStats): Promise<number[]> {
    const payload = JSON.parse(task.payload) as DocumentsPayload;
    const bySource = new Map<string, LoadedDocument[]>();
    for (const d of payload.documents) {
      const doc: LoadedDocument = {
        source: d.source,
        content: d.content,
        link: d.source,
        metadata: d.metadata,
        summarize: d.options?.summarize ? { maxChars: d.options.summarize_max_chars } : undefined,
      };
      const group = bySource.get(d.source);
      if (group) group.push(doc);
      else bySource.set(d.source, [doc]);
    }
    const total = payload.documents.length;
    const chunkIds: number[] = [];
    let done = 0;
    let batch: ReplaceSourceInput[] = [];
    let batchDocs = 0;
    const flush = async () => {
      chunkIds.push(...(await this.writeSources(batch, stats)));
      done += batchDocs;
      const written = batchDocs;
      batch = [];
      batchDocs = 0;
      await this.progress(task.id, { step: 'EMBEDDING', current: done, total });
      await this.mergeIndex(written);
    };
    let sliceStart = performance.now();
    for (const [source, docs] of bySource) {
      signal.throwIfAborted();
      batch.push(await this.prepareSource(task.projectId, source, 'documents', docs, signal));
      batchDocs += docs.length;
      if (batchDocs >= WRITE_BATCH_DOCUMENTS) {
        await flush();
        sliceStart = performance.now();
      } else if (performance.now() - sliceStart > SLICE_MS) {
        await this.stepAside();
        sliceStart = performance.now();
      }
    }
    if (batch.length > 0) await flush();
    return chunkIds;
  }

  /** Reads each uploaded file and writes it as its own source (its name), replacing what it held. */
  private async runFiles(task: TaskToRun, signal: AbortSignal, stats: TaskStats): Promise<number[]> {
    const payload = JSON.parse(task.payload) as FilesPayload;
    const total = payload.files.length;
    const chunkIds: number[] = [];
    await this.progress(task.id, { step: 'SCRAPING', current: 0, total }, true);
    for (const [i, file] of payload.files.entries()) {
      signal.throwIfAborted();
      const outcome = await extractFile(
        { name: file.name, data: Buffer.from(file.data, 'base64'), metadata: payload.metadata },
        { maxPages: this.config.uploads.maxPdfPages },
      );
      for (const item of outcome.skipped) {
        stats.skippedCount += 1;
        if (stats.skipped.length < MAX_LISTED) stats.skipped.push(item);
      }
      if (outcome.documents.length > 0) {
        const input = await this.prepareSource(task.projectId, file.name, 'files', outcome.documents, signal);
        chunkIds.push(...(await this.writeSources([input], stats)));
        await this.mergeIndex(input.documents.length);
      }
      await this.progress(task.id, { step: 'SCRAPING', current: i + 1, total });
    }
    if (stats.documents === 0) {
      const why = stats.skipped
        .slice(0, 3)
        .map((s) => `${s.url} (${s.reason})`)
        .join(', ');
      throw new KbqaError(
        'NO_CONTENT',
        `nothing could be ingested from the uploaded files${why ? `; skipped: ${why}` : ''}`,
      );
    }
    return chunkIds;
  }

  private async runLoader(task: TaskToRun, signal: AbortSignal, stats: TaskStats): Promise<number[]> {
    const request = JSON.parse(task.payload) as LoadRequest;
    const loader = this.loaders.get(task.kind as SourceType);
    const chunkIds: number[] = [];
    const counts: SyncCounts = { added: 0, updated: 0, unchanged: 0, removed: 0, failed: 0 };
    stats.counts = counts;
    // What the index holds, by source and by the URL each source was fetched from.
    const held = task.indexId === null ? [] : await this.store.indexSources(task.projectId, task.indexId);
    const byUrl = new Map<string, IndexedSource>();
    for (const s of held) {
      byUrl.set(s.source, s);
      if (s.version.url) byUrl.set(s.version.url, s);
    }
    const seen = new Set<number>();
    const gone: string[] = [];
    let incomplete: SkippedItem | undefined;
    let last = { current: 0, total: 0 };
    const context = {
      signal,
      progress: (p: { current: number; total: number }) => {
        last = { current: p.current, total: Math.max(p.total, p.current) };
        // The loader's callback cannot wait; a failed progress write must not become an
        // unhandled rejection (the task's own writes will meet the same fault and fail it).
        this.progress(task.id, { step: 'SCRAPING', ...last }).catch((e: unknown) =>
          this.progressFailed(task.id, e),
        );
      },
      skipped: (item: SkippedItem) => {
        stats.skippedCount += 1;
        if (stats.skipped.length < MAX_LISTED) stats.skipped.push(item);
        if (item.code === 'GONE') gone.push(item.url);
        if (item.code === 'FAILED') counts.failed += 1;
        if (INCOMPLETE_CODES.has(item.code)) incomplete ??= item;
      },
      known: (url: string): KnownSource | undefined => {
        const s = byUrl.get(url);
        return s ? { source: s.source, version: s.version } : undefined;
      },
      unchanged: (source: string) => {
        const s = byUrl.get(source);
        if (!s || seen.has(s.id)) return;
        seen.add(s.id);
        counts.unchanged += 1;
      },
      unmatchedPaths: (field: 'includePaths' | 'excludePaths', patterns: string[]) => {
        (stats.unmatchedPaths ??= {})[field] = patterns;
        const name = field === 'includePaths' ? 'include_paths' : 'exclude_paths';
        addNote(
          stats,
          `${name} ${patterns.map((p) => JSON.stringify(p)).join(', ')} matched no URL this load met`,
        );
      },
    };
    await this.progress(task.id, { step: 'SCRAPING', current: 0, total: 0 }, true);
    const versioning = versionOptions(request);
    /** Writes one source: the documents a loader yielded for it, one after another. */
    const write = async (docs: LoadedDocument[]): Promise<void> => {
      const first = docs[0]!;
      const before = byUrl.get(first.source);
      const contentHash = sourceContentHash(docs);
      if (before) seen.add(before.id);
      if (before && task.indexId !== null && before.contentHash === contentHash) {
        // Same content: its chunks and vectors stay; only what the next sync compares is kept.
        await this.store.keepSource(before.id, task.indexId, first.version);
        counts.unchanged += 1;
        return;
      }
      const input = await this.prepareSource(task.projectId, first.source, task.kind, docs, signal);
      input.indexId = task.indexId;
      input.version = first.version;
      input.contentHash = contentHash;
      chunkIds.push(...(await this.writeSources([input], stats)));
      if (before) counts.updated += 1;
      else counts.added += 1;
      await this.mergeIndex(input.documents.length);
    };
    // A source of several documents (a PDF file's pages) comes as a run of them with one source.
    let run: LoadedDocument[] = [];
    for await (const loaded of loader.load(request, context)) {
      const doc = withVersion(loaded, versioning);
      if (run.length > 0 && run[0]!.source !== doc.source) {
        await write(run);
        run = [];
      }
      run.push(doc);
    }
    if (run.length > 0) await write(run);
    counts.removed = await this.removeGone(task, held, seen, gone, incomplete, stats);
    // A watched folder may be empty (created before its files arrive, or emptied): not a failure.
    const emptyFolder = task.kind === 'folder' && stats.skippedCount === 0;
    if (stats.documents === 0 && counts.unchanged === 0 && counts.removed === 0 && !emptyFolder) {
      const why =
        stats.skipped.length > 0
          ? `; skipped: ${stats.skipped
              .slice(0, 3)
              .map((s) => `${s.url} (${s.reason})`)
              .join(', ')}`
          : '';
      throw new KbqaError('NO_CONTENT', `nothing could be ingested from ${request.url}${why}`);
    }
    return chunkIds;
  }

  /**
   * Removes the index's pages that the load saw gone: those answering 404 or 410, and, when the
   * load was complete (no limit reached, nothing failed or refused), those it did not meet at
   * all. A load that was not complete keeps them and says why in the task's report.
   */
  private async removeGone(
    task: TaskToRun,
    held: IndexedSource[],
    seen: Set<number>,
    gone: string[],
    incomplete: SkippedItem | undefined,
    stats: TaskStats,
  ): Promise<number> {
    if (task.indexId === null || held.length === 0) return 0;
    const goneUrls = new Set(gone);
    const unseen = held.filter((s) => !seen.has(s.id));
    const removed = unseen.filter(
      (s) => goneUrls.has(s.source) || (s.version.url !== undefined && goneUrls.has(s.version.url)),
    );
    if (incomplete) {
      const kept = unseen.length - removed.length;
      if (kept > 0)
        addNote(
          stats,
          `kept ${kept} page(s) this sync did not see, because it was not complete ` +
            `(${incomplete.code}: ${incomplete.url} ${incomplete.reason})`,
        );
    } else {
      removed.splice(0, removed.length, ...unseen);
    }
    if (removed.length === 0) return 0;
    return this.store.deleteSourcesById(
      task.projectId,
      removed.map((s) => s.id),
    );
  }

  /**
   * Counts the sources this task wrote that are gone now: a deleteSource (or delete_all) that ran
   * meanwhile, in this process or another, removed them after they were written. The task's
   * counts (`indexed`, `added`, `updated`) still say what it wrote; this says how much of it is
   * no longer there. Read from the project's sources by name, so a source another task wrote
   * again meanwhile counts as there.
   */
  private async noteDeletedDuringRun(task: TaskToRun, stats: TaskStats): Promise<void> {
    if (stats.indexed.length === 0) return;
    const present = new Set((await this.store.listSources(task.projectId)).map((s) => s.source));
    const deleted = new Set(stats.indexed.filter((source) => !present.has(source))).size;
    if (deleted === 0) return;
    stats.deletedDuringRun = deleted;
    const said =
      `${deleted} source(s) this task wrote were deleted (deleteSource) while it ran, ` +
      `so the project holds ${deleted} fewer than it indexed`;
    addNote(stats, said);
  }

  private async prepareSource(
    projectId: number,
    source: string,
    kind: SourceKind,
    docs: LoadedDocument[],
    signal: AbortSignal,
  ): Promise<ReplaceSourceInput> {
    const documents: IndexedDocument[] = [];
    for (const document of docs) {
      documents.push({ document, chunks: await this.chunk(document, signal) });
    }
    return { projectId, source, kind, documents };
  }

  /**
   * Writes several sources in one transaction (fewer FTS5 segments than a commit per source).
   * Each source is replaced whole, so a crash mid-task never leaves half a source or a duplicate.
   */
  private async writeSources(inputs: ReplaceSourceInput[], stats: TaskStats): Promise<number[]> {
    const results = await this.store.replaceSources(inputs);
    const chunkIds: number[] = [];
    inputs.forEach((input, i) => {
      const result = results[i]!;
      chunkIds.push(...result.chunkIds);
      stats.documents += input.documents.length;
      stats.chunks += result.chunkIds.length;
      stats.sources += 1;
      if (stats.indexed.length < MAX_LISTED) stats.indexed.push(input.source);
    });
    return chunkIds;
  }

  /**
   * Merges full-text index segments in short steps, each in its own event-loop turn, so chat
   * requests are never stuck behind one long merge (automatic merging is off; see
   * SqliteChunkIndex.mergeStep).
   */
  private async mergeIndex(documentsWritten: number): Promise<void> {
    this.unmergedDocuments += documentsWritten;
    if (this.unmergedDocuments >= WRITE_BATCH_DOCUMENTS) {
      this.unmergedDocuments = 0;
      for (let step = 0; step < MERGE_STEPS_PER_BATCH; step++) {
        await this.stepAside();
        await this.store.maintain();
      }
    }
    await this.stepAside();
  }

  /**
   * Gives the event loop a turn and, while chat requests are in flight in this process, waits for
   * them (at most FOREGROUND_WAIT_MS): each turn of a chat otherwise waited for one write or merge.
   */
  private async stepAside(): Promise<void> {
    await yieldToEventLoop();
    await this.foreground?.clear(FOREGROUND_WAIT_MS);
  }

  /** Documents written since the last upkeep, over all tasks of this process. */
  private unmergedDocuments = 0;

  private async chunk(document: LoadedDocument, signal: AbortSignal): Promise<ChunkDraft[]> {
    if (!document.summarize || !this.summarizer) return this.chunker.chunk(document);
    // A model writes the summary; the chunker only cuts the document itself.
    const chunks = this.chunker.chunk({ ...document, summarize: undefined });
    const summary = await this.summarizer.summaryChunk(document, chunks.length, signal);
    if (summary) chunks.push(summary);
    return chunks;
  }

  private readonly lastProgress = new Map<number, number>();
  private readonly progressFailures = new Set<number>();

  /** Logs the first failed progress write of a task, not every one. */
  private progressFailed(taskId: number, e: unknown): void {
    if (this.progressFailures.has(taskId)) return;
    this.progressFailures.add(taskId);
    this.logger.warn(`task ${taskId}: progress not saved (${e instanceof Error ? e.message : String(e)})`);
  }

  private async progress(
    taskId: number,
    p: { step: string; current: number; total: number },
    force = false,
  ): Promise<void> {
    const now = Date.now();
    const last = this.lastProgress.get(taskId) ?? 0;
    if (!force && now - last < PROGRESS_INTERVAL_MS && p.current < p.total) return;
    this.lastProgress.set(taskId, now);
    await this.writeTask(taskId, {
      currentStep: p.step,
      current: p.current,
      total: p.total,
      updatedAt: nowTimestamp(),
    });
  }

  /**
   * Writes to the run's task row; with leases only while this process holds the task, so a run
   * that was taken over cannot overwrite the new run's progress or outcome. False if it did not.
   */
  private async writeTask(taskId: number, values: TaskUpdate): Promise<boolean> {
    if (this.leases) return this.leases.update(taskId, values);
    await this.tasks.update(taskId, values);
    return true;
  }

  /** Records the task's outcome; false when another process has taken the task over. */
  private async finish(
    task: TaskToRun,
    outcome: { success: boolean; stats: TaskStats; error?: KbqaError },
  ): Promise<boolean> {
    const taskId = task.id;
    this.lastProgress.delete(taskId);
    this.progressFailures.delete(taskId);
    const now = nowTimestamp();
    const written = await this.writeTask(taskId, {
      status: 'completed',
      success: outcome.success,
      error: outcome.error?.message ?? null,
      errorCode: outcome.error?.code ?? null,
      stats: JSON.stringify(outcome.stats),
      indexedCount: outcome.stats.sources,
      skippedCount: outcome.stats.skippedCount,
      counts: reportedCounts(outcome.stats),
      // Raw documents can be megabytes and are not needed again; an ingestData request is small
      // and says what the task loaded.
      ...(task.kind === 'documents' || task.kind === 'files' ? { payload: '{}' } : {}),
      updatedAt: now,
      finishedAt: now,
    });
    if (!written) {
      this.logger.warn(`task ${taskId}: another process took it over; this run's outcome is not recorded`);
      return false;
    }
    if (task.indexId !== null) {
      await this.indexes.synced(task.indexId, task.id, now);
    }
    await this.leases?.release(taskId);
    return true;
  }
}

/** The task row's `counts` column: JSON of {@link ReportedCounts}, or null when it has none. */
function reportedCounts(stats: TaskStats): string | null {
  const deleted = stats.deletedDuringRun ?? 0;
  const unmatched = stats.unmatchedPaths;
  if (!stats.counts && deleted === 0 && !unmatched) return null;
  const counts: ReportedCounts = {
    ...stats.counts,
    ...(deleted > 0 ? { deleted_during_run: deleted } : {}),
    ...(unmatched?.includePaths ? { unmatched_include_paths: unmatched.includePaths } : {}),
    ...(unmatched?.excludePaths ? { unmatched_exclude_paths: unmatched.excludePaths } : {}),
  };
  return JSON.stringify(counts);
}

/** Adds a sentence to the task's report note. */
function addNote(stats: TaskStats, text: string): void {
  stats.note = stats.note ? `${stats.note}; ${text}` : text;
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** The version settings of a load: its index's `version_pattern` and `default_version`. */
function versionOptions(request: LoadRequest): { pattern?: RegExp; defaultVersion?: string } {
  return {
    ...(request.versionPattern ? { pattern: parseVersionPattern(request.versionPattern) } : {}),
    ...(request.defaultVersion ? { defaultVersion: request.defaultVersion } : {}),
  };
}

/**
 * The document with its version in its metadata (`version`, `version_default`), read from the
 * hints its loader found in the page and the index's settings, so chat can keep one version.
 */
function withVersion(
  doc: LoadedDocument,
  options: { pattern?: RegExp; defaultVersion?: string },
): LoadedDocument {
  const stamp = stampVersion(doc.link ?? doc.source, versionHintsOf(doc.metadata), options);
  if (!stamp && doc.metadata === undefined) return doc;
  const metadata = withVersionMetadata(doc.metadata, stamp);
  return { ...doc, metadata };
}

import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  type ChunkStore,
  type IndexRecord,
  type IndexRepository,
  KbqaError,
  isoUtc,
  nowTimestamp,
  type TaskRepository,
  timestampAt,
} from '@kbqa/core';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { CHUNK_STORE } from '../database/database.module';
import { INDEX_REPOSITORY } from '../database/indexes.providers';
import { TASK_REPOSITORY } from '../database/tasks.providers';
import { INGESTION_QUEUE, type IngestionQueue } from '../ingestion/ingestion-queue';
import { resolveFolder } from '@kbqa/loader-folder';
import { indexRequest, upsertIndex } from './index-rows';

/** An index as the CLI (`--json`) and the operator API show it. */
export interface IndexView {
  id: number;
  project_id: number;
  type: string;
  url: string;
  include_paths: string[];
  exclude_paths: string[];
  /** Only when set: the index's version settings. */
  version_pattern?: string;
  default_version?: string;
  auto_sync: boolean;
  /** Pages, files or videos the index holds now. */
  pages: number;
  last_synced_at: string | null;
  next_sync_at: string | null;
  last_task_id: number | null;
}

/** A folder index as the watcher needs it. */
export interface WatchedFolderIndex {
  id: number;
  /** The folder's absolute path (the index's URL). */
  path: string;
}

/**
 * The folder watcher of this process (only processes that run workers have one), told at once
 * when this process creates or deletes a folder index; other processes' changes reach it by its
 * periodic look at the indexes table.
 */
export interface FolderWatch {
  /** Starts watching the folder; resolves once changes from now on will be seen. */
  added(index: WatchedFolderIndex): Promise<void>;
  removed(indexId: number): void;
}

/**
 * Indexes of a project: listing, the auto-sync switch, a sync on demand, deletion with their
 * pages, and the claim of due syncs that the scheduler runs. The CLI and the operator API both
 * call this service. In a process without a queue (the CLI) a new task waits in the database
 * until a process with workers picks it up (its queues look for pending tasks regularly).
 */
@Injectable()
export class IndexesService {
  constructor(
    @Inject(INDEX_REPOSITORY) private readonly indexes: IndexRepository,
    @Inject(TASK_REPOSITORY) private readonly tasks: TaskRepository,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(INGESTION_QUEUE) private readonly queue?: IngestionQueue,
  ) {}

  private folderWatch: FolderWatch | undefined;

  /** The folder watcher registers itself here (it depends on this service, not the reverse). */
  setFolderWatch(watch: FolderWatch | undefined): void {
    this.folderWatch = watch;
  }

  /**
   * Creates the project's index of a folder of the server (or finds the one it has) and queues
   * its load; returns both ids. The folder must resolve, links followed, under
   * KBQA_FOLDER_ROOTS. The caller checks the project exists. This process's watcher, if any,
   * watches the folder before the load is queued, so no change after the load's walk goes unseen.
   */
  async addFolder(projectId: number, path: string): Promise<{ index_id: number; task_id: number }> {
    const folder = resolveFolder(path, this.config.folders.roots);
    const index = await upsertIndex(this.indexes, projectId, 'folder', { url: folder.path });
    await this.folderWatch?.added({ id: index.id, path: index.url });
    // A watcher that found the index first (another process's) may have queued its load already.
    const pending = await this.pendingTask(index.id);
    return { index_id: index.id, task_id: pending ?? (await this.startSync(index)) };
  }

  /** Every folder index, of every project: what a watcher watches. */
  async folderIndexes(): Promise<WatchedFolderIndex[]> {
    const rows = await this.indexes.ofType('folder');
    return rows.map((r) => ({ id: r.id, path: r.url }));
  }

  /**
   * Queues a sync of the index unless one is already pending: a pending sync has not read the
   * folder yet, so it will see the change too. Returns the new task's id, if one was queued.
   */
  async syncUnlessPending(id: number): Promise<number | undefined> {
    const row = await this.get(id);
    return (await this.pendingTask(row.id)) === undefined ? this.startSync(row) : undefined;
  }

  private pendingTask(indexId: number): Promise<number | undefined> {
    return this.indexes.taskIn(indexId, ['pending']);
  }

  /** Indexes of one project, or of every project, oldest first. */
  async list(projectId?: number): Promise<IndexView[]> {
    const rows = await this.indexes.list(projectId);
    const pages = new Map<number, Map<number, number>>();
    for (const p of new Set(rows.map((r) => r.projectId))) {
      pages.set(p, await this.store.countIndexSources(p));
    }
    return rows.map((r) => view(r, pages.get(r.projectId)?.get(r.id) ?? 0));
  }

  async show(id: number): Promise<IndexView> {
    const row = await this.get(id);
    const pages = (await this.store.countIndexSources(row.projectId)).get(row.id) ?? 0;
    return view(row, pages);
  }

  /**
   * Switches auto sync. On: the first sync is due one interval from now (the index was just
   * loaded or synced); off: nothing is scheduled, and scheduled syncs of the index still waiting
   * to run are cancelled (completed as failed with `ABORTED`). Syncs asked for by hand still run.
   */
  async setAutoSync(id: number, on: boolean): Promise<IndexView> {
    const row = await this.get(id);
    if (row.autoSync !== on) {
      await this.indexes.setAutoSync(
        row.id,
        on,
        on ? timestampAt(Date.now() + this.config.syncIntervalMs) : null,
        nowTimestamp(),
      );
    }
    if (!on) await this.cancelScheduledSyncs(row.id);
    return this.show(id);
  }

  /** Queues a sync of the index now; returns its task id. */
  async resync(id: number): Promise<number> {
    return this.startSync(await this.get(id));
  }

  /**
   * Deletes the index with every page it brought in. Refused while one of its tasks is pending
   * or running (that task would bring its pages back).
   */
  async delete(id: number): Promise<{ id: number; removed_pages: number }> {
    const row = await this.get(id);
    const open = await this.openTask(row.id);
    if (open)
      throw new KbqaError(
        'BAD_REQUEST',
        `index ${id} has task ${open} pending or running; delete it when that task has ended`,
      );
    const sources = await this.store.indexSources(row.projectId, row.id);
    const removed = await this.store.deleteSourcesById(
      row.projectId,
      sources.map((s) => s.id),
    );
    await this.indexes.delete(row.id);
    if (row.type === 'folder') this.folderWatch?.removed(row.id);
    return { id: row.id, removed_pages: removed };
  }

  /**
   * Starts the syncs that are due. Each due index is claimed by moving its next run one interval
   * on, conditionally on the value read: when several processes look at once (several API or
   * worker processes on one database), exactly one claim succeeds and one sync runs. An index
   * whose previous sync still runs is not synced twice. Returns the task ids started.
   */
  async startDueSyncs(now = Date.now()): Promise<number[]> {
    const due = await this.indexes.due(timestampAt(now));
    const started: number[] = [];
    for (const index of due) {
      // Due rows have a next sync time: auto sync is on.
      const seen = index.nextSyncAt!;
      if (!(await this.indexes.claimDue(index.id, seen, timestampAt(now + this.config.syncIntervalMs))))
        continue;
      if (await this.openTask(index.id)) continue;
      started.push(await this.startSync(index, true));
    }
    return started;
  }

  private async startSync(index: IndexRecord, scheduled = false): Promise<number> {
    const id = await this.tasks.create({
      projectId: index.projectId,
      kind: index.type,
      payload: JSON.stringify(indexRequest(index)),
      total: 0,
      indexId: index.id,
      scheduled,
    });
    await this.queue?.enqueue({ id, projectId: index.projectId });
    return id;
  }

  /**
   * Completes the index's scheduled syncs that are still pending, so their queued jobs find
   * nothing to run (the runner skips completed tasks). A sync already running is left to finish.
   */
  private cancelScheduledSyncs(indexId: number): Promise<void> {
    return this.indexes.cancelScheduled(
      indexId,
      'cancelled: auto sync was switched off before this scheduled sync ran',
      nowTimestamp(),
    );
  }

  /** A pending or running task of the index, if any. */
  private openTask(indexId: number): Promise<number | undefined> {
    return this.indexes.taskIn(indexId, ['pending', 'running']);
  }

  private async get(id: number): Promise<IndexRecord> {
    const row = await this.indexes.get(id);
    if (!row) throw new KbqaError('NOT_FOUND', `index ${id} does not exist`);
    return row;
  }
}

function view(row: IndexRecord, pages: number): IndexView {
  const options = row.options;
  return {
    id: row.id,
    project_id: row.projectId,
    type: row.type,
    url: row.url,
    include_paths: options.includePaths ?? [],
    exclude_paths: options.excludePaths ?? [],
    ...(options.versionPattern ? { version_pattern: options.versionPattern } : {}),
    ...(options.defaultVersion ? { default_version: options.defaultVersion } : {}),
    auto_sync: row.autoSync,
    pages,
    last_synced_at: isoUtc(row.lastSyncedAt),
    next_sync_at: row.autoSync ? isoUtc(row.nextSyncAt) : null,
    last_task_id: row.lastTaskId,
  };
}

import type { SourceType } from '../loader';

/** The load options an index keeps (what `ingestData` was called with besides type and URL). */
export interface IndexOptions {
  includePaths?: string[];
  excludePaths?: string[];
  versionPattern?: string;
  defaultVersion?: string;
}

/**
 * One loaded root of a project (an `ingestData` call or a watched folder): its type, URL and
 * options, and its sync schedule. Every page, file or video it brought in belongs to it.
 */
export interface IndexRecord {
  id: number;
  projectId: number;
  type: SourceType;
  /** The request's URL without its fragment (`indexUrl`); a folder's absolute path. */
  url: string;
  options: IndexOptions;
  autoSync: boolean;
  /** Stored timestamps (nowTimestamp); `nextSyncAt` is null while auto sync is off. */
  nextSyncAt: string | null;
  lastSyncedAt: string | null;
  lastTaskId: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The index rows, and the questions about an index's tasks that syncing and deleting ask. */
export interface IndexRepository {
  /**
   * The index of `type` + `url` in the project, created (auto sync off) on first call; a later
   * call gives it `options` (a re-sync with other include paths loads those from then on).
   * One statement, so two calls at once make one index.
   */
  upsert(
    projectId: number,
    type: SourceType,
    url: string,
    options: IndexOptions,
    now: string,
  ): Promise<IndexRecord>;
  get(id: number): Promise<IndexRecord | undefined>;
  /** The indexes of one project, or of every project, by id (oldest first). */
  list(projectId?: number): Promise<IndexRecord[]>;
  /** Every index of a type, of every project, by id. */
  ofType(type: SourceType): Promise<IndexRecord[]>;
  /** Sets auto sync and the next sync's time (null when off). */
  setAutoSync(id: number, on: boolean, nextSyncAt: string | null, now: string): Promise<void>;
  /** Deletes the index row (its pages are the chunk store's to delete). */
  delete(id: number): Promise<void>;
  /** Indexes with auto sync on whose next sync is due at `now` or before, earliest due first. */
  due(now: string): Promise<IndexRecord[]>;
  /**
   * Moves the index's next sync from `seen` to `next` if auto sync is still on and `seen` is still
   * its value: of processes claiming the same due sync at once, exactly one gets true.
   */
  claimDue(id: number, seen: string, next: string): Promise<boolean>;
  /** Notes that `taskId` loaded or synced the index, ending at `now`. */
  synced(id: number, taskId: number, now: string): Promise<void>;
  /** A task of the index in one of `statuses` ('pending', 'running'), if any. */
  taskIn(indexId: number, statuses: ReadonlyArray<'pending' | 'running'>): Promise<number | undefined>;
  /**
   * Completes the index's pending scheduled tasks as failed (`ABORTED`, with `error`), so their
   * queued jobs find nothing to run; a running one is left to finish.
   */
  cancelScheduled(indexId: number, error: string, now: string): Promise<void>;
}

import type { SourceKind } from '../store';

/** Where an ingestion task is: waiting, run by a process, or done (with an outcome). */
export type TaskStatus = 'pending' | 'running' | 'completed';

/** What a task ingests: raw documents, uploaded files, or one of the ingestData types. */
export type TaskKind =
  | 'documents'
  | 'files'
  | 'website-crawler'
  | 'docusaurus'
  | 'github'
  | 'youtube'
  | 'url'
  | 'sitemap'
  | 'openapi'
  | 'folder';

/** A task as queues and workers know it: its id, and its project (one task per project runs at a time). */
export interface TaskRef {
  id: number;
  projectId: number;
}

/** What a new task is: its project, kind, request and (for ingestData) its index. */
export interface NewTask {
  projectId: number;
  kind: TaskKind;
  /** JSON of what to ingest, kept so that a restart can run the task again. */
  payload: string;
  total: number;
  indexId: number | null;
  /** Started by the auto-sync schedule (default: asked for by hand). */
  scheduled?: boolean;
}

/**
 * A task's progress and outcome as `ingestionStatus` answers it: never the payload or the report,
 * which can be megabytes, as status is polled often.
 */
export interface TaskProgress {
  id: number;
  projectId: number;
  status: TaskStatus;
  current: number;
  total: number;
  currentStep: string;
  /** Set when completed. */
  success: boolean | null;
  error: string | null;
  indexedCount: number;
  skippedCount: number;
  /** JSON of the sync counts, set when an ingestData task completed. */
  counts: string | null;
}

/** A task's report for operators (`kbqa tasks show`): its outcome and the JSON report, not the payload. */
export interface TaskReport {
  id: number;
  projectId: number;
  kind: TaskKind;
  status: TaskStatus;
  currentStep: string;
  current: number;
  total: number;
  success: boolean | null;
  error: string | null;
  errorCode: string | null;
  /** JSON: counts, and the sources indexed and items skipped. */
  stats: string | null;
  /** Stored timestamps (nowTimestamp). */
  createdAt: string;
  finishedAt: string | null;
}

/** A line of a project's task list: outcome and counts, from their own columns (no report read). */
export interface TaskSummary {
  id: number;
  kind: TaskKind;
  status: TaskStatus;
  success: boolean | null;
  indexedCount: number;
  skippedCount: number;
  createdAt: string;
  finishedAt: string | null;
}

/** A task as a run reads it: what to ingest, and how often it was tried. */
export interface TaskToRun {
  id: number;
  projectId: number;
  kind: TaskKind;
  status: TaskStatus;
  /** JSON of what to ingest. */
  payload: string;
  indexId: number | null;
  attempts: number;
}

/** Columns a run writes to its task row; absent fields are left as they are. */
export interface TaskUpdate {
  status?: TaskStatus;
  current?: number;
  total?: number;
  currentStep?: string;
  payload?: string;
  success?: boolean | null;
  errorCode?: string | null;
  error?: string | null;
  stats?: string | null;
  indexedCount?: number;
  skippedCount?: number;
  counts?: string | null;
  attempts?: number;
  updatedAt?: string;
  finishedAt?: string | null;
}

/** The ingestion task rows: creating them and reading them back without their payload. */
export interface TaskRepository {
  /**
   * Inserts a pending task under a fresh random id (randomRecordId: ingestionStatus answers without
   * a key, so ids must not be guessable; a collision draws again) and returns the id. The row is
   * committed before the id is returned, so a status call can never miss it.
   */
  create(task: NewTask): Promise<number>;
  /** The task's progress and outcome, without payload or report. */
  progress(taskId: number): Promise<TaskProgress | undefined>;
  /** The task with its payload, as a run needs it. */
  toRun(taskId: number): Promise<TaskToRun | undefined>;
  /**
   * Writes `values` to the task row, whoever runs it: for runs under a queue with locks of its
   * own (BullMQ); without one, runs write through {@link TaskLeaseRepository.updateHeld}.
   */
  update(taskId: number, values: TaskUpdate): Promise<void>;
  /** The task's report, without payload. */
  report(taskId: number): Promise<TaskReport | undefined>;
  /** A project's tasks, newest first (creation time, then id), at most `limit`. */
  list(projectId: number, limit: number): Promise<TaskSummary[]>;
  /** Tasks pending or running, oldest first (ids are random: creation time gives the order of arrival). */
  unfinished(): Promise<TaskRef[]>;
  /** Pending tasks last updated before `updatedBefore` (a stored timestamp), oldest first. */
  pendingBefore(updatedBefore: string): Promise<TaskRef[]>;
}

/**
 * Claims on tasks (the `task_leases` table), for processes that share one database without a
 * queue of their own. Every method takes the claimant's `owner` (`host:pid:random`) and stored
 * timestamps, so the clock and the owner's identity stay with the caller. A live lease (`until` not
 * yet past) on a running task also holds its project's turn.
 */
export interface TaskLeaseRepository {
  /**
   * Makes `owner` the task's lease holder until `until`, marks the task running, counts the
   * attempt and sets `updated_at` to `now`, if the task is not completed, no other owner holds a
   * live lease on it, and no other running task of its project has a live lease of another owner.
   * One decision for all processes: of claims made at once, exactly one wins.
   */
  claim(task: TaskRef, owner: string, until: string, now: string): Promise<boolean>;
  /** Extends `owner`'s lease on the task; false when `owner` no longer holds it. */
  renew(taskId: number, owner: string, until: string): Promise<boolean>;
  /** Writes `values` to the task row if `owner` holds its lease; false when it does not. */
  updateHeld(taskId: number, owner: string, values: TaskUpdate): Promise<boolean>;
  /** Drops `owner`'s lease on the task, if it has one. */
  release(taskId: number, owner: string): Promise<void>;
  /**
   * Tasks to try to claim, oldest first: pending ones last updated before `pendingBefore`, and
   * running ones without a lease live at `now`.
   */
  claimable(pendingBefore: string, now: string): Promise<TaskRef[]>;
  /** The distinct owners of leases (live or not). */
  owners(): Promise<string[]>;
  /** Drops every lease of `owner` (a process that has ended). */
  dropOwner(owner: string): Promise<void>;
}

/** One line of the operator's source list. */
export interface ListedSource {
  id: number;
  source: string;
  kind: SourceKind;
  indexId: number | null;
  /** Stored timestamps (UTC, no offset): toIsoUtc reads them. */
  dateAdded: string;
  updatedAt: string;
  chunks: number;
  /** The title and id of the source's first document, if it has one. */
  title: string | null;
  documentId: number | null;
}

/** Which of a project's sources the operator's list shows. */
export interface SourceListFilter {
  indexId?: number;
  /** Part of the source string, any case; `%`, `_` and `!` match themselves. */
  q?: string;
  limit: number;
  offset: number;
}

/** A source with its project, as deleting and the MCP resource list need it. */
export interface SourceEntry {
  id: number;
  projectId: number;
  source: string;
  kind: SourceKind;
}

/**
 * Read-only views of the chunk store's tables that the chunk store itself does not offer: the
 * operator's searchable source list and the MCP resources (a source's text).
 */
export interface SourceListing {
  /** The matching sources in the order they were first added (by id), and how many match in all. */
  list(projectId: number, filter: SourceListFilter): Promise<{ total: number; sources: ListedSource[] }>;
  /** Every source of a project, by id. */
  entries(projectId: number): Promise<SourceEntry[]>;
  /** One source, whatever its project; undefined if it does not exist. */
  entry(sourceId: number): Promise<SourceEntry | undefined>;
  /**
   * The contents of the source's chunks in order, document by document; undefined when the source
   * does not exist or belongs to another project (the same answer for both).
   */
  chunkTexts(projectId: number, sourceId: number): Promise<{ source: string; texts: string[] } | undefined>;
}

import type BetterSqlite3 from 'better-sqlite3';
import type {
  ListedSource,
  NewTask,
  SourceEntry,
  SourceListFilter,
  SourceListing,
  TaskKind,
  TaskLeaseRepository,
  TaskProgress,
  TaskRef,
  TaskReport,
  TaskRepository,
  TaskStatus,
  TaskSummary,
  TaskToRun,
  TaskUpdate,
} from '@kbqa/core';
import { nowTimestamp, RANDOM_ID_ATTEMPTS, randomRecordId } from '@kbqa/core';
import { writeTransaction } from '../write-transaction';

/**
 * Runs a synchronous better-sqlite3 call as the async repository method it implements: a thrown
 * error (SQLITE_BUSY, a constraint) becomes the promise's rejection.
 */
const settle = <T>(fn: () => T): Promise<T> => new Promise((resolve) => resolve(fn()));

/** Booleans are 0/1 in SQLite (as TypeORM wrote them). */
const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

/** The column of each {@link TaskUpdate} field. */
const TASK_COLUMNS: Record<keyof TaskUpdate, string> = {
  status: 'status',
  current: 'current',
  total: 'total',
  currentStep: 'current_step',
  payload: 'payload',
  success: 'success',
  errorCode: 'error_code',
  error: 'error',
  stats: 'stats',
  indexedCount: 'indexed_count',
  skippedCount: 'skipped_count',
  counts: 'counts',
  attempts: 'attempts',
  updatedAt: 'updated_at',
  finishedAt: 'finished_at',
};

interface ProgressRow {
  id: number;
  project_id: number;
  status: TaskStatus;
  current: number;
  total: number;
  current_step: string;
  success: number | null;
  error: string | null;
  indexed_count: number;
  skipped_count: number;
  counts: string | null;
}

interface ReportRow {
  id: number;
  project_id: number;
  kind: TaskKind;
  status: TaskStatus;
  current_step: string;
  current: number;
  total: number;
  success: number | null;
  error: string | null;
  error_code: string | null;
  stats: string | null;
  created_at: string;
  finished_at: string | null;
}

interface SummaryRow {
  id: number;
  kind: TaskKind;
  status: TaskStatus;
  success: number | null;
  indexed_count: number;
  skipped_count: number;
  created_at: string;
  finished_at: string | null;
}

/** {@link TaskRepository} on one SQLite database, with statements prepared once. */
export class SqliteTaskRepository implements TaskRepository {
  private readonly stmt: ReturnType<SqliteTaskRepository['prepare']>;
  /** Update statements by their set of fields: a run writes few different sets, over and over. */
  private readonly updates = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare<[number, number, TaskKind, string, number, number | null, number, string, string]>(
        `INSERT INTO ingestion_tasks (id, project_id, kind, payload, total, index_id, scheduled, status,
           current, current_step, success, error_code, error, stats, counts, attempts, created_at,
           updated_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, 'PENDING', NULL, NULL, NULL, NULL, NULL, 0, ?, ?, NULL)`,
      ),
      progress: db.prepare<[number], ProgressRow>(
        `SELECT id, project_id, status, current, total, current_step, success, error, indexed_count,
           skipped_count, counts
         FROM ingestion_tasks WHERE id = ?`,
      ),
      toRun: db.prepare<
        [number],
        {
          id: number;
          project_id: number;
          kind: TaskKind;
          status: TaskStatus;
          payload: string;
          index_id: number | null;
          attempts: number;
        }
      >('SELECT id, project_id, kind, status, payload, index_id, attempts FROM ingestion_tasks WHERE id = ?'),
      report: db.prepare<[number], ReportRow>(
        `SELECT id, project_id, kind, status, current_step, current, total, success, error, error_code,
           stats, created_at, finished_at
         FROM ingestion_tasks WHERE id = ?`,
      ),
      list: db.prepare<[number, number], SummaryRow>(
        `SELECT id, kind, status, success, indexed_count, skipped_count, created_at, finished_at
         FROM ingestion_tasks WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      unfinished: db.prepare<[], { id: number; project_id: number }>(
        `SELECT id, project_id FROM ingestion_tasks WHERE status IN ('pending', 'running')
         ORDER BY created_at, id`,
      ),
      pendingBefore: db.prepare<[string], { id: number; project_id: number }>(
        `SELECT id, project_id FROM ingestion_tasks WHERE status = 'pending' AND updated_at < ?
         ORDER BY created_at, id`,
      ),
    };
  }

  create(task: NewTask): Promise<number> {
    return settle(() => this.insert(task));
  }

  private insert(task: NewTask): number {
    const now = nowTimestamp();
    for (let attempt = 1; ; attempt++) {
      const id = randomRecordId();
      try {
        this.stmt.insert.run(
          id,
          task.projectId,
          task.kind,
          task.payload,
          task.total,
          task.indexId,
          task.scheduled ? 1 : 0,
          now,
          now,
        );
        return id;
      } catch (e) {
        const collided = (e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
        if (!collided || attempt >= RANDOM_ID_ATTEMPTS) throw e;
      }
    }
  }

  progress(taskId: number): Promise<TaskProgress | undefined> {
    return settle(() => {
      const r = this.stmt.progress.get(taskId);
      return (
        r && {
          id: r.id,
          projectId: r.project_id,
          status: r.status,
          current: r.current,
          total: r.total,
          currentStep: r.current_step,
          success: bool(r.success),
          error: r.error,
          indexedCount: r.indexed_count,
          skippedCount: r.skipped_count,
          counts: r.counts,
        }
      );
    });
  }

  toRun(taskId: number): Promise<TaskToRun | undefined> {
    return settle(() => {
      const r = this.stmt.toRun.get(taskId);
      return (
        r && {
          id: r.id,
          projectId: r.project_id,
          kind: r.kind,
          status: r.status,
          payload: r.payload,
          indexId: r.index_id,
          attempts: r.attempts,
        }
      );
    });
  }

  update(taskId: number, values: TaskUpdate): Promise<void> {
    return settle(() => {
      const fields = Object.keys(values).filter((k) => values[k as keyof TaskUpdate] !== undefined) as Array<
        keyof TaskUpdate
      >;
      if (fields.length === 0) throw new Error('update: no field to write');
      const key = fields.join(',');
      let stmt = this.updates.get(key);
      if (!stmt) {
        const set = fields.map((f) => `${taskColumn(f)} = ?`).join(', ');
        stmt = this.db.prepare(`UPDATE ingestion_tasks SET ${set} WHERE id = ?`);
        this.updates.set(key, stmt);
      }
      const params = fields.map((f) => {
        const v = values[f];
        return typeof v === 'boolean' ? (v ? 1 : 0) : v;
      });
      stmt.run(...params, taskId);
    });
  }

  report(taskId: number): Promise<TaskReport | undefined> {
    return settle(() => {
      const r = this.stmt.report.get(taskId);
      return (
        r && {
          id: r.id,
          projectId: r.project_id,
          kind: r.kind,
          status: r.status,
          currentStep: r.current_step,
          current: r.current,
          total: r.total,
          success: bool(r.success),
          error: r.error,
          errorCode: r.error_code,
          stats: r.stats,
          createdAt: r.created_at,
          finishedAt: r.finished_at,
        }
      );
    });
  }

  list(projectId: number, limit: number): Promise<TaskSummary[]> {
    return settle(() =>
      this.stmt.list.all(projectId, limit).map((r) => ({
        id: r.id,
        kind: r.kind,
        status: r.status,
        success: bool(r.success),
        indexedCount: r.indexed_count,
        skippedCount: r.skipped_count,
        createdAt: r.created_at,
        finishedAt: r.finished_at,
      })),
    );
  }

  unfinished(): Promise<TaskRef[]> {
    return settle(() => this.stmt.unfinished.all().map(taskRef));
  }

  pendingBefore(updatedBefore: string): Promise<TaskRef[]> {
    return settle(() => this.stmt.pendingBefore.all(updatedBefore).map(taskRef));
  }
}

/**
 * Takes the lease of a task that is not completed, unless another owner holds a live lease on it
 * or on another running task of its project. Returns the task id when the claimant won.
 */
const CLAIM_SQL = `INSERT INTO task_leases (task_id, project_id, owner, until)
  SELECT CAST(:id AS bigint), CAST(:projectId AS integer), CAST(:owner AS text), CAST(:until AS text)
  WHERE EXISTS (SELECT 1 FROM ingestion_tasks WHERE id = :id AND status <> 'completed')
    AND NOT EXISTS (SELECT 1 FROM task_leases l JOIN ingestion_tasks t ON t.id = l.task_id
      WHERE l.project_id = :projectId AND l.task_id <> :id AND l.owner <> :owner
        AND l.until >= :now AND t.status = 'running')
  ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, until = excluded.until
    WHERE task_leases.owner = :owner OR task_leases.until < :now
  RETURNING task_id`;

const START_SQL = `UPDATE ingestion_tasks SET status = 'running', attempts = attempts + 1, updated_at = :now
  WHERE id = :id`;

interface ClaimParams {
  id: number;
  projectId: number;
  owner: string;
  until: string;
  now: string;
}

/**
 * {@link TaskLeaseRepository} on one SQLite database (shared by processes on one machine). A claim
 * is decided under the write lock taken at BEGIN (BEGIN IMMEDIATE), so of processes claiming at
 * once exactly one wins.
 */
export class SqliteTaskLeaseRepository implements TaskLeaseRepository {
  private readonly stmt: ReturnType<SqliteTaskLeaseRepository['prepare']>;
  /** Held-task updates by the fields they set (a run writes a few shapes over and over). */
  private readonly updates = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      claim: db.prepare<[ClaimParams], { task_id: number }>(CLAIM_SQL),
      start: db.prepare<[{ id: number; now: string }]>(START_SQL),
      renew: db.prepare<[string, number, string]>(
        'UPDATE task_leases SET until = ? WHERE task_id = ? AND owner = ?',
      ),
      release: db.prepare<[number, string]>('DELETE FROM task_leases WHERE task_id = ? AND owner = ?'),
      claimable: db.prepare<[string, string], { id: number; project_id: number }>(
        `SELECT t.id, t.project_id FROM ingestion_tasks t
         WHERE (t.status = 'pending' AND t.updated_at < ?) OR (t.status = 'running' AND NOT EXISTS
           (SELECT 1 FROM task_leases l WHERE l.task_id = t.id AND l.until >= ?))
         ORDER BY t.created_at, t.id`,
      ),
      owners: db.prepare<[], { owner: string }>('SELECT DISTINCT owner FROM task_leases'),
      dropOwner: db.prepare<[string]>('DELETE FROM task_leases WHERE owner = ?'),
    };
  }

  claim(task: TaskRef, owner: string, until: string, now: string): Promise<boolean> {
    return settle(() => {
      const params = { id: task.id, projectId: task.projectId, owner, until, now };
      return writeTransaction(this.db, () => {
        if (this.stmt.claim.get(params) === undefined) return false;
        this.stmt.start.run({ id: task.id, now });
        return true;
      });
    });
  }

  renew(taskId: number, owner: string, until: string): Promise<boolean> {
    return settle(() => this.stmt.renew.run(until, taskId, owner).changes > 0);
  }

  updateHeld(taskId: number, owner: string, values: TaskUpdate): Promise<boolean> {
    return settle(() => {
      const fields = Object.keys(values).filter((k) => values[k as keyof TaskUpdate] !== undefined) as Array<
        keyof TaskUpdate
      >;
      if (fields.length === 0) throw new Error('updateHeld: no field to write');
      const key = fields.join(',');
      let stmt = this.updates.get(key);
      if (!stmt) {
        const set = fields.map((f) => `${taskColumn(f)} = ?`).join(', ');
        stmt = this.db.prepare(
          `UPDATE ingestion_tasks SET ${set}
           WHERE id = ? AND EXISTS (SELECT 1 FROM task_leases WHERE task_id = ? AND owner = ?)`,
        );
        this.updates.set(key, stmt);
      }
      const params = fields.map((f) => {
        const v = values[f];
        return typeof v === 'boolean' ? (v ? 1 : 0) : v;
      });
      return stmt.run(...params, taskId, taskId, owner).changes > 0;
    });
  }

  release(taskId: number, owner: string): Promise<void> {
    return settle(() => {
      this.stmt.release.run(taskId, owner);
    });
  }

  claimable(pendingBefore: string, now: string): Promise<TaskRef[]> {
    return settle(() => this.stmt.claimable.all(pendingBefore, now).map(taskRef));
  }

  owners(): Promise<string[]> {
    return settle(() => this.stmt.owners.all().map((r) => r.owner));
  }

  dropOwner(owner: string): Promise<void> {
    return settle(() => {
      this.stmt.dropOwner.run(owner);
    });
  }
}

/** {@link SourceListing} on the SQLite chunk store's tables. */
export class SqliteSourceListing implements SourceListing {
  constructor(private readonly db: BetterSqlite3.Database) {}

  list(projectId: number, filter: SourceListFilter): Promise<{ total: number; sources: ListedSource[] }> {
    return settle(() => {
      const where = ['s.project_id = ?'];
      const params: Array<string | number> = [projectId];
      if (filter.indexId !== undefined) {
        where.push('s.index_id = ?');
        params.push(filter.indexId);
      }
      if (filter.q) {
        where.push("lower(s.source) LIKE ? ESCAPE '!'");
        params.push(likePattern(filter.q));
      }
      const count = this.db
        .prepare<Array<string | number>, { n: number }>(
          `SELECT count(*) AS n FROM sources s WHERE ${where.join(' AND ')}`,
        )
        .get(...params);
      const rows = this.db
        .prepare<Array<string | number>, ListedRow>(
          `SELECT s.id, s.source, s.kind, s.index_id, s.date_added, s.updated_at,
             (SELECT count(*) FROM chunks c WHERE c.source_id = s.id) AS chunks,
             (SELECT d.title FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS title,
             (SELECT d.id FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS document_id
           FROM sources s WHERE ${where.join(' AND ')}
           ORDER BY s.id LIMIT ? OFFSET ?`,
        )
        .all(...params, filter.limit, filter.offset);
      return { total: count?.n ?? 0, sources: rows.map(listedSource) };
    });
  }

  entries(projectId: number): Promise<SourceEntry[]> {
    return settle(() =>
      this.db
        .prepare<[number], SourceEntry>(
          'SELECT id, project_id AS projectId, source, kind FROM sources WHERE project_id = ? ORDER BY id',
        )
        .all(projectId),
    );
  }

  entry(sourceId: number): Promise<SourceEntry | undefined> {
    return settle(() =>
      this.db
        .prepare<[number], SourceEntry>(
          'SELECT id, project_id AS projectId, source, kind FROM sources WHERE id = ?',
        )
        .get(sourceId),
    );
  }

  chunkTexts(projectId: number, sourceId: number): Promise<{ source: string; texts: string[] } | undefined> {
    return settle(() => {
      const row = this.db
        .prepare<[number, number], { source: string }>(
          'SELECT source FROM sources WHERE id = ? AND project_id = ?',
        )
        .get(sourceId, projectId);
      if (!row) return undefined;
      const texts = this.db
        .prepare<[number, number], { content: string }>(
          'SELECT content FROM chunks WHERE source_id = ? AND project_id = ? ORDER BY document_id, ordinal',
        )
        .all(sourceId, projectId)
        .map((c) => c.content);
      return { source: row.source, texts };
    });
  }
}

interface ListedRow {
  id: number;
  source: string;
  kind: ListedSource['kind'];
  index_id: number | null;
  date_added: string;
  updated_at: string;
  chunks: number;
  title: string | null;
  document_id: number | null;
}

function listedSource(r: ListedRow): ListedSource {
  return {
    id: r.id,
    source: r.source,
    kind: r.kind,
    indexId: r.index_id,
    dateAdded: r.date_added,
    updatedAt: r.updated_at,
    chunks: r.chunks,
    title: r.title,
    documentId: r.document_id,
  };
}

/** A case-insensitive substring match: LIKE with the wildcards of the search text escaped. */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
}

function taskRef(r: { id: number; project_id: number }): TaskRef {
  return { id: r.id, projectId: r.project_id };
}

function taskColumn(field: string): string {
  const column = (TASK_COLUMNS as Record<string, string | undefined>)[field];
  if (column === undefined) throw new Error(`ingestion_tasks has no field ${field}`);
  return column;
}

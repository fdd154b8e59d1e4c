import type { Pool } from 'pg';
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
import { nowTimestamp, randomRecordId } from '@kbqa/core';
import { withRandomIds } from '../message-writes';
import { inTransaction } from '../migrations';

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

/** Task ids are bigint: numbers with the API's pool settings, text with pg's defaults. */
type Id = number | string;

/**
 * {@link TaskRepository} on the PostgreSQL records tables (migration 2), the same rows as
 * SqliteTaskRepository writes. The status read, which clients poll, is a named statement.
 */
export class PostgresTaskRepository implements TaskRepository {
  constructor(private readonly pool: Pool) {}

  async create(task: NewTask): Promise<number> {
    const now = nowTimestamp();
    return withRandomIds(async () => {
      const id = randomRecordId();
      await this.pool.query(
        `INSERT INTO ingestion_tasks (id, project_id, kind, payload, total, index_id, scheduled, status,
           current, current_step, success, error_code, error, stats, counts, attempts, created_at,
           updated_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, 'PENDING', NULL, NULL, NULL, NULL, NULL, 0, $8, $8, NULL)`,
        [id, task.projectId, task.kind, task.payload, task.total, task.indexId, task.scheduled ?? false, now],
      );
      return id;
    });
  }

  async progress(taskId: number): Promise<TaskProgress | undefined> {
    const { rows } = await this.pool.query<{
      id: Id;
      project_id: number;
      status: TaskStatus;
      current: number;
      total: number;
      current_step: string;
      success: boolean | null;
      error: string | null;
      indexed_count: number;
      skipped_count: number;
      counts: string | null;
    }>({
      name: 'kbqa_task_progress',
      text: `SELECT id, project_id, status, current, total, current_step, success, error, indexed_count,
               skipped_count, counts
             FROM ingestion_tasks WHERE id = $1`,
      values: [taskId],
    });
    const r = rows[0];
    return (
      r && {
        id: Number(r.id),
        projectId: r.project_id,
        status: r.status,
        current: r.current,
        total: r.total,
        currentStep: r.current_step,
        success: r.success,
        error: r.error,
        indexedCount: r.indexed_count,
        skippedCount: r.skipped_count,
        counts: r.counts,
      }
    );
  }

  async toRun(taskId: number): Promise<TaskToRun | undefined> {
    const { rows } = await this.pool.query<{
      id: Id;
      project_id: number;
      kind: TaskKind;
      status: TaskStatus;
      payload: string;
      index_id: number | null;
      attempts: number;
    }>(
      'SELECT id, project_id, kind, status, payload, index_id, attempts FROM ingestion_tasks WHERE id = $1',
      [taskId],
    );
    const r = rows[0];
    return (
      r && {
        id: Number(r.id),
        projectId: r.project_id,
        kind: r.kind,
        status: r.status,
        payload: r.payload,
        indexId: r.index_id,
        attempts: r.attempts,
      }
    );
  }

  async update(taskId: number, values: TaskUpdate): Promise<void> {
    const fields = Object.keys(values).filter((k) => values[k as keyof TaskUpdate] !== undefined) as Array<
      keyof TaskUpdate
    >;
    if (fields.length === 0) throw new Error('update: no field to write');
    const set = fields.map((f, i) => `${taskColumn(f)} = $${i + 2}`).join(', ');
    await this.pool.query(`UPDATE ingestion_tasks SET ${set} WHERE id = $1`, [
      taskId,
      ...fields.map((f) => values[f]),
    ]);
  }

  async report(taskId: number): Promise<TaskReport | undefined> {
    const { rows } = await this.pool.query<{
      id: Id;
      project_id: number;
      kind: TaskKind;
      status: TaskStatus;
      current_step: string;
      current: number;
      total: number;
      success: boolean | null;
      error: string | null;
      error_code: string | null;
      stats: string | null;
      created_at: string;
      finished_at: string | null;
    }>(
      `SELECT id, project_id, kind, status, current_step, current, total, success, error, error_code,
         stats, created_at, finished_at
       FROM ingestion_tasks WHERE id = $1`,
      [taskId],
    );
    const r = rows[0];
    return (
      r && {
        id: Number(r.id),
        projectId: r.project_id,
        kind: r.kind,
        status: r.status,
        currentStep: r.current_step,
        current: r.current,
        total: r.total,
        success: r.success,
        error: r.error,
        errorCode: r.error_code,
        stats: r.stats,
        createdAt: r.created_at,
        finishedAt: r.finished_at,
      }
    );
  }

  async list(projectId: number, limit: number): Promise<TaskSummary[]> {
    const { rows } = await this.pool.query<{
      id: Id;
      kind: TaskKind;
      status: TaskStatus;
      success: boolean | null;
      indexed_count: number;
      skipped_count: number;
      created_at: string;
      finished_at: string | null;
    }>(
      `SELECT id, kind, status, success, indexed_count, skipped_count, created_at, finished_at
       FROM ingestion_tasks WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [projectId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      status: r.status,
      success: r.success,
      indexedCount: r.indexed_count,
      skippedCount: r.skipped_count,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
    }));
  }

  async unfinished(): Promise<TaskRef[]> {
    const { rows } = await this.pool.query<RefRow>(
      `SELECT id, project_id FROM ingestion_tasks WHERE status IN ('pending', 'running')
       ORDER BY created_at, id`,
    );
    return rows.map(taskRef);
  }

  async pendingBefore(updatedBefore: string): Promise<TaskRef[]> {
    const { rows } = await this.pool.query<RefRow>(
      `SELECT id, project_id FROM ingestion_tasks WHERE status = 'pending' AND updated_at < $1
       ORDER BY created_at, id`,
      [updatedBefore],
    );
    return rows.map(taskRef);
  }
}

/** First key of the PostgreSQL advisory lock that orders the claims of one project ("kbqa"). */
const CLAIM_LOCK_KEY = 0x6b627161;

/**
 * Takes the lease of a task that is not completed, unless another owner holds a live lease on it
 * or on another running task of its project. Returns the task id when the claimant won.
 * $1 task id, $2 project, $3 owner, $4 until, $5 now.
 */
const CLAIM_SQL = `INSERT INTO task_leases (task_id, project_id, owner, until)
  SELECT $1::bigint, $2::integer, $3::text, $4::text
  WHERE EXISTS (SELECT 1 FROM ingestion_tasks WHERE id = $1::bigint AND status <> 'completed')
    AND NOT EXISTS (SELECT 1 FROM task_leases l JOIN ingestion_tasks t ON t.id = l.task_id
      WHERE l.project_id = $2::integer AND l.task_id <> $1::bigint AND l.owner <> $3::text
        AND l.until >= $5::text AND t.status = 'running')
  ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, until = excluded.until
    WHERE task_leases.owner = $3::text OR task_leases.until < $5::text
  RETURNING task_id`;

/**
 * {@link TaskLeaseRepository} on PostgreSQL, for processes on any number of machines. A claim
 * takes an advisory lock per project first, without which its statement would not see another
 * task of the project claimed concurrently (READ COMMITTED: each sees the table as it was).
 */
export class PostgresTaskLeaseRepository implements TaskLeaseRepository {
  constructor(private readonly pool: Pool) {}

  async claim(task: TaskRef, owner: string, until: string, now: string): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      return await inTransaction(client, async () => {
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [CLAIM_LOCK_KEY, task.projectId]);
        const claimed = await client.query({
          name: 'kbqa_task_claim',
          text: CLAIM_SQL,
          values: [task.id, task.projectId, owner, until, now],
        });
        if (claimed.rows.length === 0) return false;
        await client.query({
          name: 'kbqa_task_start',
          text: `UPDATE ingestion_tasks SET status = 'running', attempts = attempts + 1, updated_at = $2
                 WHERE id = $1`,
          values: [task.id, now],
        });
        return true;
      });
    } finally {
      client.release();
    }
  }

  async renew(taskId: number, owner: string, until: string): Promise<boolean> {
    const result = await this.pool.query({
      name: 'kbqa_task_renew',
      text: 'UPDATE task_leases SET until = $1 WHERE task_id = $2 AND owner = $3',
      values: [until, taskId, owner],
    });
    return (result.rowCount ?? 0) > 0;
  }

  async updateHeld(taskId: number, owner: string, values: TaskUpdate): Promise<boolean> {
    const fields = Object.keys(values).filter((k) => values[k as keyof TaskUpdate] !== undefined) as Array<
      keyof TaskUpdate
    >;
    if (fields.length === 0) throw new Error('updateHeld: no field to write');
    const set = fields.map((f, i) => `${taskColumn(f)} = $${i + 3}`).join(', ');
    const result = await this.pool.query(
      `UPDATE ingestion_tasks SET ${set}
       WHERE id = $1 AND EXISTS (SELECT 1 FROM task_leases WHERE task_id = $1 AND owner = $2)`,
      [taskId, owner, ...fields.map((f) => values[f])],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async release(taskId: number, owner: string): Promise<void> {
    await this.pool.query('DELETE FROM task_leases WHERE task_id = $1 AND owner = $2', [taskId, owner]);
  }

  async claimable(pendingBefore: string, now: string): Promise<TaskRef[]> {
    const { rows } = await this.pool.query<RefRow>(
      `SELECT t.id, t.project_id FROM ingestion_tasks t
       WHERE (t.status = 'pending' AND t.updated_at < $1) OR (t.status = 'running' AND NOT EXISTS
         (SELECT 1 FROM task_leases l WHERE l.task_id = t.id AND l.until >= $2))
       ORDER BY t.created_at, t.id`,
      [pendingBefore, now],
    );
    return rows.map(taskRef);
  }

  async owners(): Promise<string[]> {
    const { rows } = await this.pool.query<{ owner: string }>('SELECT DISTINCT owner FROM task_leases');
    return rows.map((r) => r.owner);
  }

  async dropOwner(owner: string): Promise<void> {
    await this.pool.query('DELETE FROM task_leases WHERE owner = $1', [owner]);
  }
}

/**
 * {@link SourceListing} on the PostgreSQL chunk store's tables. Its timestamps are timestamptz,
 * read as stored text in UTC so that they look as SQLite's do whatever the pool's type parsers.
 */
export class PostgresSourceListing implements SourceListing {
  constructor(private readonly pool: Pool) {}

  async list(
    projectId: number,
    filter: SourceListFilter,
  ): Promise<{ total: number; sources: ListedSource[] }> {
    const where = ['s.project_id = $1'];
    const params: Array<string | number> = [projectId];
    if (filter.indexId !== undefined) {
      params.push(filter.indexId);
      where.push(`s.index_id = $${params.length}`);
    }
    if (filter.q) {
      // A substring match on both stores: LIKE with the wildcards of the search text escaped.
      params.push(`%${filter.q.toLowerCase().replace(/[!%_]/g, '!$&')}%`);
      where.push(`lower(s.source) LIKE $${params.length} ESCAPE '!'`);
    }
    const count = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sources s WHERE ${where.join(' AND ')}`,
      params,
    );
    const { rows } = await this.pool.query<{
      id: number;
      source: string;
      kind: ListedSource['kind'];
      index_id: number | null;
      date_added: string;
      updated_at: string;
      chunks: number;
      title: string | null;
      document_id: number | null;
    }>(
      `SELECT s.id, s.source, s.kind, s.index_id, ${storedText('s.date_added')} AS date_added,
         ${storedText('s.updated_at')} AS updated_at,
         (SELECT count(*)::int FROM chunks c WHERE c.source_id = s.id) AS chunks,
         (SELECT d.title FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS title,
         (SELECT d.id FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS document_id
       FROM sources s WHERE ${where.join(' AND ')}
       ORDER BY s.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    );
    return {
      total: count.rows[0]?.n ?? 0,
      sources: rows.map((r) => ({
        id: r.id,
        source: r.source,
        kind: r.kind,
        indexId: r.index_id,
        dateAdded: r.date_added,
        updatedAt: r.updated_at,
        chunks: r.chunks,
        title: r.title,
        documentId: r.document_id,
      })),
    };
  }

  async entries(projectId: number): Promise<SourceEntry[]> {
    const { rows } = await this.pool.query<SourceEntry>(
      'SELECT id, project_id AS "projectId", source, kind FROM sources WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    return rows;
  }

  async entry(sourceId: number): Promise<SourceEntry | undefined> {
    const { rows } = await this.pool.query<SourceEntry>(
      'SELECT id, project_id AS "projectId", source, kind FROM sources WHERE id = $1',
      [sourceId],
    );
    return rows[0];
  }

  async chunkTexts(
    projectId: number,
    sourceId: number,
  ): Promise<{ source: string; texts: string[] } | undefined> {
    const { rows } = await this.pool.query<{ source: string }>(
      'SELECT source FROM sources WHERE id = $1 AND project_id = $2',
      [sourceId, projectId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const chunks = await this.pool.query<{ content: string }>(
      'SELECT content FROM chunks WHERE source_id = $1 AND project_id = $2 ORDER BY document_id, ordinal',
      [sourceId, projectId],
    );
    return { source: row.source, texts: chunks.rows.map((c) => c.content) };
  }
}

interface RefRow {
  id: Id;
  project_id: number;
}

function taskRef(r: RefRow): TaskRef {
  return { id: Number(r.id), projectId: r.project_id };
}

function taskColumn(field: string): string {
  const column = (TASK_COLUMNS as Record<string, string | undefined>)[field];
  if (column === undefined) throw new Error(`ingestion_tasks has no field ${field}`);
  return column;
}

/** A timestamptz column in the stored form (nowTimestamp: UTC, microseconds, no offset). */
function storedText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
}

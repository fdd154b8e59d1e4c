import type { Pool } from 'pg';
import type { IndexOptions, IndexRecord, IndexRepository, SourceType } from '@kbqa/core';

/** Task ids are bigint: numbers with the API's pool settings, text with pg's defaults. */
type Id = number | string;

interface IndexRow {
  id: number;
  project_id: number;
  type: SourceType;
  url: string;
  options: string;
  auto_sync: boolean;
  next_sync_at: string | null;
  last_synced_at: string | null;
  last_task_id: Id | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, project_id, type, url, options, auto_sync, next_sync_at, last_synced_at, last_task_id,
  created_at, updated_at`;

function record(r: IndexRow): IndexRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    type: r.type,
    url: r.url,
    options: JSON.parse(r.options) as IndexOptions,
    autoSync: r.auto_sync,
    nextSyncAt: r.next_sync_at,
    lastSyncedAt: r.last_synced_at,
    lastTaskId: r.last_task_id === null ? null : Number(r.last_task_id),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** {@link IndexRepository} on the PostgreSQL records tables (migration 2), the same rows as SqliteIndexRepository. */
export class PostgresIndexRepository implements IndexRepository {
  constructor(private readonly pool: Pool) {}

  async upsert(
    projectId: number,
    type: SourceType,
    url: string,
    options: IndexOptions,
    now: string,
  ): Promise<IndexRecord> {
    const { rows } = await this.pool.query<IndexRow>(
      `INSERT INTO indexes (project_id, type, url, options, auto_sync, next_sync_at, last_synced_at,
         last_task_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, false, NULL, NULL, NULL, $5, $5)
       ON CONFLICT (project_id, type, url)
       DO UPDATE SET options = excluded.options, updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
      [projectId, type, url, JSON.stringify(options), now],
    );
    return record(rows[0]!);
  }

  async get(id: number): Promise<IndexRecord | undefined> {
    const { rows } = await this.pool.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE id = $1`, [id]);
    return rows[0] && record(rows[0]);
  }

  async list(projectId?: number): Promise<IndexRecord[]> {
    const { rows } =
      projectId === undefined
        ? await this.pool.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes ORDER BY id`)
        : await this.pool.query<IndexRow>(
            `SELECT ${COLUMNS} FROM indexes WHERE project_id = $1 ORDER BY id`,
            [projectId],
          );
    return rows.map(record);
  }

  async ofType(type: SourceType): Promise<IndexRecord[]> {
    const { rows } = await this.pool.query<IndexRow>(
      `SELECT ${COLUMNS} FROM indexes WHERE type = $1 ORDER BY id`,
      [type],
    );
    return rows.map(record);
  }

  async setAutoSync(id: number, on: boolean, nextSyncAt: string | null, now: string): Promise<void> {
    await this.pool.query(
      'UPDATE indexes SET auto_sync = $1, next_sync_at = $2, updated_at = $3 WHERE id = $4',
      [on, nextSyncAt, now, id],
    );
  }

  async delete(id: number): Promise<void> {
    await this.pool.query('DELETE FROM indexes WHERE id = $1', [id]);
  }

  async due(now: string): Promise<IndexRecord[]> {
    const { rows } = await this.pool.query<IndexRow>(
      `SELECT ${COLUMNS} FROM indexes WHERE auto_sync AND next_sync_at <= $1 ORDER BY next_sync_at`,
      [now],
    );
    return rows.map(record);
  }

  async claimDue(id: number, seen: string, next: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE indexes SET next_sync_at = $1 WHERE id = $2 AND auto_sync AND next_sync_at = $3',
      [next, id, seen],
    );
    return rowCount === 1;
  }

  async synced(id: number, taskId: number, now: string): Promise<void> {
    await this.pool.query(
      'UPDATE indexes SET last_synced_at = $1, last_task_id = $2, updated_at = $1 WHERE id = $3',
      [now, taskId, id],
    );
  }

  async taskIn(indexId: number, statuses: ReadonlyArray<'pending' | 'running'>): Promise<number | undefined> {
    if (statuses.length === 0) return undefined;
    const { rows } = await this.pool.query<{ id: Id }>(
      'SELECT id FROM ingestion_tasks WHERE index_id = $1 AND status = ANY($2::text[]) LIMIT 1',
      [indexId, statuses],
    );
    return rows[0] && Number(rows[0].id);
  }

  async cancelScheduled(indexId: number, error: string, now: string): Promise<void> {
    await this.pool.query(
      `UPDATE ingestion_tasks SET status = 'completed', success = false, error_code = 'ABORTED', error = $1,
         updated_at = $2, finished_at = $2
       WHERE index_id = $3 AND status = 'pending' AND scheduled`,
      [error, now, indexId],
    );
  }
}

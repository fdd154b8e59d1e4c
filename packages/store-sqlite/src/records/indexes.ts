import type BetterSqlite3 from 'better-sqlite3';
import type { IndexOptions, IndexRecord, IndexRepository, SourceType } from '@kbqa/core';

/**
 * Runs a synchronous better-sqlite3 call as the async repository method it implements: a thrown
 * error (SQLITE_BUSY, a constraint) becomes the promise's rejection.
 */
const settle = <T>(fn: () => T): Promise<T> => new Promise((resolve) => resolve(fn()));

interface IndexRow {
  id: number;
  project_id: number;
  type: SourceType;
  url: string;
  options: string;
  auto_sync: number;
  next_sync_at: string | null;
  last_synced_at: string | null;
  last_task_id: number | null;
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
    // Booleans are 0/1 in SQLite (as TypeORM wrote them).
    autoSync: r.auto_sync !== 0,
    nextSyncAt: r.next_sync_at,
    lastSyncedAt: r.last_synced_at,
    lastTaskId: r.last_task_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** {@link IndexRepository} on one SQLite database, with statements prepared once. */
export class SqliteIndexRepository implements IndexRepository {
  private readonly stmt: ReturnType<SqliteIndexRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      upsert: db.prepare<[number, SourceType, string, string, string, string]>(
        `INSERT INTO indexes (project_id, type, url, options, auto_sync, next_sync_at, last_synced_at,
           last_task_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, 0, NULL, NULL, NULL, ?, ?)
         ON CONFLICT (project_id, type, url)
         DO UPDATE SET options = excluded.options, updated_at = excluded.updated_at`,
      ),
      find: db.prepare<[number, SourceType, string], IndexRow>(
        `SELECT ${COLUMNS} FROM indexes WHERE project_id = ? AND type = ? AND url = ?`,
      ),
      get: db.prepare<[number], IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE id = ?`),
      all: db.prepare<[], IndexRow>(`SELECT ${COLUMNS} FROM indexes ORDER BY id`),
      ofProject: db.prepare<[number], IndexRow>(
        `SELECT ${COLUMNS} FROM indexes WHERE project_id = ? ORDER BY id`,
      ),
      ofType: db.prepare<[SourceType], IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE type = ? ORDER BY id`),
      setAutoSync: db.prepare<[number, string | null, string, number]>(
        'UPDATE indexes SET auto_sync = ?, next_sync_at = ?, updated_at = ? WHERE id = ?',
      ),
      delete: db.prepare<[number]>('DELETE FROM indexes WHERE id = ?'),
      due: db.prepare<[string], IndexRow>(
        `SELECT ${COLUMNS} FROM indexes WHERE auto_sync = 1 AND next_sync_at <= ? ORDER BY next_sync_at`,
      ),
      claimDue: db.prepare<[string, number, string]>(
        'UPDATE indexes SET next_sync_at = ? WHERE id = ? AND auto_sync = 1 AND next_sync_at = ?',
      ),
      synced: db.prepare<[string, number, string, number]>(
        'UPDATE indexes SET last_synced_at = ?, last_task_id = ?, updated_at = ? WHERE id = ?',
      ),
      cancelScheduled: db.prepare<[string, string, string, number]>(
        `UPDATE ingestion_tasks SET status = 'completed', success = 0, error_code = 'ABORTED', error = ?,
           updated_at = ?, finished_at = ?
         WHERE index_id = ? AND status = 'pending' AND scheduled = 1`,
      ),
    };
  }

  upsert(
    projectId: number,
    type: SourceType,
    url: string,
    options: IndexOptions,
    now: string,
  ): Promise<IndexRecord> {
    return settle(() => {
      this.stmt.upsert.run(projectId, type, url, JSON.stringify(options), now, now);
      const row = this.stmt.find.get(projectId, type, url);
      if (!row) throw new Error(`index ${type} ${url} of project ${projectId} vanished after its upsert`);
      return record(row);
    });
  }

  get(id: number): Promise<IndexRecord | undefined> {
    return settle(() => {
      const row = this.stmt.get.get(id);
      return row && record(row);
    });
  }

  list(projectId?: number): Promise<IndexRecord[]> {
    return settle(() =>
      (projectId === undefined ? this.stmt.all.all() : this.stmt.ofProject.all(projectId)).map(record),
    );
  }

  ofType(type: SourceType): Promise<IndexRecord[]> {
    return settle(() => this.stmt.ofType.all(type).map(record));
  }

  setAutoSync(id: number, on: boolean, nextSyncAt: string | null, now: string): Promise<void> {
    return settle(() => void this.stmt.setAutoSync.run(on ? 1 : 0, nextSyncAt, now, id));
  }

  delete(id: number): Promise<void> {
    return settle(() => void this.stmt.delete.run(id));
  }

  due(now: string): Promise<IndexRecord[]> {
    return settle(() => this.stmt.due.all(now).map(record));
  }

  claimDue(id: number, seen: string, next: string): Promise<boolean> {
    return settle(() => this.stmt.claimDue.run(next, id, seen).changes === 1);
  }

  synced(id: number, taskId: number, now: string): Promise<void> {
    return settle(() => void this.stmt.synced.run(now, taskId, now, id));
  }

  taskIn(indexId: number, statuses: ReadonlyArray<'pending' | 'running'>): Promise<number | undefined> {
    if (statuses.length === 0) return Promise.resolve(undefined);
    return settle(() => {
      const row = this.db
        .prepare<unknown[], { id: number }>(
          `SELECT id FROM ingestion_tasks WHERE index_id = ? AND status IN (${statuses.map(() => '?').join(', ')})
           LIMIT 1`,
        )
        .get(indexId, ...statuses);
      return row?.id;
    });
  }

  cancelScheduled(indexId: number, error: string, now: string): Promise<void> {
    return settle(() => void this.stmt.cancelScheduled.run(error, now, now, indexId));
  }
}

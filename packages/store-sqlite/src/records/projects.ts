import type BetterSqlite3 from 'better-sqlite3';
import type {
  DashboardSessionRecord,
  DashboardSessionRepository,
  KeyKind,
  KeyRecord,
  KeyRepository,
  NewKey,
  ProjectChanges,
  ProjectRecord,
  ProjectRepository,
} from '@kbqa/core';

interface ProjectRow {
  id: number;
  name: string;
  export_enabled: number;
  system_prompt: string | null;
  allowed_origins: string | null;
  created_at: string;
}

const PROJECT_COLUMNS = 'id, name, export_enabled, system_prompt, allowed_origins, created_at';

/**
 * {@link ProjectRepository} on one SQLite database, with statements prepared once. The origin
 * checks run on every cross-origin widget request: a prepared statement on the connection costs
 * microseconds and, unlike an in-process cache, sees at once what the CLI (another process on
 * the same file) or another API process changed.
 */
export class SqliteProjectRepository implements ProjectRepository {
  private readonly stmt: ReturnType<SqliteProjectRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare<[string, number, string | null, string, string], ProjectRow>(
        `INSERT INTO projects (name, export_enabled, system_prompt, allowed_origins, created_at)
         VALUES (?, ?, ?, ?, ?) RETURNING ${PROJECT_COLUMNS}`,
      ),
      list: db.prepare<[], ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY id`),
      find: db.prepare<[number], ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`),
      origins: db.prepare<[number], { allowed_origins: string | null }>(
        'SELECT allowed_origins FROM projects WHERE id = ?',
      ),
      anyAllows: db.prepare<[string], { found: number }>(
        `SELECT 1 AS found FROM projects, json_each(projects.allowed_origins)
         WHERE json_valid(projects.allowed_origins) AND json_each.value IN (SELECT value FROM json_each(?))
         LIMIT 1`,
      ),
    };
  }

  create(project: Omit<ProjectRecord, 'id'>): ProjectRecord {
    return projectRecord(
      this.stmt.insert.get(
        project.name,
        project.exportEnabled ? 1 : 0,
        project.systemPrompt,
        JSON.stringify(project.allowedOrigins),
        project.createdAt,
      )!,
    );
  }

  list(): ProjectRecord[] {
    return this.stmt.list.all().map(projectRecord);
  }

  find(id: number): ProjectRecord | undefined {
    const row = this.stmt.find.get(id);
    return row && projectRecord(row);
  }

  update(id: number, changes: ProjectChanges): ProjectRecord | undefined {
    const sets: string[] = [];
    const params: Array<string | number | null> = [];
    const set = (column: string, value: string | number | null) => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (changes.name !== undefined) set('name', changes.name);
    if (changes.exportEnabled !== undefined) set('export_enabled', changes.exportEnabled ? 1 : 0);
    if (changes.systemPrompt !== undefined) set('system_prompt', changes.systemPrompt);
    if (changes.allowedOrigins !== undefined) set('allowed_origins', JSON.stringify(changes.allowedOrigins));
    if (sets.length === 0) return this.find(id);
    const row = this.db
      .prepare<Array<string | number | null>, ProjectRow>(
        `UPDATE projects SET ${sets.join(', ')} WHERE id = ? RETURNING ${PROJECT_COLUMNS}`,
      )
      .get(...params, id);
    return row && projectRecord(row);
  }

  allowedOrigins(projectId: number): string[] | undefined {
    const row = this.stmt.origins.get(projectId);
    return row && parseOrigins(row.allowed_origins);
  }

  anyProjectAllows(origins: readonly string[]): boolean {
    return this.stmt.anyAllows.get(JSON.stringify(origins)) !== undefined;
  }
}

interface KeyRow {
  id: number;
  project_id: number;
  kind: KeyKind;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const KEY_COLUMNS = 'id, project_id, kind, prefix, created_at, revoked_at, last_used_at';

/** {@link KeyRepository} on one SQLite database, with statements prepared once. */
export class SqliteKeyRepository implements KeyRepository {
  private readonly stmt: ReturnType<SqliteKeyRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare<[number, KeyKind, string, string, string], KeyRow>(
        `INSERT INTO api_keys (project_id, kind, prefix, key_hash, created_at)
         VALUES (?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
      ),
      listByProject: db.prepare<[number], KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY id`,
      ),
      find: db.prepare<[number], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
      revoke: db.prepare<[string, number]>(
        'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
      ),
    };
  }

  create(key: NewKey): KeyRecord {
    return keyRecord(this.stmt.insert.get(key.projectId, key.kind, key.prefix, key.keyHash, key.createdAt)!);
  }

  listByProject(projectId: number): KeyRecord[] {
    return this.stmt.listByProject.all(projectId).map(keyRecord);
  }

  find(id: number): KeyRecord | undefined {
    const row = this.stmt.find.get(id);
    return row && keyRecord(row);
  }

  revoke(id: number, at: string): KeyRecord | undefined {
    this.stmt.revoke.run(at, id);
    return this.find(id);
  }
}

function projectRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    exportEnabled: Boolean(row.export_enabled),
    systemPrompt: row.system_prompt,
    allowedOrigins: parseOrigins(row.allowed_origins),
    createdAt: row.created_at,
  };
}

function keyRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/** The stored JSON array; anything else (a hand-edited row) reads as no origins, never as `*`. */
function parseOrigins(stored: string | null): string[] {
  try {
    const parsed: unknown = JSON.parse(stored ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

interface SessionRow {
  id_hash: string;
  csrf_token: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

/** {@link DashboardSessionRepository} on one SQLite database, with statements prepared once. */
export class SqliteDashboardSessionRepository implements DashboardSessionRepository {
  private readonly stmt: ReturnType<SqliteDashboardSessionRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare<[string, string, string, string, string]>(
        'INSERT INTO dashboard_sessions (id_hash, csrf_token, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      ),
      find: db.prepare<[string], SessionRow>(
        'SELECT id_hash, csrf_token, token_hash, created_at, expires_at FROM dashboard_sessions WHERE id_hash = ?',
      ),
      delete: db.prepare<[string]>('DELETE FROM dashboard_sessions WHERE id_hash = ?'),
      deleteExpired: db.prepare<[string]>('DELETE FROM dashboard_sessions WHERE expires_at <= ?'),
    };
  }

  create(s: DashboardSessionRecord): void {
    this.stmt.insert.run(s.idHash, s.csrfToken, s.tokenHash, s.createdAt, s.expiresAt);
  }

  find(idHash: string): DashboardSessionRecord | undefined {
    const row = this.stmt.find.get(idHash);
    return row && sessionRecord(row);
  }

  delete(idHash: string): void {
    this.stmt.delete.run(idHash);
  }

  deleteExpired(now: string): void {
    this.stmt.deleteExpired.run(now);
  }
}

function sessionRecord(row: SessionRow): DashboardSessionRecord {
  return {
    idHash: row.id_hash,
    csrfToken: row.csrf_token,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

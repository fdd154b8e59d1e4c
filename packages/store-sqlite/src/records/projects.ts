import type BetterSqlite3 from 'better-sqlite3';
import type {
  DashboardSessionRecord,
  DashboardSessionRepository,
  ListToolsOptions,
  KeyKind,
  KeyRecord,
  KeyRepository,
  NewKey,
  ProjectChanges,
  ProjectRecord,
  ProjectRepository,
  StoredHeader,
  ToolChanges,
  ToolRecord,
  ToolRepository,
  ToolSourceRecord,
  ToolSourceRepository,
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

interface ToolRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  parameters: string;
  method: string;
  url: string;
  headers: string;
  body: string | null;
  public: number;
  created_at: string;
  updated_at: string;
}

const TOOL_COLUMNS =
  'id, project_id, name, description, parameters, method, url, headers, body, public, created_at, updated_at';

/**
 * {@link ToolRepository} on one SQLite database, with statements prepared once: JSON columns as
 * text, `public` as 0/1, the rows the TypeORM entity (ToolEntity) reads.
 */
export class SqliteToolRepository implements ToolRepository {
  private readonly stmt: ReturnType<SqliteToolRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    type Definition = [string, string, string, string, string, string, string | null, number];
    return {
      list: db.prepare<[number], ToolRow>(
        `SELECT ${TOOL_COLUMNS} FROM tools WHERE project_id = ? ORDER BY id`,
      ),
      listPublic: db.prepare<[number], ToolRow>(
        `SELECT ${TOOL_COLUMNS} FROM tools WHERE project_id = ? AND public = 1 ORDER BY id`,
      ),
      find: db.prepare<[number], ToolRow>(`SELECT ${TOOL_COLUMNS} FROM tools WHERE id = ?`),
      count: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM tools WHERE project_id = ?'),
      named: db.prepare<[number, string], { found: number }>(
        'SELECT 1 AS found FROM tools WHERE project_id = ? AND name = ?',
      ),
      insert: db.prepare<[number, ...Definition, string, string], ToolRow>(
        `INSERT INTO tools (project_id, name, description, parameters, method, url, headers, body, public, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${TOOL_COLUMNS}`,
      ),
      update: db.prepare<[...Definition, string, number], ToolRow>(
        `UPDATE tools SET name = ?, description = ?, parameters = ?, method = ?, url = ?, headers = ?, body = ?,
           public = ?, updated_at = ?
         WHERE id = ? RETURNING ${TOOL_COLUMNS}`,
      ),
      delete: db.prepare<[number]>('DELETE FROM tools WHERE id = ?'),
    };
  }

  list(projectId: number, options: ListToolsOptions = {}): ToolRecord[] {
    return (options.publicOnly ? this.stmt.listPublic : this.stmt.list).all(projectId).map(toolRecord);
  }

  find(id: number): ToolRecord | undefined {
    const row = this.stmt.find.get(id);
    return row && toolRecord(row);
  }

  count(projectId: number): number {
    return this.stmt.count.get(projectId)!.n;
  }

  nameTaken(projectId: number, name: string): boolean {
    return this.stmt.named.get(projectId, name) !== undefined;
  }

  create(tool: Omit<ToolRecord, 'id'>): ToolRecord {
    return toolRecord(
      this.stmt.insert.get(tool.projectId, ...toolDefinition(tool), tool.createdAt, tool.updatedAt)!,
    );
  }

  update(id: number, changes: ToolChanges): ToolRecord | undefined {
    const row = this.stmt.update.get(...toolDefinition(changes), changes.updatedAt, id);
    return row && toolRecord(row);
  }

  delete(id: number): void {
    this.stmt.delete.run(id);
  }
}

/** The definition columns of a tool in their stored form, in the statements' order. */
function toolDefinition(
  t: ToolChanges,
): [string, string, string, string, string, string, string | null, number] {
  return [
    t.name,
    t.description,
    JSON.stringify(t.parameters),
    t.method,
    t.url,
    JSON.stringify(t.headers),
    t.body === null || t.body === undefined ? null : JSON.stringify(t.body),
    t.isPublic ? 1 : 0,
  ];
}

function toolRecord(row: ToolRow): ToolRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    parameters: JSON.parse(row.parameters) as Record<string, unknown>,
    method: row.method,
    url: row.url,
    headers: JSON.parse(row.headers) as StoredHeader[],
    body: row.body === null ? null : (JSON.parse(row.body) as unknown),
    isPublic: Boolean(row.public),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface ToolSourceRow {
  id: number;
  project_id: number;
  kind: string;
  name: string;
  url: string;
  headers: string;
  public: number;
  created_at: string;
  updated_at: string;
}

const TOOL_SOURCE_COLUMNS = 'id, project_id, kind, name, url, headers, public, created_at, updated_at';

/** {@link ToolSourceRepository} on one SQLite database, with statements prepared once. */
export class SqliteToolSourceRepository implements ToolSourceRepository {
  private readonly stmt: ReturnType<SqliteToolSourceRepository['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      list: db.prepare<[number], ToolSourceRow>(
        `SELECT ${TOOL_SOURCE_COLUMNS} FROM tool_sources WHERE project_id = ? ORDER BY id`,
      ),
      listPublic: db.prepare<[number], ToolSourceRow>(
        `SELECT ${TOOL_SOURCE_COLUMNS} FROM tool_sources WHERE project_id = ? AND public = 1 ORDER BY id`,
      ),
      find: db.prepare<[number], ToolSourceRow>(
        `SELECT ${TOOL_SOURCE_COLUMNS} FROM tool_sources WHERE id = ?`,
      ),
      named: db.prepare<[number, string], { found: number }>(
        'SELECT 1 AS found FROM tool_sources WHERE project_id = ? AND name = ?',
      ),
      insert: db.prepare<[number, string, string, string, string, number, string, string], ToolSourceRow>(
        `INSERT INTO tool_sources (project_id, kind, name, url, headers, public, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${TOOL_SOURCE_COLUMNS}`,
      ),
      delete: db.prepare<[number]>('DELETE FROM tool_sources WHERE id = ?'),
    };
  }

  list(projectId: number, options: ListToolsOptions = {}): ToolSourceRecord[] {
    return (options.publicOnly ? this.stmt.listPublic : this.stmt.list).all(projectId).map(toolSourceRecord);
  }

  find(id: number): ToolSourceRecord | undefined {
    const row = this.stmt.find.get(id);
    return row && toolSourceRecord(row);
  }

  nameTaken(projectId: number, name: string): boolean {
    return this.stmt.named.get(projectId, name) !== undefined;
  }

  create(s: Omit<ToolSourceRecord, 'id'>): ToolSourceRecord {
    return toolSourceRecord(
      this.stmt.insert.get(
        s.projectId,
        s.kind,
        s.name,
        s.url,
        JSON.stringify(s.headers),
        s.isPublic ? 1 : 0,
        s.createdAt,
        s.updatedAt,
      )!,
    );
  }

  delete(id: number): void {
    this.stmt.delete.run(id);
  }
}

function toolSourceRecord(row: ToolSourceRow): ToolSourceRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    name: row.name,
    url: row.url,
    headers: JSON.parse(row.headers) as StoredHeader[],
    isPublic: Boolean(row.public),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

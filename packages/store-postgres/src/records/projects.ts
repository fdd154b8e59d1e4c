import type { Pool } from 'pg';
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
  export_enabled: boolean;
  system_prompt: string | null;
  allowed_origins: string | null;
  created_at: string;
}

const PROJECT_COLUMNS = 'id, name, export_enabled, system_prompt, allowed_origins, created_at';

/**
 * {@link ProjectRepository} on the PostgreSQL records tables (migration 2): the same rows as
 * SqliteProjectRepository writes, origins as a JSON text array. The origin checks a widget
 * request makes are named statements, parsed and planned once per connection.
 */
export class PostgresProjectRepository implements ProjectRepository {
  constructor(private readonly pool: Pool) {}

  async create(project: Omit<ProjectRecord, 'id'>): Promise<ProjectRecord> {
    const { rows } = await this.pool.query<ProjectRow>(
      `INSERT INTO projects (name, export_enabled, system_prompt, allowed_origins, created_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${PROJECT_COLUMNS}`,
      [
        project.name,
        project.exportEnabled,
        project.systemPrompt,
        JSON.stringify(project.allowedOrigins),
        project.createdAt,
      ],
    );
    return projectRecord(rows[0]!);
  }

  async list(): Promise<ProjectRecord[]> {
    const { rows } = await this.pool.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY id`);
    return rows.map(projectRecord);
  }

  async find(id: number): Promise<ProjectRecord | undefined> {
    const { rows } = await this.pool.query<ProjectRow>({
      name: 'kbqa_projects_find',
      text: `SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`,
      values: [id],
    });
    return rows[0] && projectRecord(rows[0]);
  }

  async update(id: number, changes: ProjectChanges): Promise<ProjectRecord | undefined> {
    const params: unknown[] = [];
    const sets: string[] = [];
    const set = (column: string, value: unknown) => sets.push(`${column} = $${params.push(value)}`);
    if (changes.name !== undefined) set('name', changes.name);
    if (changes.exportEnabled !== undefined) set('export_enabled', changes.exportEnabled);
    if (changes.systemPrompt !== undefined) set('system_prompt', changes.systemPrompt);
    if (changes.allowedOrigins !== undefined) set('allowed_origins', JSON.stringify(changes.allowedOrigins));
    if (sets.length === 0) return this.find(id);
    const { rows } = await this.pool.query<ProjectRow>(
      `UPDATE projects SET ${sets.join(', ')} WHERE id = $${params.push(id)} RETURNING ${PROJECT_COLUMNS}`,
      params,
    );
    return rows[0] && projectRecord(rows[0]);
  }

  async allowedOrigins(projectId: number): Promise<string[] | undefined> {
    const { rows } = await this.pool.query<{ allowed_origins: string | null }>({
      name: 'kbqa_projects_origins',
      text: 'SELECT allowed_origins FROM projects WHERE id = $1',
      values: [projectId],
    });
    return rows[0] && parseOrigins(rows[0].allowed_origins);
  }

  /**
   * The lists are parsed here rather than with the server's JSON functions, so a hand-edited row
   * that is not JSON reads as no origins instead of failing the query; projects are few, and
   * browsers cache preflights.
   */
  async anyProjectAllows(origins: readonly string[]): Promise<boolean> {
    const { rows } = await this.pool.query<{ allowed_origins: string | null }>({
      name: 'kbqa_projects_listed_origins',
      text: "SELECT allowed_origins FROM projects WHERE allowed_origins <> '[]'",
    });
    return rows.some((r) => parseOrigins(r.allowed_origins).some((o) => origins.includes(o)));
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

/** {@link KeyRepository} on the PostgreSQL records tables: the rows SqliteKeyRepository writes. */
export class PostgresKeyRepository implements KeyRepository {
  constructor(private readonly pool: Pool) {}

  async create(key: NewKey): Promise<KeyRecord> {
    const { rows } = await this.pool.query<KeyRow>(
      `INSERT INTO api_keys (project_id, kind, prefix, key_hash, created_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${KEY_COLUMNS}`,
      [key.projectId, key.kind, key.prefix, key.keyHash, key.createdAt],
    );
    return keyRecord(rows[0]!);
  }

  async listByProject(projectId: number): Promise<KeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY id`,
      [projectId],
    );
    return rows.map(keyRecord);
  }

  async find(id: number): Promise<KeyRecord | undefined> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] && keyRecord(rows[0]);
  }

  async revoke(id: number, at: string): Promise<KeyRecord | undefined> {
    await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
      at,
      id,
    ]);
    return this.find(id);
  }
}

function projectRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    exportEnabled: row.export_enabled,
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

/**
 * {@link DashboardSessionRepository} on the PostgreSQL records tables. The lookup runs on every
 * dashboard request, so it is a named statement.
 */
export class PostgresDashboardSessionRepository implements DashboardSessionRepository {
  constructor(private readonly pool: Pool) {}

  async create(s: DashboardSessionRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO dashboard_sessions (id_hash, csrf_token, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.idHash, s.csrfToken, s.tokenHash, s.createdAt, s.expiresAt],
    );
  }

  async find(idHash: string): Promise<DashboardSessionRecord | undefined> {
    const { rows } = await this.pool.query<SessionRow>({
      name: 'kbqa_dashboard_session',
      text: 'SELECT id_hash, csrf_token, token_hash, created_at, expires_at FROM dashboard_sessions WHERE id_hash = $1',
      values: [idHash],
    });
    const row = rows[0];
    return (
      row && {
        idHash: row.id_hash,
        csrfToken: row.csrf_token,
        tokenHash: row.token_hash,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async delete(idHash: string): Promise<void> {
    await this.pool.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteExpired(now: string): Promise<void> {
    await this.pool.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]);
  }
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
  public: boolean;
  created_at: string;
  updated_at: string;
}

const TOOL_COLUMNS =
  'id, project_id, name, description, parameters, method, url, headers, body, public, created_at, updated_at';

/**
 * {@link ToolRepository} on the PostgreSQL records tables: JSON columns as text, the rows
 * SqliteToolRepository writes. A chat lists its project's tools, so that listing is named.
 */
export class PostgresToolRepository implements ToolRepository {
  constructor(private readonly pool: Pool) {}

  async list(projectId: number, options: ListToolsOptions = {}): Promise<ToolRecord[]> {
    const { rows } = await this.pool.query<ToolRow>({
      name: 'kbqa_tools_list',
      text: `SELECT ${TOOL_COLUMNS} FROM tools WHERE project_id = $1 AND (public OR NOT $2) ORDER BY id`,
      values: [projectId, options.publicOnly ?? false],
    });
    return rows.map(toolRecord);
  }

  async find(id: number): Promise<ToolRecord | undefined> {
    const { rows } = await this.pool.query<ToolRow>(`SELECT ${TOOL_COLUMNS} FROM tools WHERE id = $1`, [id]);
    return rows[0] && toolRecord(rows[0]);
  }

  async count(projectId: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM tools WHERE project_id = $1',
      [projectId],
    );
    return rows[0]!.n;
  }

  async nameTaken(projectId: number, name: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM tools WHERE project_id = $1 AND name = $2', [
      projectId,
      name,
    ]);
    return rows.length > 0;
  }

  async create(tool: Omit<ToolRecord, 'id'>): Promise<ToolRecord> {
    const { rows } = await this.pool.query<ToolRow>(
      `INSERT INTO tools (name, description, parameters, method, url, headers, body, public, project_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${TOOL_COLUMNS}`,
      [...toolDefinition(tool), tool.projectId, tool.createdAt, tool.updatedAt],
    );
    return toolRecord(rows[0]!);
  }

  async update(id: number, changes: ToolChanges): Promise<ToolRecord | undefined> {
    const { rows } = await this.pool.query<ToolRow>(
      `UPDATE tools SET name = $1, description = $2, parameters = $3, method = $4, url = $5, headers = $6,
         body = $7, public = $8, updated_at = $9
       WHERE id = $10 RETURNING ${TOOL_COLUMNS}`,
      [...toolDefinition(changes), changes.updatedAt, id],
    );
    return rows[0] && toolRecord(rows[0]);
  }

  async delete(id: number): Promise<void> {
    await this.pool.query('DELETE FROM tools WHERE id = $1', [id]);
  }
}

/** The definition columns of a tool in their stored form, in the statements' order. */
function toolDefinition(
  t: ToolChanges,
): [string, string, string, string, string, string, string | null, boolean] {
  return [
    t.name,
    t.description,
    JSON.stringify(t.parameters),
    t.method,
    t.url,
    JSON.stringify(t.headers),
    t.body === null || t.body === undefined ? null : JSON.stringify(t.body),
    t.isPublic,
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
    isPublic: row.public,
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
  public: boolean;
  created_at: string;
  updated_at: string;
}

const TOOL_SOURCE_COLUMNS = 'id, project_id, kind, name, url, headers, public, created_at, updated_at';

/** {@link ToolSourceRepository} on the PostgreSQL records tables; the chat's listing is named. */
export class PostgresToolSourceRepository implements ToolSourceRepository {
  constructor(private readonly pool: Pool) {}

  async list(projectId: number, options: ListToolsOptions = {}): Promise<ToolSourceRecord[]> {
    const { rows } = await this.pool.query<ToolSourceRow>({
      name: 'kbqa_tool_sources_list',
      text: `SELECT ${TOOL_SOURCE_COLUMNS} FROM tool_sources WHERE project_id = $1 AND (public OR NOT $2) ORDER BY id`,
      values: [projectId, options.publicOnly ?? false],
    });
    return rows.map(toolSourceRecord);
  }

  async find(id: number): Promise<ToolSourceRecord | undefined> {
    const { rows } = await this.pool.query<ToolSourceRow>(
      `SELECT ${TOOL_SOURCE_COLUMNS} FROM tool_sources WHERE id = $1`,
      [id],
    );
    return rows[0] && toolSourceRecord(rows[0]);
  }

  async nameTaken(projectId: number, name: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM tool_sources WHERE project_id = $1 AND name = $2', [
      projectId,
      name,
    ]);
    return rows.length > 0;
  }

  async create(s: Omit<ToolSourceRecord, 'id'>): Promise<ToolSourceRecord> {
    const { rows } = await this.pool.query<ToolSourceRow>(
      `INSERT INTO tool_sources (project_id, kind, name, url, headers, public, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${TOOL_SOURCE_COLUMNS}`,
      [s.projectId, s.kind, s.name, s.url, JSON.stringify(s.headers), s.isPublic, s.createdAt, s.updatedAt],
    );
    return toolSourceRecord(rows[0]!);
  }

  async delete(id: number): Promise<void> {
    await this.pool.query('DELETE FROM tool_sources WHERE id = $1', [id]);
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
    isPublic: row.public,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

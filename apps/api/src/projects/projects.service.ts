import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { KbqaError, type RequestRecords, nowTimestamp } from '@kbqa/core';
import { ApiKeyEntity, type KeyKind, ProjectEntity, rawDatabase } from '@kbqa/store-sqlite';
import type { DataSource, Repository } from 'typeorm';
import { DATA_SOURCE, REQUEST_RECORDS } from '../database/database.module';
import { ANY_ORIGIN, normalizeOrigins, originListed } from './origins';
import { KeyUsageThrottle } from './key-usage.throttle';

/** The project and key kind a request authenticated as. */
export interface AuthenticatedKey {
  keyId: number;
  projectId: number;
  kind: KeyKind;
}

export interface CreatedKey {
  id: number;
  key: string;
  kind: KeyKind;
  project_id: number;
}

const KEY_PREFIX: Record<KeyKind, string> = { server: 'kbqa_sk_', anon: 'kbqa_pk_' };
const KEY_SHAPE = /^kbqa_(sk|pk)_[A-Za-z0-9_-]{20,100}$/;

function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

@Injectable()
export class ProjectsService {
  private readonly projects: Repository<ProjectEntity>;
  private readonly keys: Repository<ApiKeyEntity>;
  /**
   * The origin checks run on every cross-origin widget request. On SQLite a prepared statement on
   * the connection costs microseconds and, unlike an in-process cache, sees at once what the CLI
   * (another process on the same file) or another API process changed; on PostgreSQL the same
   * reads are one query each.
   */
  private readonly origins: OriginRows;
  private readonly usage = new KeyUsageThrottle();
  constructor(
    @Inject(DATA_SOURCE) dataSource: DataSource,
    /** Every request authenticates: the key lookup is on the store's hot path, not the ORM. */
    @Inject(REQUEST_RECORDS) private readonly records: RequestRecords,
  ) {
    this.projects = dataSource.getRepository(ProjectEntity);
    this.keys = dataSource.getRepository(ApiKeyEntity);
    this.origins =
      dataSource.options.type === 'better-sqlite3'
        ? sqliteOriginRows(dataSource)
        : queryOriginRows(dataSource);
  }

  async createProject(name: string): Promise<ProjectEntity> {
    if (!name.trim()) throw new KbqaError('BAD_REQUEST', 'a project needs a name');
    return this.projects.save(
      this.projects.create({
        name: name.trim(),
        exportEnabled: false,
        allowedOrigins: [],
        createdAt: nowTimestamp(),
      }),
    );
  }

  listProjects(): Promise<ProjectEntity[]> {
    return this.projects.find({ order: { id: 'ASC' } });
  }

  async getProject(id: number): Promise<ProjectEntity> {
    const project = await this.projects.findOneBy({ id });
    if (!project) throw new KbqaError('NOT_FOUND', `project ${id} does not exist`);
    return project;
  }

  /** Renames a project (trimmed; a blank name is a BAD_REQUEST, as at creation). */
  async renameProject(id: number, name: string): Promise<ProjectEntity> {
    if (!name.trim()) throw new KbqaError('BAD_REQUEST', 'a project needs a name');
    const project = await this.getProject(id);
    project.name = name.trim();
    return this.projects.save(project);
  }

  async setExport(id: number, enabled: boolean): Promise<ProjectEntity> {
    const project = await this.getProject(id);
    project.exportEnabled = enabled;
    return this.projects.save(project);
  }

  async setSystemPrompt(id: number, prompt: string | null): Promise<ProjectEntity> {
    const project = await this.getProject(id);
    project.systemPrompt = prompt;
    return this.projects.save(project);
  }

  /**
   * Replaces the origins whose pages may use the project's anon key (the widget); an empty list
   * allows none. BAD_REQUEST naming the first entry that is not an exact origin or `*` alone.
   */
  async setAllowedOrigins(id: number, origins: readonly string[]): Promise<ProjectEntity> {
    const normalized = normalizeOrigins(origins);
    const project = await this.getProject(id);
    project.allowedOrigins = normalized;
    return this.projects.save(project);
  }

  /** Whether the project lists `origin` (or `*`) for its widget. */
  async originAllowed(projectId: number, origin: string): Promise<boolean> {
    const stored = await this.origins.ofProject(projectId);
    return stored !== undefined && originListed(parseStoredOrigins(stored), origin);
  }

  /**
   * Whether any project lists `origin` (or `*`): all a CORS preflight can ask, since it carries no
   * body and so no key.
   */
  async originListedByAnyProject(origin: string): Promise<boolean> {
    return this.origins.listedAnywhere(origin);
  }

  /** Creates a key: 192 random bits with a readable prefix, returned once, stored as a hash. */
  async createKey(projectId: number, kind: KeyKind): Promise<CreatedKey> {
    await this.getProject(projectId);
    const key = KEY_PREFIX[kind] + randomBytes(24).toString('base64url');
    const row = await this.keys.save(
      this.keys.create({
        projectId,
        kind,
        prefix: key.slice(0, KEY_PREFIX[kind].length + 6),
        keyHash: hashKey(key).toString('hex'),
        createdAt: nowTimestamp(),
        revokedAt: null,
      }),
    );
    return { id: row.id, key, kind, project_id: projectId };
  }

  /** A project's keys, revoked ones included; NOT_FOUND for an unknown project (not an empty list). */
  async listKeys(projectId: number): Promise<ApiKeyEntity[]> {
    await this.getProject(projectId);
    return this.keys.find({ where: { projectId }, order: { id: 'ASC' } });
  }

  async revokeKey(keyId: number): Promise<ApiKeyEntity> {
    const key = await this.keys.findOneBy({ id: keyId });
    if (!key) throw new KbqaError('NOT_FOUND', `key ${keyId} does not exist`);
    if (!key.revokedAt) {
      key.revokedAt = nowTimestamp();
      await this.keys.save(key);
    }
    return key;
  }

  /**
   * Resolves a presented key. The lookup goes through the hash index; the final comparison of
   * hashes is constant-time. Malformed, unknown and revoked keys give the same answer.
   */
  async authenticate(presented: string): Promise<AuthenticatedKey | undefined> {
    if (!KEY_SHAPE.test(presented)) return undefined;
    const digest = hashKey(presented);
    const row = await this.records.findActiveKey(digest.toString('hex'));
    if (!row) return undefined;
    const stored = Buffer.from(row.keyHash, 'hex');
    if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) return undefined;
    await this.recordUse(row.id);
    return { keyId: row.id, projectId: row.projectId, kind: row.kind };
  }

  /**
   * Writes the key's `last_used_at`, throttled (see KeyUsageThrottle). Best effort: a request
   * with a valid key is not refused because this bookkeeping could not be written (a full disk,
   * a lock held past the busy timeout).
   */
  private async recordUse(keyId: number): Promise<void> {
    if (!this.usage.due(keyId, Date.now())) return;
    try {
      await this.records.touchKey(keyId, nowTimestamp());
    } catch {
      // Left for the next use after the interval; the listing is then at most a minute older.
    }
  }
}

/** The stored `allowed_origins` of projects, read for the widget's origin checks. */
interface OriginRows {
  /** The project's stored JSON array; undefined when there is no such project. */
  ofProject(projectId: number): string | undefined | Promise<string | undefined>;
  /** Whether any project lists `origin` or `*`. */
  listedAnywhere(origin: string): boolean | Promise<boolean>;
}

function sqliteOriginRows(dataSource: DataSource): OriginRows {
  const db = rawDatabase(dataSource);
  const ofProject = db.prepare<[number], { allowed_origins: string }>(
    'SELECT allowed_origins FROM projects WHERE id = ?',
  );
  const listedAnywhere = db.prepare<[string, string], { found: number }>(
    `SELECT 1 AS found FROM projects, json_each(projects.allowed_origins)
     WHERE json_valid(projects.allowed_origins) AND json_each.value IN (?, ?) LIMIT 1`,
  );
  return {
    ofProject: (projectId) => ofProject.get(projectId)?.allowed_origins,
    listedAnywhere: (origin) => listedAnywhere.get(origin, ANY_ORIGIN) !== undefined,
  };
}

/**
 * The same reads through the data source (PostgreSQL). The lists are parsed here rather than
 * with the server's JSON functions, so a hand-edited row that is not JSON reads as no origins
 * instead of failing the query; projects are few, and browsers cache preflights.
 */
function queryOriginRows(dataSource: DataSource): OriginRows {
  return {
    ofProject: async (projectId) => {
      const rows = await dataSource.query<Array<{ allowed_origins: string }>>(
        'SELECT allowed_origins FROM projects WHERE id = $1',
        [projectId],
      );
      return rows[0]?.allowed_origins;
    },
    listedAnywhere: async (origin) => {
      const rows = await dataSource.query<Array<{ allowed_origins: string }>>(
        "SELECT allowed_origins FROM projects WHERE allowed_origins <> '[]'",
      );
      return rows.some((r) => originListed(parseStoredOrigins(r.allowed_origins), origin));
    },
  };
}

/** A stored origin list; anything but a JSON array of strings reads as none. */
function parseStoredOrigins(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

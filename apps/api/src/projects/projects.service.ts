import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  KbqaError,
  type KeyKind,
  type KeyRecord,
  type KeyRepository,
  type ProjectChanges,
  type ProjectRecord,
  type ProjectRepository,
  type RequestRecords,
  nowTimestamp,
} from '@kbqa/core';
import { REQUEST_RECORDS } from '../database/database.module';
import { KEY_REPOSITORY, PROJECT_REPOSITORY } from '../database/projects.providers';
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
  private readonly usage = new KeyUsageThrottle();
  constructor(
    /**
     * The origin checks run on every cross-origin widget request: the repository reads the row
     * each time (a prepared statement on SQLite), so a change by the CLI or another API process
     * counts at once.
     */
    @Inject(PROJECT_REPOSITORY) private readonly projects: ProjectRepository,
    @Inject(KEY_REPOSITORY) private readonly keys: KeyRepository,
    /** Every request authenticates: the key lookup is on the store's hot path. */
    @Inject(REQUEST_RECORDS) private readonly records: RequestRecords,
  ) {}

  async createProject(name: string): Promise<ProjectRecord> {
    if (!name.trim()) throw new KbqaError('BAD_REQUEST', 'a project needs a name');
    return this.projects.create({
      name: name.trim(),
      exportEnabled: false,
      systemPrompt: null,
      allowedOrigins: [],
      createdAt: nowTimestamp(),
    });
  }

  async listProjects(): Promise<ProjectRecord[]> {
    return this.projects.list();
  }

  async getProject(id: number): Promise<ProjectRecord> {
    const project = await this.projects.find(id);
    if (!project) throw new KbqaError('NOT_FOUND', `project ${id} does not exist`);
    return project;
  }

  /** Renames a project (trimmed; a blank name is a BAD_REQUEST, as at creation). */
  async renameProject(id: number, name: string): Promise<ProjectRecord> {
    if (!name.trim()) throw new KbqaError('BAD_REQUEST', 'a project needs a name');
    return this.change(id, { name: name.trim() });
  }

  async setExport(id: number, enabled: boolean): Promise<ProjectRecord> {
    return this.change(id, { exportEnabled: enabled });
  }

  async setSystemPrompt(id: number, prompt: string | null): Promise<ProjectRecord> {
    return this.change(id, { systemPrompt: prompt });
  }

  /**
   * Replaces the origins whose pages may use the project's anon key (the widget); an empty list
   * allows none. BAD_REQUEST naming the first entry that is not an exact origin or `*` alone.
   */
  async setAllowedOrigins(id: number, origins: readonly string[]): Promise<ProjectRecord> {
    return this.change(id, { allowedOrigins: normalizeOrigins(origins) });
  }

  private async change(id: number, changes: ProjectChanges): Promise<ProjectRecord> {
    const project = await this.projects.update(id, changes);
    if (!project) throw new KbqaError('NOT_FOUND', `project ${id} does not exist`);
    return project;
  }

  /** Whether the project lists `origin` (or `*`) for its widget. */
  async originAllowed(projectId: number, origin: string): Promise<boolean> {
    const allowed = await this.projects.allowedOrigins(projectId);
    return allowed !== undefined && originListed(allowed, origin);
  }

  /**
   * Whether any project lists `origin` (or `*`): all a CORS preflight can ask, since it carries no
   * body and so no key.
   */
  async originListedByAnyProject(origin: string): Promise<boolean> {
    return this.projects.anyProjectAllows([origin, ANY_ORIGIN]);
  }

  /** Creates a key: 192 random bits with a readable prefix, returned once, stored as a hash. */
  async createKey(projectId: number, kind: KeyKind): Promise<CreatedKey> {
    await this.getProject(projectId);
    const key = KEY_PREFIX[kind] + randomBytes(24).toString('base64url');
    const row = await this.keys.create({
      projectId,
      kind,
      prefix: key.slice(0, KEY_PREFIX[kind].length + 6),
      keyHash: hashKey(key).toString('hex'),
      createdAt: nowTimestamp(),
    });
    return { id: row.id, key, kind, project_id: projectId };
  }

  /** A project's keys, revoked ones included; NOT_FOUND for an unknown project (not an empty list). */
  async listKeys(projectId: number): Promise<KeyRecord[]> {
    await this.getProject(projectId);
    return this.keys.listByProject(projectId);
  }

  /** Revokes the key; a key already revoked keeps its first revocation time. */
  async revokeKey(keyId: number): Promise<KeyRecord> {
    const key = await this.keys.revoke(keyId, nowTimestamp());
    if (!key) throw new KbqaError('NOT_FOUND', `key ${keyId} does not exist`);
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

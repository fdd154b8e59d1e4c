import type { KeyKind, MaybePromise } from '../store';

/** A project as stored: its settings for chats, the export and the widget. */
export interface ProjectRecord {
  id: number;
  name: string;
  /** getMessagesData is answered only when the operator switched this on. */
  exportEnabled: boolean;
  systemPrompt: string | null;
  /**
   * Origins whose pages may call the anon-key endpoints (the widget), exact or `*`, as the service
   * validated them. A stored list that is not a JSON array of strings reads as none, never as `*`.
   */
  allowedOrigins: string[];
  /** A stored timestamp (nowTimestamp). */
  createdAt: string;
}

/** The settings of a project that change after it is created; absent fields stay as they are. */
export type ProjectChanges = Partial<
  Pick<ProjectRecord, 'name' | 'exportEnabled' | 'systemPrompt' | 'allowedOrigins'>
>;

/** Projects. The origin reads are on the widget's hot path (every cross-origin request). */
export interface ProjectRepository {
  create(project: Omit<ProjectRecord, 'id'>): MaybePromise<ProjectRecord>;
  /** Every project, by id. */
  list(): MaybePromise<ProjectRecord[]>;
  find(id: number): MaybePromise<ProjectRecord | undefined>;
  /** Applies the changes; the project as stored after, undefined when there is no such project. */
  update(id: number, changes: ProjectChanges): MaybePromise<ProjectRecord | undefined>;
  /**
   * The project's allowed origins, undefined when there is no such project. Reads what another
   * process (the CLI, another API process) wrote the moment it is committed: no cache.
   */
  allowedOrigins(projectId: number): MaybePromise<string[] | undefined>;
  /** Whether any project's allowed origins hold one of `origins` (exactly). */
  anyProjectAllows(origins: readonly string[]): MaybePromise<boolean>;
}

/** An API key as listed: never the key, nor its hash. */
export interface KeyRecord {
  id: number;
  projectId: number;
  kind: KeyKind;
  /** The readable start of the key (`kbqa_sk_ab12…`), to tell keys apart in listings. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** When the key last authenticated (RequestRecords.touchKey); null if never. */
  lastUsedAt: string | null;
}

/** A key to store: its sha256 (hex), never the key itself. */
export interface NewKey {
  projectId: number;
  kind: KeyKind;
  prefix: string;
  keyHash: string;
  createdAt: string;
}

/**
 * API keys as the operator manages them. The lookup a request authenticates with is
 * RequestRecords.findActiveKey, on the hot path.
 */
export interface KeyRepository {
  create(key: NewKey): MaybePromise<KeyRecord>;
  /** The project's keys, revoked ones included, by id. */
  listByProject(projectId: number): MaybePromise<KeyRecord[]>;
  find(id: number): MaybePromise<KeyRecord | undefined>;
  /**
   * Revokes the key at `at` unless it already is (the first revocation time stays); the key as
   * stored after, undefined when there is no such key.
   */
  revoke(id: number, at: string): MaybePromise<KeyRecord | undefined>;
}

/**
 * A dashboard login as stored. Times are ISO 8601 (`toISOString`), compared as strings; only
 * hashes of the cookie value and of the operator token it was opened with are kept.
 */
export interface DashboardSessionRecord {
  /** sha256 (hex) of the cookie value. */
  idHash: string;
  csrfToken: string;
  /** sha256 (hex) of the operator token the session was opened with. */
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
}

/** Dashboard logins, in the database so that every API process knows them. */
export interface DashboardSessionRepository {
  create(session: DashboardSessionRecord): MaybePromise<void>;
  find(idHash: string): MaybePromise<DashboardSessionRecord | undefined>;
  delete(idHash: string): MaybePromise<void>;
  /** Deletes the sessions that expire at or before `now` (ISO 8601). */
  deleteExpired(now: string): MaybePromise<void>;
}

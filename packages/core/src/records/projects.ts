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

/** One stored header of a tool or a tool source; `value` is sealed, a secret the service opens. */
export interface StoredHeader {
  name: string;
  value: string;
}

/** An HTTP tool of a project, as the operator defined it (validated before it is stored). */
export interface ToolRecord {
  id: number;
  projectId: number;
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  method: string;
  /** URL template with `{param}` placeholders. */
  url: string;
  headers: StoredHeader[];
  /** JSON body template; null for none. */
  body: unknown;
  /** Whether anon-key chats (the widget) may use it. */
  isPublic: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A tool's definition as replaced by an update: everything but its id, project and creation. */
export type ToolChanges = Omit<ToolRecord, 'id' | 'projectId' | 'createdAt'>;

/** Which of a project's tools or tool sources to list: all, or those anon-key chats may use. */
export interface ListToolsOptions {
  publicOnly?: boolean;
}

/** HTTP tools. Names are unique per project: a duplicate is refused by the store. */
export interface ToolRepository {
  /** The project's tools by id. A chat lists them every time, so this is on the chat path. */
  list(projectId: number, options?: ListToolsOptions): MaybePromise<ToolRecord[]>;
  find(id: number): MaybePromise<ToolRecord | undefined>;
  count(projectId: number): MaybePromise<number>;
  /** Whether the project has a tool of this name. */
  nameTaken(projectId: number, name: string): MaybePromise<boolean>;
  create(tool: Omit<ToolRecord, 'id'>): MaybePromise<ToolRecord>;
  /** The tool as stored after; undefined when there is no such tool. */
  update(id: number, changes: ToolChanges): MaybePromise<ToolRecord | undefined>;
  delete(id: number): MaybePromise<void>;
}

/** A server whose tools a project's chats may call (an MCP server for kind `mcp`). */
export interface ToolSourceRecord {
  id: number;
  projectId: number;
  kind: string;
  /** Unique per project; prefixes the source's tools when their names clash. */
  name: string;
  url: string;
  /** Sent with every request to the server; the values are sealed secrets. */
  headers: StoredHeader[];
  isPublic: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Tool sources. Names are unique per project: a duplicate is refused by the store. */
export interface ToolSourceRepository {
  /** The project's sources by id; on the chat path like ToolRepository.list. */
  list(projectId: number, options?: ListToolsOptions): MaybePromise<ToolSourceRecord[]>;
  find(id: number): MaybePromise<ToolSourceRecord | undefined>;
  nameTaken(projectId: number, name: string): MaybePromise<boolean>;
  create(source: Omit<ToolSourceRecord, 'id'>): MaybePromise<ToolSourceRecord>;
  delete(id: number): MaybePromise<void>;
}

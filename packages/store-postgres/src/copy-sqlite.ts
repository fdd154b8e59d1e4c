import type { Pool, PoolClient } from 'pg';
import type { Chunk } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';
import { insertChunksWithIds } from './chunk-store';
import { inTransaction, migrate } from './migrations';
import { writeCopiedVectors } from './vector-store';

/**
 * What the copy reads of the SQLite database: better-sqlite3's `prepare(…).all()`, typed
 * structurally so this package does not depend on better-sqlite3.
 */
export interface SqliteReader {
  prepare(sql: string): { all(...params: unknown[]): unknown[]; run(...params: unknown[]): unknown };
}

/** One table copied: its name and the rows written (for vectors, the vectors). */
export interface CopiedTable {
  table: string;
  rows: number;
}

export interface CopyResult {
  tables: CopiedTable[];
  /**
   * The vectors: copied with their embedder; `none` when the SQLite store holds none;
   * `no-pgvector` when it does but the target has no pgvector (the copy is lexical-only there).
   */
  vectors:
    | { status: 'copied'; embedderId: string; dimension: number; rows: number }
    | { status: 'none' }
    | { status: 'no-pgvector'; embedderId: string; rows: number };
}

export interface CopyOptions {
  /** Called after each table, so a long copy can say where it is. */
  onProgress?: (table: CopiedTable) => void;
  /** Rows per statement; small values let tests cross batch boundaries on little data. */
  batchSize?: number;
}

/**
 * The API's record tables, parents before children (foreign keys). Their columns are the same
 * on both stores (migration 2 recreates SQLite's after all its migrations), so each is copied as
 * the columns both have, by name. Task leases are not copied: they belong to processes of the old
 * deployment, so a task copied as running has none and the new deployment runs it again.
 */
const RECORD_TABLES = [
  'projects',
  'api_keys',
  'indexes',
  'ingestion_tasks',
  'conversations',
  'messages',
  'taught_answers',
  'tools',
  'tool_sources',
  'dashboard_sessions',
  'chat_integrations',
  'integration_threads',
] as const;

/** Chunk store tables copied the same way (chunks are not: their tsvector and postings are computed). */
const PLAIN_STORE_TABLES = ['sources', 'documents'] as const;

/** Tables whose `id` is an identity column, so its sequence must move past the copied ids. */
const IDENTITY_TABLES = [
  'projects',
  'api_keys',
  'indexes',
  'taught_answers',
  'tools',
  'tool_sources',
  'sources',
  'documents',
  'chunks',
] as const;

const BATCH_SIZE = 500;

interface ChunkRow {
  id: number;
  project_id: number;
  source_id: number;
  document_id: number;
  ordinal: number;
  kind: Chunk['kind'];
  title: string;
  heading_path: string;
  link: string;
  content: string;
  content_hash: string;
}

/**
 * Copies a SQLite deployment (records, sources, documents, chunks and vectors) into an empty
 * PostgreSQL database, keeping every id, so API keys, conversation ids and task ids keep working.
 * The target is migrated first (under the advisory lock, as the API migrates it); then everything
 * is written in one transaction, so a copy that fails leaves the target as empty as it found it.
 * Chunks get their tsvector and postings as the store computes them on insert; vectors are copied
 * as stored, never recomputed, with the embedder that made them, when the target has pgvector.
 * A target that already holds projects or sources is refused (BAD_REQUEST): ids would collide.
 */
export async function copySqliteToPostgres(
  sqlite: SqliteReader,
  pool: Pool,
  options: CopyOptions = {},
): Promise<CopyResult> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const { vectorsAvailable } = await migrate(pool);
  const client = await pool.connect();
  let reading = false;
  try {
    // One read transaction on SQLite: a snapshot, so a service still writing cannot tear the copy.
    sqlite.prepare('BEGIN DEFERRED').run();
    reading = true;
    return await inTransaction(client, async () => {
      // Stored timestamps are UTC without an offset; the chunk store's timestamptz columns read them so.
      await client.query("SET LOCAL TimeZone = 'UTC'");
      await refuseUnlessEmpty(client);
      const tables: CopiedTable[] = [];
      const done = (table: CopiedTable) => {
        tables.push(table);
        options.onProgress?.(table);
      };
      for (const table of [...RECORD_TABLES, ...PLAIN_STORE_TABLES]) {
        done({ table, rows: await copyTable(sqlite, client, table, batchSize) });
      }
      done({ table: 'chunks', rows: await copyChunks(sqlite, client, batchSize) });
      const vectors = await copyVectors(sqlite, client, vectorsAvailable, batchSize);
      if (vectors.status === 'copied') done({ table: 'chunk_vectors', rows: vectors.rows });
      for (const table of IDENTITY_TABLES) {
        // The next id after the largest copied one, so new rows do not collide with copied ones.
        await client.query(
          `SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 0) + 1, false) FROM ${table}`,
        );
      }
      return { tables, vectors };
    });
  } finally {
    if (reading) sqlite.prepare('COMMIT').run();
    client.release();
  }
}

async function refuseUnlessEmpty(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ projects: number; sources: number }>(
    `SELECT (SELECT count(*)::int FROM projects) AS projects, (SELECT count(*)::int FROM sources) AS sources`,
  );
  const found = rows[0];
  if (found && (found.projects > 0 || found.sources > 0)) {
    throw new KbqaError(
      'BAD_REQUEST',
      `The target database is not empty (${found.projects} project(s), ${found.sources} source(s)); ` +
        'copy into a new, empty database: copied ids would collide with the rows there',
    );
  }
}

/** Column names and PostgreSQL types of a table in the target. */
async function targetColumns(client: PoolClient, table: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1`,
    [table],
  );
  return new Map(rows.map((r) => [r.column_name, r.data_type]));
}

/**
 * Copies the columns both stores have, in batches by rowid order, through
 * json_populate_recordset (one statement per batch, PostgreSQL converting each value to its
 * column's type). SQLite's 0/1 become booleans, JSON held as text becomes jsonb.
 */
async function copyTable(
  sqlite: SqliteReader,
  client: PoolClient,
  table: string,
  batchSize: number,
): Promise<number> {
  const target = await targetColumns(client, table);
  const sourceColumns = (sqlite.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
  const columns = sourceColumns.filter((c) => target.has(c));
  const list = columns.map((c) => `"${c}"`).join(', ');
  const read = sqlite.prepare(
    `SELECT rowid AS "__rowid", ${list} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  let copied = 0;
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const rows = read.all(after, batchSize) as Array<Record<string, unknown>>;
    if (rows.length === 0) return copied;
    const values = rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const c of columns) out[c] = toTarget(row[c], target.get(c)!);
      return out;
    });
    await client.query(
      `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)`,
      [JSON.stringify(values)],
    );
    copied += rows.length;
    after = rows[rows.length - 1]!.__rowid as number;
  }
}

function toTarget(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === 1 || value === true || value === '1';
  if (type === 'jsonb' && typeof value === 'string') return JSON.parse(value) as unknown;
  return value;
}

async function copyChunks(sqlite: SqliteReader, client: PoolClient, batchSize: number): Promise<number> {
  const read = sqlite.prepare(
    `SELECT id, project_id, source_id, document_id, ordinal, kind, title, heading_path, link, content,
       content_hash FROM chunks WHERE id > ? ORDER BY id LIMIT ?`,
  );
  let copied = 0;
  for (let after = 0; ;) {
    const rows = read.all(after, batchSize) as ChunkRow[];
    if (rows.length === 0) return copied;
    await insertChunksWithIds(
      client,
      rows.map((r) => ({
        id: r.id,
        projectId: r.project_id,
        sourceId: r.source_id,
        documentId: r.document_id,
        ordinal: r.ordinal,
        kind: r.kind,
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
        link: r.link,
        content: r.content,
        contentHash: r.content_hash,
      })),
    );
    copied += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}

/** The vectors of chunks embedded with the recorded embedder, as stored (float32, little-endian). */
async function copyVectors(
  sqlite: SqliteReader,
  client: PoolClient,
  vectorsAvailable: boolean,
  batchSize: number,
): Promise<CopyResult['vectors']> {
  const meta = new Map(
    (sqlite.prepare('SELECT key, value FROM index_meta').all() as Array<{ key: string; value: string }>).map(
      (r) => [r.key, r.value],
    ),
  );
  const embedderId = meta.get('embedder_id');
  const dimension = Number(meta.get('dimension'));
  if (embedderId === undefined || !Number.isInteger(dimension)) return { status: 'none' };
  const hasTable = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunk_vectors'")
    .all();
  if (hasTable.length === 0) return { status: 'none' };
  const embedded = `FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.embedded_with = ?`;
  const total = (
    sqlite.prepare(`SELECT count(*) AS n ${embedded}`).all(embedderId) as Array<{ n: number }>
  )[0]!.n;
  if (total === 0) return { status: 'none' };
  if (!vectorsAvailable) return { status: 'no-pgvector', embedderId, rows: total };
  const read = sqlite.prepare(
    `SELECT v.chunk_id, v.embedding ${embedded} AND v.chunk_id > ? ORDER BY v.chunk_id LIMIT ?`,
  );
  let copied = 0;
  for (let after = 0; ;) {
    const rows = read.all(embedderId, after, batchSize) as Array<{ chunk_id: number; embedding: Uint8Array }>;
    if (rows.length === 0) break;
    await writeCopiedVectors(
      client,
      { embedderId, dimension },
      rows.map((r) => ({ chunkId: r.chunk_id, vector: vectorText(r.embedding, dimension, r.chunk_id) })),
    );
    copied += rows.length;
    after = rows[rows.length - 1]!.chunk_id;
  }
  return { status: 'copied', embedderId, dimension, rows: copied };
}

/**
 * pgvector's text form of a stored float32 vector. Each float32 printed as JavaScript prints its
 * double value reads back (float4 input) as the same float32, so the copy is exact.
 */
function vectorText(blob: Uint8Array, dimension: number, chunkId: number): string {
  if (blob.byteLength !== dimension * 4) {
    throw new KbqaError(
      'INDEX_MISMATCH',
      `The vector of chunk ${chunkId} has ${blob.byteLength / 4} dimensions; the index records ${dimension}`,
    );
  }
  const floats = new Float32Array(dimension);
  new Uint8Array(floats.buffer).set(blob);
  return `[${Array.from(floats).join(',')}]`;
}

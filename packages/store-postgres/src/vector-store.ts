import type { Pool, PoolClient } from 'pg';
import type { MetadataCondition, PendingChunk, VectorStore } from '@kbqa/core';
import { embeddingText, KbqaError } from '@kbqa/core';
import { metadataWhereSql } from './metadata-filter';
import { inTransaction } from './migrations';

/** A pool or a client inside a transaction: both answer `query`. */
export type Queryable = Pool | PoolClient;

export interface NearestQuery {
  projectId: number;
  vector: Float32Array;
  k: number;
  filters?: MetadataCondition[];
}

export interface NearestHit {
  chunkId: number;
  /** Cosine similarity clamped to [0, 1]. */
  similarity: number;
}

const META_ID = 'embedder_id';
const META_DIMENSION = 'dimension';
/**
 * Up to this many vectors in a project, a search scores them all exactly (about 1 µs each, as in
 * the SQLite store); larger projects go through the HNSW index.
 */
const EXACT_UP_TO = 20_000;
const COUNT_TTL_MS = 5_000;
/** The exact distances of chunks `$4` to vector `$1`, beside a nearest-neighbour search's rows. */
const SCORED_SQL =
  'SELECT chunk_id, embedding <=> $1::vector AS d, false AS top FROM chunk_vectors WHERE chunk_id = ANY($4::int[])';

/** A row of a dense search: `top` for the nearest neighbours, false for chunks scored on request. */
interface ScoredRow {
  chunk_id: number;
  d: number;
  top: boolean;
}
/** pgvector's largest indexable `vector` dimension (HNSW). */
const MAX_DIMENSION = 2000;

/**
 * Chunk vectors in a pgvector `vector(n)` column with an HNSW index (cosine). The table is made
 * when an embedder is attached, because its column type carries the dimension. Without pgvector
 * on the server (`available` false) the store is lexical-only: like the SQLite store with no
 * embedder, nothing is attached, no vector is stored and a dense search is INDEX_MISMATCH.
 */
export class PostgresVectorStore implements VectorStore {
  private readonly exactUpTo: number;
  private readonly command: string;

  constructor(
    private readonly pool: Pool,
    /** Whether the database has the `vector` extension. */
    readonly available: boolean,
    /** `command`: how the user runs kbqa's command line, named in messages (default `kbqa`). */
    tuning: { exactUpTo?: number; command?: string } = {},
  ) {
    this.exactUpTo = tuning.exactUpTo ?? EXACT_UP_TO;
    this.command = tuning.command ?? 'kbqa';
  }

  async meta(db: Queryable = this.pool): Promise<{ embedderId: string; dimension: number } | undefined> {
    const rows = (
      await db.query<{ key: string; value: string }>(
        'SELECT key, value FROM index_meta WHERE key = ANY($1)',
        [[META_ID, META_DIMENSION]],
      )
    ).rows;
    const id = rows.find((r) => r.key === META_ID)?.value;
    const dimension = rows.find((r) => r.key === META_DIMENSION)?.value;
    if (id === undefined || dimension === undefined) return undefined;
    return { embedderId: id, dimension: Number(dimension) };
  }

  /**
   * Binds the store to an embedder: the first call records it and creates the vector table; the
   * same one again is a no-op; another one is INDEX_MISMATCH (vectors of two models never mix).
   */
  async attach(embedderId: string, dimension: number): Promise<void> {
    this.requireAvailable();
    assertDimension(dimension);
    await this.locked(async (client) => {
      const old = await this.meta(client);
      if (!old) {
        await this.recordMeta(client, embedderId, dimension);
        await createTable(client, dimension);
        return;
      }
      if (old.embedderId === embedderId && old.dimension === dimension) return;
      throw new KbqaError(
        'INDEX_MISMATCH',
        `The index was built with embedding model ${old.embedderId} (${old.dimension} dimensions) but ` +
          `${embedderId} (${dimension}) is configured; run \`${this.command} reindex\` to re-embed every chunk ` +
          'with the configured model, or configure the model the index was built with.',
      );
    });
  }

  /** Drops every vector and binds the store to another embedder (`kbqa reindex`). */
  async reset(embedderId: string, dimension: number): Promise<void> {
    this.requireAvailable();
    assertDimension(dimension);
    await this.locked(async (client) => {
      this.projectSize.clear();
      this.knownDimension = undefined;
      await client.query('DROP TABLE IF EXISTS chunk_vectors');
      await client.query('UPDATE chunks SET embedded_with = NULL WHERE embedded_with IS NOT NULL');
      await this.recordMeta(client, embedderId, dimension);
      await createTable(client, dimension);
    });
  }

  async countPending(projectId?: number): Promise<number> {
    const { rows } =
      projectId === undefined
        ? await this.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM chunks WHERE embedded_with IS NULL',
          )
        : await this.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM chunks WHERE embedded_with IS NULL AND project_id = $1',
            [projectId],
          );
    return rows[0]?.n ?? 0;
  }

  async pending(limit: number, afterId: number, projectId?: number): Promise<PendingChunk[]> {
    const { rows } = await this.pool.query<PendingRow>(
      `SELECT id, project_id, title, heading_path, content FROM chunks
       WHERE embedded_with IS NULL AND id > $1 AND ($2::int IS NULL OR project_id = $2)
       ORDER BY id LIMIT $3`,
      [afterId, projectId ?? null, limit],
    );
    return rows.map((r) => ({
      chunkId: r.id,
      projectId: r.project_id,
      text: embeddingText({ title: r.title, headingPath: r.heading_path, content: r.content }),
    }));
  }

  /** Stores vectors in one transaction; chunks deleted since `pending` read them are skipped. */
  async store(rows: Array<{ chunkId: number; vector: Float32Array }>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await inTransaction(client, async () => {
        const meta = await this.requireMeta(client);
        for (const { chunkId, vector } of rows) {
          if (vector.length !== meta.dimension) {
            throw new KbqaError(
              'BAD_REQUEST',
              `Vector of chunk ${chunkId} has ${vector.length} dimensions; the index expects ${meta.dimension}`,
            );
          }
        }
        await writeVectors(
          client,
          rows.map((r) => ({ chunkId: r.chunkId, vector: vectorLiteral(r.vector) })),
          meta.embedderId,
        );
      });
    } finally {
      client.release();
    }
  }

  async countVectors(projectId?: number): Promise<number> {
    if (!(await this.hasTable(this.pool))) return 0;
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunk_vectors WHERE $1::int IS NULL OR project_id = $1',
      [projectId ?? null],
    );
    return rows[0]?.n ?? 0;
  }

  /** Vectors (as pgvector text) of a source's chunks made with the attached embedder, by content hash. */
  async vectorsBySourceHash(db: Queryable, sourceId: number): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const meta = this.available ? await this.meta(db) : undefined;
    if (!meta || !(await this.hasTable(db))) return out;
    const { rows } = await db.query<{ content_hash: string; embedding: string }>(
      `SELECT c.content_hash, v.embedding::text AS embedding
       FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id
       WHERE c.source_id = $1 AND c.embedded_with = $2`,
      [sourceId, meta.embedderId],
    );
    for (const r of rows) out.set(r.content_hash, r.embedding);
    return out;
  }

  /** Stores carried-over vectors for new chunk rows, inside the caller's transaction. */
  async restore(db: Queryable, rows: Array<{ chunkId: number; vector: string }>): Promise<void> {
    if (rows.length === 0) return;
    const meta = await this.meta(db);
    if (meta) await writeVectors(db, rows, meta.embedderId);
  }

  /** The k chunks of a project nearest to a vector (HNSW, cosine), filters applied in the query. */
  async nearest(query: NearestQuery): Promise<NearestHit[]> {
    return (await this.nearestAndScored(query, [])).nearest;
  }

  /**
   * {@link nearest}, and in the same statement the exact similarities of other chunks to the same
   * vector (hybrid search's lexical candidates; chunks without a vector are absent). The
   * search runs as one round trip: the attached embedder and the table are only read when the
   * statement fails, to say why (each read cost a round trip a search, about a third of hybrid's
   * time on PGlite).
   */
  async nearestAndScored(
    query: NearestQuery,
    scoreIds: number[],
  ): Promise<{ nearest: NearestHit[]; similarities: Map<number, number> }> {
    if (!this.available || query.vector.length !== this.knownDimension) {
      const error = await this.denseSearchError(query);
      if (error) throw error;
    }
    if (query.k <= 0 && scoreIds.length === 0) return { nearest: [], similarities: new Map() };
    const filter = metadataWhereSql(query.filters ?? [], 'd.metadata', 5);
    const join = filter.sql
      ? 'JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id'
      : '';
    const where = `v.project_id = $2 ${filter.sql ? `AND ${filter.sql}` : ''}`;
    const params = [
      vectorLiteral(query.vector),
      query.projectId,
      Math.max(0, query.k),
      scoreIds,
      ...filter.params,
    ];
    let rows: ScoredRow[];
    try {
      if ((await this.projectVectors(query.projectId)) <= this.exactUpTo) {
        // Scored exactly. The HNSW index answers for the whole table and the project (or filter)
        // is applied afterwards, so a small project beside a large one would get fewer than k
        // hits, or none; MATERIALIZED keeps the planner from ordering by the index.
        rows = (
          await this.pool.query<ScoredRow>(
            `WITH candidates AS MATERIALIZED (SELECT v.chunk_id, v.embedding FROM chunk_vectors v ${join} WHERE ${where})
             (SELECT chunk_id, embedding <=> $1::vector AS d, true AS top FROM candidates ORDER BY d LIMIT $3)
             UNION ALL ${SCORED_SQL}`,
            params,
          )
        ).rows;
      } else {
        rows = await this.approximate(params, join, where);
      }
    } catch (e) {
      // The embedder or the table changed since (another process ran `kbqa reindex`), or the
      // statement failed for its own reasons.
      throw (await this.denseSearchError(query)) ?? e;
    }
    const nearest = rows
      .filter((r) => r.top)
      .sort((a, b) => a.d - b.d)
      .map((r) => ({ chunkId: r.chunk_id, similarity: similarity(r.d) }));
    const similarities = new Map<number, number>();
    for (const r of rows) if (!r.top) similarities.set(r.chunk_id, similarity(r.d));
    return { nearest, similarities };
  }

  /**
   * Why a dense search cannot run (no pgvector, no embedder attached, no vector table, a vector of
   * another dimension), read from the database, or undefined when none of these holds.
   */
  private async denseSearchError(query: NearestQuery): Promise<KbqaError | undefined> {
    const meta = this.available ? await this.meta() : undefined;
    this.knownDimension = meta?.dimension;
    if (!meta || !(await this.hasTable(this.pool))) {
      return new KbqaError(
        'INDEX_MISMATCH',
        this.available
          ? 'Dense search needs vectors, but no embedding model is attached to the index; configure one and let the chunks be embedded'
          : 'Dense search needs vectors, but this PostgreSQL server has no pgvector extension; the store is lexical-only',
      );
    }
    if (query.vector.length !== meta.dimension) {
      return new KbqaError(
        'BAD_REQUEST',
        `The query vector has ${query.vector.length} dimensions; the index holds ${meta.dimension}-dimension vectors of ${meta.embedderId}`,
      );
    }
    return undefined;
  }

  /**
   * The dimension the last read of the attached embedder gave: a query vector of another length is
   * checked against the database before it is searched with (a project without vectors would
   * otherwise answer it with nothing instead of an error).
   */
  private knownDimension: number | undefined;

  /**
   * HNSW search of a large project. pgvector 0.8's iterative scan goes on past ef_search
   * candidates until k of them pass the project and filter conditions; results come in relaxed
   * order, so they are sorted again. The two settings are made on the connection (session level,
   * only HNSW scans read them) and made again only when a search needs other values: a
   * transaction with SET LOCAL cost five round trips a search (several times the query alone,
   * more between hosts), and PGlite's socket server runs one
   * transaction at a time across its connections.
   */
  private async approximate(params: unknown[], join: string, where: string): Promise<ScoredRow[]> {
    const iterative = await this.iterativeScan(this.pool);
    const efSearch = Math.min(1000, Math.max(40, 2 * Number(params[2])));
    const settings = `${iterative ? 'relaxed_order' : 'off'} ${efSearch}`;
    const client = await this.pool.connect();
    try {
      if (this.sessionSettings.get(client) !== settings) {
        // One simple-protocol round trip for both (no parameters: the values are ours).
        await client.query(
          `SET hnsw.ef_search = ${efSearch}${iterative ? "; SET hnsw.iterative_scan = 'relaxed_order'" : ''}`,
        );
        this.sessionSettings.set(client, settings);
      }
      const { rows } = await client.query<ScoredRow>(
        `(SELECT v.chunk_id, v.embedding <=> $1::vector AS d, true AS top FROM chunk_vectors v ${join}
          WHERE ${where} ORDER BY v.embedding <=> $1::vector LIMIT $3)
         UNION ALL ${SCORED_SQL}`,
        params,
      );
      return rows;
    } catch (e) {
      // The connection's settings are unknown after a failure; set them again next time.
      this.sessionSettings.delete(client);
      throw e;
    } finally {
      client.release();
    }
  }

  /** The HNSW settings last made on each pooled connection (pg reuses its client objects). */
  private readonly sessionSettings = new WeakMap<object, string>();

  private iterativeScanSupported: boolean | undefined;

  /** Whether the installed pgvector has iterative index scans (0.8.0 and later). */
  private async iterativeScan(db: Queryable): Promise<boolean> {
    if (this.iterativeScanSupported === undefined) {
      const { rows } = await db.query<{ v: string }>(
        "SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'",
      );
      const [major = 0, minor = 0] = (rows[0]?.v ?? '0.0').split('.').map(Number);
      this.iterativeScanSupported = major > 0 || minor >= 8;
    }
    return this.iterativeScanSupported;
  }

  private projectSize = new Map<number, { n: number; at: number }>();

  /** Vectors of a project, cached briefly: it only picks the search strategy. */
  private async projectVectors(projectId: number): Promise<number> {
    const now = Date.now();
    const cached = this.projectSize.get(projectId);
    if (cached && now - cached.at < COUNT_TTL_MS) return cached.n;
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunk_vectors WHERE project_id = $1',
      [projectId],
    );
    const n = rows[0]?.n ?? 0;
    this.projectSize.set(projectId, { n, at: now });
    return n;
  }

  private async hasTable(db: Queryable): Promise<boolean> {
    const { rows } = await db.query<{ t: string | null }>("SELECT to_regclass('chunk_vectors')::text AS t");
    return rows[0]?.t != null;
  }

  private async requireMeta(db: Queryable): Promise<{ embedderId: string; dimension: number }> {
    const meta = this.available ? await this.meta(db) : undefined;
    if (!meta) {
      throw new KbqaError(
        'INDEX_MISMATCH',
        this.available
          ? 'No embedding model is attached to the index; call attach() first'
          : 'This PostgreSQL server has no pgvector extension; the store is lexical-only',
      );
    }
    return meta;
  }

  private requireAvailable(): void {
    if (!this.available) {
      throw new KbqaError(
        'UNSUPPORTED',
        'This PostgreSQL server has no pgvector extension (CREATE EXTENSION vector failed); the store is lexical-only',
      );
    }
  }

  private async recordMeta(db: Queryable, embedderId: string, dimension: number): Promise<void> {
    await db.query(
      `INSERT INTO index_meta (key, value) VALUES ($1, $2), ($3, $4)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [META_ID, embedderId, META_DIMENSION, String(dimension)],
    );
  }

  /** A transaction holding a lock on index_meta, so two processes attaching at once agree. */
  private async locked(fn: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await inTransaction(client, async () => {
        await client.query('LOCK TABLE index_meta IN EXCLUSIVE MODE');
        await fn(client);
      });
    } finally {
      client.release();
    }
  }
}

interface PendingRow {
  id: number;
  project_id: number;
  title: string;
  heading_path: string[];
  content: string;
}

/**
 * Binds an empty store to the embedder another store's vectors were made with and writes those
 * vectors as they are (pgvector text), in the caller's transaction (`kbqa store copy`): nothing
 * is recomputed, and the chunks are marked embedded with that embedder.
 */
export async function writeCopiedVectors(
  db: Queryable,
  meta: { embedderId: string; dimension: number },
  rows: Array<{ chunkId: number; vector: string }>,
): Promise<void> {
  assertDimension(meta.dimension);
  await db.query(
    `INSERT INTO index_meta (key, value) VALUES ($1, $2), ($3, $4)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [META_ID, meta.embedderId, META_DIMENSION, String(meta.dimension)],
  );
  await createTable(db, meta.dimension);
  await writeVectors(db, rows, meta.embedderId);
}

async function createTable(db: Queryable, dimension: number): Promise<void> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS chunk_vectors (
      chunk_id integer PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
      project_id integer NOT NULL,
      embedding vector(${dimension}) NOT NULL)`,
  );
  await db.query(
    'CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)',
  );
  await db.query('CREATE INDEX IF NOT EXISTS chunk_vectors_project ON chunk_vectors (project_id)');
}

/** Upserts vectors (pgvector text) of existing chunks and marks the chunks embedded. */
async function writeVectors(
  db: Queryable,
  rows: Array<{ chunkId: number; vector: string }>,
  embedderId: string,
): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.chunkId);
  await db.query(
    `INSERT INTO chunk_vectors (chunk_id, project_id, embedding)
     SELECT c.id, c.project_id, r.embedding::vector
     FROM unnest($1::int[], $2::text[]) AS r (chunk_id, embedding) JOIN chunks c ON c.id = r.chunk_id
     ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding`,
    [ids, rows.map((r) => r.vector)],
  );
  await db.query('UPDATE chunks SET embedded_with = $1 WHERE id = ANY($2::int[])', [embedderId, ids]);
}

function assertDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension <= 0 || dimension > MAX_DIMENSION) {
    throw new KbqaError(
      'BAD_REQUEST',
      `Unsupported embedding dimension ${dimension} (pgvector indexes up to ${MAX_DIMENSION})`,
    );
  }
}

/** pgvector's text form of a vector. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** Cosine distance (1 - cos) to a similarity in [0, 1]; opposite directions count as unrelated. */
function similarity(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}

import { writeTransaction } from './write-transaction';
import type BetterSqlite3 from 'better-sqlite3';
import type { MetadataCondition, PendingChunk, VectorStore } from '@kbqa/core';
import { embeddingText, KbqaError } from '@kbqa/core';
import { metadataWhereSql } from './metadata-filter';
import {
  cacheableDimension,
  cachedBytesPerVector,
  codeStatements,
  KEPT_CHANGES,
  ProjectCodes,
  type CodeStatements,
} from './code-cache';
import { ScanThread } from './scan-thread';

export type { PendingChunk } from '@kbqa/core';

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

/** Search strategy thresholds; the defaults come from bench/retrieval/latency.js. */
export interface VectorSearchTuning {
  /** Candidate sets up to this many vectors are scored exactly (no quantization). */
  exactUpTo?: number;
  /** A filter matching less than this share of a project's vectors is scored exactly. */
  knnFromShare?: number;
  /** Projects with more documents estimate a filter's share from a sample. */
  sampleFromDocuments?: number;
  /**
   * Bytes of binary codes held in memory for kNN, all projects together (56 bytes per vector at
   * 384 dimensions); least recently searched projects are dropped first, and a project larger
   * than the budget is searched through sqlite-vec. 0 turns the in-memory codes off.
   */
  codeMemoryBytes?: number;
  /**
   * Whether the scans of the in-memory codes run on a thread of their own (default true where
   * shared WebAssembly memory is available), so hybrid search ranks its lexical side while the
   * dense scan runs ({@link SqliteVectorIndex.beginNearest}).
   */
  scanThread?: boolean;
}

export interface SqliteVectorIndexOptions extends VectorSearchTuning {
  /**
   * How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`), named in
   * messages that tell them what to run. Default `kbqa`.
   */
  command?: string;
}

const META_ID = 'embedder_id';
const META_DIMENSION = 'dimension';

/**
 * Below this many candidate vectors (a small project, or a selective filter) every candidate is
 * scored exactly; a float scan costs about 1 µs per vector without SIMD, ~20 ms here.
 */
const EXACT_UP_TO = 20_000;
/**
 * A filter matching less than this share of a project is scored exactly: the quantized kNN would
 * need k ≈ wanted / share candidates, and sqlite-vec's kNN cost grows with k (bench/retrieval).
 */
const KNN_FROM_SHARE = 0.35;
/** Projects up to this many documents count a filter's matches; larger ones sample. */
const SAMPLE_FROM_DOCUMENTS = 10_000;
/** Documents read to estimate a filter's share in a large project. */
const SAMPLE_SIZE = 2_000;
/** Binary-quantized candidates fetched per wanted result before exact float rescoring. */
const OVERSAMPLE = 10;
const MIN_CANDIDATES = 100;
/**
 * Candidates per wanted result taken from the in-memory codes and rescored in float. At 1M chunks
 * of the synthetic set (bench/retrieval/latency.js), dense recall@10 against exact search was 0.85
 * with 200 candidates, 0.96 with 400 and 1.00 with 800, rescoring costing 1.5, 2.8 and 8.8 ms.
 */
const MEMORY_OVERSAMPLE = 60;
/** In-memory candidates beyond which a filtered search scores the filtered chunks instead. */
const MAX_MEMORY_CANDIDATES = 20_000;
/** Default of VectorSearchTuning.codeMemoryBytes: 1 GiB, about 19M vectors of 384 dimensions. */
const CODE_MEMORY_BYTES = 1024 * 1024 * 1024;
/** sqlite-vec's largest k. */
const MAX_K = 4096;
const COUNT_TTL_MS = 5_000;

/**
 * Chunk vectors of one database. Full-precision float32 vectors live in `chunk_vectors` (exact
 * scoring and rescoring), their binary codes in `chunk_vector_codes` (filtered scans); a sqlite-vec
 * `vec0` table of the same codes, partitioned by project, serves kNN (bench/retrieval/latency.js chose this layout: float brute force is too slow
 * at 1M chunks without SIMD, bit[] + rescoring keeps recall@10 high). The embedder that made the
 * vectors is recorded in `index_meta`, and `chunks.embedded_with` marks each embedded chunk.
 */
export class SqliteVectorIndex implements VectorStore {
  private readonly stmt: ReturnType<SqliteVectorIndex['prepare']>;
  private projectSize = new Map<number, { n: number; documents: number; at: number }>();
  private bitsStmt: BitsStatements | undefined;

  private readonly exactUpTo: number;
  private readonly knnFromShare: number;
  private readonly sampleFromDocuments: number;
  private readonly codeMemoryBytes: number;
  private readonly useScanThread: boolean;
  private readonly command: string;
  /** The scan thread once started; null when off or unavailable. */
  private scanThread: ScanThread | null | undefined;
  /** In-memory codes per project, in order of last use (oldest first). */
  private readonly codes = new Map<number, ProjectCodes>();
  private codeStmt: CodeStatements | undefined;

  constructor(
    private readonly db: BetterSqlite3.Database,
    tuning: SqliteVectorIndexOptions = {},
  ) {
    this.stmt = this.prepare();
    this.exactUpTo = tuning.exactUpTo ?? EXACT_UP_TO;
    this.knnFromShare = tuning.knnFromShare ?? KNN_FROM_SHARE;
    this.sampleFromDocuments = tuning.sampleFromDocuments ?? SAMPLE_FROM_DOCUMENTS;
    this.codeMemoryBytes = tuning.codeMemoryBytes ?? CODE_MEMORY_BYTES;
    this.useScanThread = tuning.scanThread ?? true;
    this.command = tuning.command ?? 'kbqa';
  }

  private prepare() {
    const db = this.db;
    return {
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM index_meta WHERE key = ?'),
      setMeta: db.prepare(
        'INSERT INTO index_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
      countPendingAll: db.prepare<[], { n: number }>(
        'SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL',
      ),
      countPending: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM chunks WHERE embedded_with IS NULL AND project_id = ?',
      ),
      pendingAll: db.prepare<[number, number], PendingRow>(
        `SELECT id, project_id, title, heading_path, content FROM chunks
         WHERE embedded_with IS NULL AND id > ? ORDER BY id LIMIT ?`,
      ),
      pending: db.prepare<[number, number, number], PendingRow>(
        `SELECT id, project_id, title, heading_path, content FROM chunks
         WHERE embedded_with IS NULL AND project_id = ? AND id > ? ORDER BY id LIMIT ?`,
      ),
      chunkProject: db.prepare<[number], { project_id: number }>(
        'SELECT project_id FROM chunks WHERE id = ?',
      ),
      upsertVector: db.prepare('INSERT OR REPLACE INTO chunk_vectors (chunk_id, embedding) VALUES (?, ?)'),
      upsertCode: db.prepare(
        'INSERT OR REPLACE INTO chunk_vector_codes (chunk_id, code) VALUES (?, vec_quantize_binary(?))',
      ),
      markEmbedded: db.prepare('UPDATE chunks SET embedded_with = ? WHERE id = ?'),
      countVectorsAll: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunk_vectors'),
      countVectors: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.project_id = ?',
      ),
      deleteVectorsOfSource: db.prepare(
        'DELETE FROM chunk_vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE source_id = ?)',
      ),
      deleteCodesOfSource: db.prepare(
        'DELETE FROM chunk_vector_codes WHERE chunk_id IN (SELECT id FROM chunks WHERE source_id = ?)',
      ),
      vectorsOfSource: db.prepare<[number, string], { content_hash: string; embedding: Buffer }>(
        `SELECT c.content_hash, v.embedding FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id
         WHERE c.source_id = ? AND c.embedded_with = ?`,
      ),
      // All chunks (covering index chunks_project) minus the pending ones (partial index
      // chunks_unembedded): 22 ms at 1M chunks, where counting embedded rows read every row (264 ms).
      countProjectVectors: db.prepare<[number, number], { n: number }>(
        `SELECT (SELECT count(*) FROM chunks WHERE project_id = ?)
              - (SELECT count(*) FROM chunks WHERE project_id = ? AND embedded_with IS NULL) AS n`,
      ),
      countProjectDocuments: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM documents WHERE project_id = ?',
      ),
      similarities: db.prepare<[Buffer, string], { chunk_id: number; d: number }>(
        `SELECT chunk_id, vec_distance_cosine(embedding, ?) AS d FROM chunk_vectors
         WHERE chunk_id IN (SELECT value FROM json_each(?))`,
      ),
      rescore: db.prepare<[Buffer, string, number], { chunk_id: number; d: number }>(
        `SELECT chunk_id, vec_distance_cosine(embedding, ?) AS d FROM chunk_vectors
         WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY d LIMIT ?`,
      ),
      exactProject: db.prepare<[Buffer, number, number], { chunk_id: number; d: number }>(
        `SELECT v.chunk_id, vec_distance_cosine(v.embedding, ?) AS d
         FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id
         WHERE c.project_id = ? ORDER BY d LIMIT ?`,
      ),
    };
  }

  /** The embedder the stored vectors were made with, if one was ever attached. */
  meta(): { embedderId: string; dimension: number } | undefined {
    const id = this.stmt.getMeta.get(META_ID)?.value;
    const dimension = this.stmt.getMeta.get(META_DIMENSION)?.value;
    if (id === undefined || dimension === undefined) return undefined;
    return { embedderId: id, dimension: Number(dimension) };
  }

  /**
   * Binds the index to an embedder. The first call records it and creates the vector tables; the
   * same embedder again is a no-op; a different one throws INDEX_MISMATCH, because vectors of two
   * models must never be compared.
   */
  attach(embedderId: string, dimension: number): void {
    assertDimension(dimension);
    writeTransaction(this.db, () => {
      const old = this.meta();
      if (!old) {
        this.recordMeta(embedderId, dimension);
        this.createTables(dimension);
        return;
      }
      if (old.embedderId === embedderId && old.dimension === dimension) {
        this.createTables(dimension);
        return;
      }
      throw new KbqaError(
        'INDEX_MISMATCH',
        `The index was built with embedding model ${old.embedderId} (${old.dimension} dimensions) but ` +
          `${embedderId} (${dimension}) is configured; run \`${this.command} reindex\` to re-embed every chunk ` +
          'with the configured model, or configure the model the index was built with.',
      );
    });
  }

  /** Drops every vector and binds the index to a new embedder (`kbqa reindex`). */
  reset(embedderId: string, dimension: number): void {
    assertDimension(dimension);
    writeTransaction(this.db, () => {
      this.bitsStmt = undefined;
      this.db.exec('DROP TABLE IF EXISTS chunk_vectors_bits');
      this.db.exec('DELETE FROM chunk_vectors');
      this.db.exec('DELETE FROM chunk_vector_codes');
      // Every cache reloads anyway: keep only the newest change, so the log does not hold a row
      // per deleted vector.
      this.db.exec('DELETE FROM vector_changes WHERE seq < (SELECT max(seq) FROM vector_changes)');
      this.db.exec('UPDATE chunks SET embedded_with = NULL WHERE embedded_with IS NOT NULL');
      this.recordMeta(embedderId, dimension);
      this.createTables(dimension);
    });
    this.projectSize.clear();
    this.codes.clear();
  }

  /** Chunks not embedded yet, of one project or all. */
  countPending(projectId?: number): number {
    const row =
      projectId === undefined ? this.stmt.countPendingAll.get() : this.stmt.countPending.get(projectId);
    return row?.n ?? 0;
  }

  /** The next chunks to embed after `afterId`, ordered by id, with the text to embed. */
  pending(limit: number, afterId: number, projectId?: number): PendingChunk[] {
    const rows =
      projectId === undefined
        ? this.stmt.pendingAll.all(afterId, limit)
        : this.stmt.pending.all(projectId, afterId, limit);
    return rows.map((r) => ({
      chunkId: r.id,
      projectId: r.project_id,
      text: embeddingText({
        title: r.title,
        headingPath: JSON.parse(r.heading_path) as string[],
        content: r.content,
      }),
    }));
  }

  /**
   * Stores vectors in one transaction and marks their chunks embedded with the attached embedder.
   * Chunks deleted since they were read from `pending` are skipped.
   */
  store(rows: Array<{ chunkId: number; vector: Float32Array }>): void {
    writeTransaction(this.db, () => {
      const meta = this.requireMeta();
      for (const { chunkId, vector } of rows) {
        if (vector.length !== meta.dimension) {
          throw new KbqaError(
            'BAD_REQUEST',
            `Vector of chunk ${chunkId} has ${vector.length} dimensions; the index expects ${meta.dimension}`,
          );
        }
        const chunk = this.stmt.chunkProject.get(chunkId);
        if (!chunk) continue;
        this.write(chunkId, chunk.project_id, vectorBlob(vector), meta.embedderId);
      }
      this.pruneChanges();
    });
  }

  /**
   * Drops the oldest entries of the change log, keeping {@link KEPT_CHANGES}; caches further
   * behind reload. Called by writers (store, and the chunk index's maintenance).
   */
  pruneChanges(): void {
    const stmt = this.codeStatements();
    const bounds = stmt.changeBounds.get();
    if (!bounds || bounds.head === null || bounds.low === null) return;
    if (bounds.head - bounds.low > 2 * KEPT_CHANGES) stmt.pruneChanges.run(bounds.head - KEPT_CHANGES);
  }

  /** Stored vectors, of one project or all. */
  countVectors(projectId?: number): number {
    const row =
      projectId === undefined ? this.stmt.countVectorsAll.get() : this.stmt.countVectors.get(projectId);
    return row?.n ?? 0;
  }

  /**
   * Vectors of a source's chunks made with the attached embedder, by content hash; read before the
   * source is replaced so unchanged chunks keep their vectors.
   */
  vectorsBySourceHash(sourceId: number): Map<string, Buffer> {
    const meta = this.meta();
    const out = new Map<string, Buffer>();
    if (!meta) return out;
    for (const r of this.stmt.vectorsOfSource.iterate(sourceId, meta.embedderId))
      out.set(r.content_hash, r.embedding);
    return out;
  }

  /** Stores a carried-over vector for a new chunk row (inside the caller's transaction). */
  restore(chunkId: number, projectId: number, embedding: Buffer): void {
    const meta = this.meta();
    if (!meta) return;
    this.write(chunkId, projectId, embedding, meta.embedderId);
  }

  /** Deletes the vectors of a source's chunks; call inside the transaction deleting the chunks. */
  deleteOfSource(sourceId: number): void {
    this.bits()?.deleteOfSource.run(sourceId);
    this.stmt.deleteVectorsOfSource.run(sourceId);
    this.stmt.deleteCodesOfSource.run(sourceId);
  }

  /** Exact cosine similarities of the given chunks to a vector (chunks without one are absent). */
  similarities(vector: Float32Array, chunkIds: number[]): Map<number, number> {
    const out = new Map<number, number>();
    if (chunkIds.length === 0) return out;
    for (const r of this.stmt.similarities.all(vectorBlob(vector), JSON.stringify(chunkIds))) {
      out.set(r.chunk_id, similarity(r.d));
    }
    return out;
  }

  /**
   * The k chunks of a project nearest to a vector, filters applied inside the search: small
   * candidate sets (small project, selective filter) are scored exactly; large ones go through the
   * binary-quantized kNN with exact rescoring, widened until k filtered results are found.
   */
  nearest(query: NearestQuery): NearestHit[] {
    const { meta, bits } = this.checked(query);
    if (query.k <= 0) return [];
    const q = vectorBlob(query.vector);
    const total = this.projectVectors(query.projectId);
    const filter = metadataWhereSql(query.filters ?? [], 'd.metadata');
    if (!filter.sql) {
      if (total <= this.exactUpTo)
        return this.toHits(this.stmt.exactProject.all(q, query.projectId, query.k));
      const codes = this.projectCodes(query.projectId, total, meta.dimension);
      if (codes) return this.memoryKnn(codes, q, query, undefined);
      return this.knn(bits, q, query, total, undefined);
    }
    // Estimated from documents only (no chunk join), on a sample in large projects: it only picks
    // the strategy, and every strategy returns the filtered top k.
    const share = this.filteredShare(query.projectId, filter.sql, filter.params);
    const matching = share * total;
    if (matching <= this.exactUpTo) return this.exactFiltered(q, query, filter.sql, filter.params);
    if (matching < total * this.knnFromShare) return this.codedFiltered(q, query, filter.sql, filter.params);
    const codes = this.projectCodes(query.projectId, total, meta.dimension);
    if (codes) return this.memoryKnn(codes, q, query, { ...filter, share: Math.max(share, 0.01) });
    return this.knn(bits, q, query, total, { ...filter, share: Math.max(share, 0.01) });
  }

  /**
   * {@link nearest} in two steps: an unfiltered search of a project whose codes are in memory
   * starts its scan on the scan thread now, and the function returned waits for it and rescores;
   * every other search runs when the function is called. Hybrid search starts the dense side
   * first and ranks the lexical side meanwhile (1M chunks: a ~10 ms scan beside ~15 ms of FTS5).
   * Call the function before any other search of this index.
   */
  beginNearest(query: NearestQuery): () => NearestHit[] {
    const later = () => this.nearest(query);
    if (!this.useScanThread || query.k <= 0 || (query.filters?.length ?? 0) > 0) return later;
    const meta = this.meta();
    if (!meta || !this.bits() || query.vector.length !== meta.dimension) return later;
    const total = this.projectVectors(query.projectId);
    if (total <= this.exactUpTo) return later;
    const codes = this.projectCodes(query.projectId, total, meta.dimension);
    if (!codes) return later;
    const q = vectorBlob(query.vector);
    const picking = codes.beginNearest(
      this.quantized(q),
      Math.max(MIN_CANDIDATES, query.k * MEMORY_OVERSAMPLE),
    );
    return () => this.toHits(this.stmt.rescore.all(q, JSON.stringify(picking()), query.k));
  }

  /** Ends the scan thread, if one was started. */
  async close(): Promise<void> {
    const thread = this.scanThread;
    this.scanThread = null;
    await thread?.close();
  }

  /** The index's embedder and bit table, checked against a query's vector. */
  private checked(query: NearestQuery): {
    meta: { embedderId: string; dimension: number };
    bits: BitsStatements;
  } {
    const meta = this.meta();
    const bits = this.bits();
    if (!meta || !bits) {
      throw new KbqaError(
        'INDEX_MISMATCH',
        'Dense search needs vectors, but no embedding model is attached to the index; configure one and let the chunks be embedded',
      );
    }
    if (query.vector.length !== meta.dimension) {
      throw new KbqaError(
        'BAD_REQUEST',
        `The query vector has ${query.vector.length} dimensions; the index holds ${meta.dimension}-dimension vectors of ${meta.embedderId}`,
      );
    }
    return { meta, bits };
  }

  private quantized(q: Buffer): Buffer {
    const code = this.codeStatements().quantize.get(q);
    if (!code) throw new KbqaError('INTERNAL', 'vec_quantize_binary returned nothing');
    return code;
  }

  /**
   * kNN on the project's codes in memory, the best {@link MEMORY_OVERSAMPLE} per wanted result
   * (divided by the filter's share) rescored exactly in float with the filter applied, widened
   * until k filtered results are found.
   */
  private memoryKnn(
    codes: ProjectCodes,
    q: Buffer,
    query: NearestQuery,
    filter: { sql: string; params: Array<string | number>; share: number } | undefined,
  ): NearestHit[] {
    const code = this.quantized(q);
    const share = filter?.share ?? 1;
    let wanted = Math.max(MIN_CANDIDATES, Math.ceil((query.k * MEMORY_OVERSAMPLE) / share));
    for (;;) {
      const ids = codes.nearest(code, wanted);
      const hits = filter
        ? (this.db
            .prepare(
              `SELECT v.chunk_id, vec_distance_cosine(v.embedding, ?) AS d
               FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
               WHERE v.chunk_id IN (SELECT value FROM json_each(?)) AND ${filter.sql}
               ORDER BY d LIMIT ?`,
            )
            .all(q, JSON.stringify(ids), ...filter.params, query.k) as Array<{ chunk_id: number; d: number }>)
        : this.stmt.rescore.all(q, JSON.stringify(ids), query.k);
      if (hits.length >= query.k || ids.length < wanted) return this.toHits(hits);
      if (!filter) return this.toHits(hits);
      if (wanted >= MAX_MEMORY_CANDIDATES) return this.codedFiltered(q, query, filter.sql, filter.params);
      wanted = Math.min(MAX_MEMORY_CANDIDATES, wanted * 4);
    }
  }

  /**
   * The in-memory codes of a project, brought up to date, or undefined when they cannot be used:
   * off, a dimension the kernel does not take, inside a transaction (uncommitted changes could
   * still roll back), or a project too large for the budget.
   */
  private projectCodes(projectId: number, vectors: number, dimension: number): ProjectCodes | undefined {
    if (this.db.inTransaction || !cacheableDimension(dimension)) return undefined;
    // Room for the vectors written after loading is part of what a project costs.
    const cost = vectors * cachedBytesPerVector(dimension) * 1.1;
    if (cost > this.codeMemoryBytes) {
      this.codes.delete(projectId);
      return undefined;
    }
    // A scan handed over earlier and never collected must end before any codes change.
    this.scanThread?.settle();
    let codes = this.codes.get(projectId);
    if (!codes) codes = new ProjectCodes(projectId, dimension, this.thread());
    this.codes.delete(projectId);
    this.codes.set(projectId, codes);
    codes.sync(this.codeStatements());
    // Least recently used first: drop others until this project fits the budget.
    let held = 0;
    for (const c of this.codes.values()) held += c.bytes;
    for (const [id, c] of this.codes) {
      if (held <= this.codeMemoryBytes || id === projectId) break;
      this.codes.delete(id);
      held -= c.bytes;
    }
    return codes;
  }

  /** The scan thread, started on first use (undefined when off or unavailable). */
  private thread(): ScanThread | undefined {
    if (this.scanThread === undefined)
      this.scanThread = (this.useScanThread && ScanThread.tryCreate()) || null;
    return this.scanThread ?? undefined;
  }

  /** Bytes of codes held in memory now, all projects together. */
  codeMemoryUsed(): number {
    let held = 0;
    for (const c of this.codes.values()) held += c.bytes;
    return held;
  }

  private codeStatements(): CodeStatements {
    this.codeStmt ??= codeStatements(this.db);
    return this.codeStmt;
  }

  private knn(
    bits: BitsStatements,
    q: Buffer,
    query: NearestQuery,
    total: number,
    filter: { sql: string; params: Array<string | number>; share: number } | undefined,
  ): NearestHit[] {
    const share = filter?.share ?? 1;
    let k = Math.min(MAX_K, Math.max(MIN_CANDIDATES, Math.ceil((query.k * OVERSAMPLE) / share)));
    for (;;) {
      const ids = bits.knn.all(q, k, BigInt(query.projectId)).map((r) => r.rowid);
      const rows = filter
        ? this.db
            .prepare(
              `SELECT v.chunk_id, vec_distance_cosine(v.embedding, ?) AS d
               FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
               WHERE v.chunk_id IN (SELECT value FROM json_each(?)) AND ${filter.sql}
               ORDER BY d LIMIT ?`,
            )
            .all(q, JSON.stringify(ids), ...filter.params, query.k)
        : this.stmt.rescore.all(q, JSON.stringify(ids), query.k);
      const hits = rows as Array<{ chunk_id: number; d: number }>;
      // Enough results, or the kNN already returned every vector of the project.
      if (hits.length >= query.k || ids.length < k || k >= total) return this.toHits(hits);
      if (k >= MAX_K) {
        if (!filter) return this.toHits(hits);
        return this.codedFiltered(q, query, filter.sql, filter.params);
      }
      k = Math.min(MAX_K, k * 4);
    }
  }

  private exactFiltered(
    q: Buffer,
    query: NearestQuery,
    sql: string,
    params: Array<string | number>,
  ): NearestHit[] {
    const rows = this.db
      .prepare(
        `SELECT v.chunk_id, vec_distance_cosine(v.embedding, ?) AS d
         FROM documents d JOIN chunks c ON c.document_id = d.id JOIN chunk_vectors v ON v.chunk_id = c.id
         WHERE d.project_id = ? AND ${sql}
         ORDER BY d LIMIT ?`,
      )
      .all(q, query.projectId, ...params, query.k) as Array<{ chunk_id: number; d: number }>;
    return this.toHits(rows);
  }

  /**
   * The filtered chunks of a project ranked by Hamming distance between binary codes, the best
   * {@link OVERSAMPLE} per wanted result rescored exactly in float. For filters matching too many
   * chunks to score in float (48-byte codes are read instead of 1,536-byte vectors) and too few
   * for the project-wide kNN to find k of them.
   */
  private codedFiltered(
    q: Buffer,
    query: NearestQuery,
    sql: string,
    params: Array<string | number>,
  ): NearestHit[] {
    const candidates = Math.max(MIN_CANDIDATES, query.k * OVERSAMPLE);
    const ids = (
      this.db
        .prepare(
          `SELECT v.chunk_id
           FROM documents d JOIN chunks c ON c.document_id = d.id JOIN chunk_vector_codes v ON v.chunk_id = c.id
           WHERE d.project_id = ? AND ${sql}
           ORDER BY vec_distance_hamming(vec_bit(v.code), vec_quantize_binary(?)) LIMIT ?`,
        )
        .all(query.projectId, ...params, q, candidates) as Array<{ chunk_id: number }>
    ).map((r) => r.chunk_id);
    return this.toHits(this.stmt.rescore.all(q, JSON.stringify(ids), query.k));
  }

  /**
   * The share of a project's documents a filter matches: counted in projects up to
   * {@link SAMPLE_FROM_DOCUMENTS} documents, estimated from every n-th document id (n prime, so
   * metadata that cycles with insertion order is less likely to line up with it) in larger ones,
   * where a full count costs as much as the search (60 ms at 200k documents, 12 ms sampled).
   */
  private filteredShare(projectId: number, sql: string, params: Array<string | number>): number {
    const documents = this.projectDocuments(projectId);
    const step = documents <= this.sampleFromDocuments ? 1 : primeAtLeast(Math.ceil(documents / SAMPLE_SIZE));
    const row = this.db
      .prepare(
        `SELECT count(*) AS sampled, coalesce(sum(CASE WHEN ${sql} THEN 1 ELSE 0 END), 0) AS n
         FROM documents d WHERE d.project_id = ? AND d.id % ? = 0`,
      )
      .get(...params, projectId, step) as { sampled: number; n: number } | undefined;
    return row && row.sampled > 0 ? row.n / row.sampled : 0;
  }

  /** Embedded chunks of a project, cached briefly: it only picks the search strategy. */
  private projectVectors(projectId: number): number {
    return this.projectCounts(projectId).n;
  }

  private projectDocuments(projectId: number): number {
    return this.projectCounts(projectId).documents;
  }

  private projectCounts(projectId: number): { n: number; documents: number } {
    const now = Date.now();
    const cached = this.projectSize.get(projectId);
    if (cached && now - cached.at < COUNT_TTL_MS) return cached;
    const counts = {
      n: this.stmt.countProjectVectors.get(projectId, projectId)?.n ?? 0,
      documents: this.stmt.countProjectDocuments.get(projectId)?.n ?? 0,
      at: now,
    };
    this.projectSize.set(projectId, counts);
    return counts;
  }

  private toHits(rows: Array<{ chunk_id: number; d: number }>): NearestHit[] {
    return rows.map((r) => ({ chunkId: r.chunk_id, similarity: similarity(r.d) }));
  }

  private write(chunkId: number, projectId: number, embedding: Buffer, embedderId: string): void {
    const bits = this.bits();
    if (!bits) throw new KbqaError('INTERNAL', 'The vector tables are missing; attach an embedder first');
    this.stmt.upsertVector.run(chunkId, embedding);
    this.stmt.upsertCode.run(chunkId, embedding);
    // vec0 has no upsert. Integer keys are bound as BigInt: better-sqlite3 binds numbers as REAL,
    // which a vec0 integer partition key rejects.
    bits.delete.run(BigInt(chunkId));
    bits.insert.run(BigInt(chunkId), BigInt(projectId), embedding);
    this.stmt.markEmbedded.run(embedderId, chunkId);
  }

  private requireMeta(): { embedderId: string; dimension: number } {
    const meta = this.meta();
    if (!meta) {
      throw new KbqaError(
        'INDEX_MISMATCH',
        'No embedding model is attached to the index; call attach() first',
      );
    }
    if (!this.bits()) this.createTables(meta.dimension);
    return meta;
  }

  private recordMeta(embedderId: string, dimension: number): void {
    this.stmt.setMeta.run(META_ID, embedderId);
    this.stmt.setMeta.run(META_DIMENSION, String(dimension));
  }

  private createTables(dimension: number): void {
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vectors_bits USING vec0(
        project_id integer partition key,
        embedding bit[${dimension}])`,
    );
  }

  /** Statements over the vec0 table, once it exists (it is created by attach). */
  private bits(): BitsStatements | undefined {
    if (this.bitsStmt) return this.bitsStmt;
    const exists = this.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunk_vectors_bits'")
      .get();
    if (!exists) return undefined;
    const db = this.db;
    this.bitsStmt = {
      insert: db.prepare<[bigint, bigint, Buffer]>(
        'INSERT INTO chunk_vectors_bits (rowid, project_id, embedding) VALUES (?, ?, vec_quantize_binary(?))',
      ),
      delete: db.prepare<[bigint]>('DELETE FROM chunk_vectors_bits WHERE rowid = ?'),
      deleteOfSource: db.prepare<[number]>(
        'DELETE FROM chunk_vectors_bits WHERE rowid IN (SELECT id FROM chunks WHERE source_id = ?)',
      ),
      knn: db.prepare<[Buffer, number, bigint], { rowid: number }>(
        `SELECT rowid FROM chunk_vectors_bits
         WHERE embedding MATCH vec_quantize_binary(?) AND k = ? AND project_id = ?`,
      ),
    };
    return this.bitsStmt;
  }
}

interface BitsStatements {
  insert: BetterSqlite3.Statement<[bigint, bigint, Buffer]>;
  delete: BetterSqlite3.Statement<[bigint]>;
  deleteOfSource: BetterSqlite3.Statement<[number]>;
  knn: BetterSqlite3.Statement<[Buffer, number, bigint], { rowid: number }>;
}

interface PendingRow {
  id: number;
  project_id: number;
  title: string;
  heading_path: string;
  content: string;
}

function primeAtLeast(n: number): number {
  for (let p = Math.max(2, n); ; p++) {
    let prime = true;
    for (let d = 2; d * d <= p; d++) {
      if (p % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) return p;
  }
}

function assertDimension(dimension: number): void {
  // bit[] columns need a multiple of 8.
  if (!Number.isInteger(dimension) || dimension <= 0 || dimension % 8 !== 0 || dimension > 8192) {
    throw new KbqaError(
      'BAD_REQUEST',
      `Unsupported embedding dimension ${dimension} (a positive multiple of 8 is needed)`,
    );
  }
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Cosine distance (1 - cos) to a similarity in [0, 1]; opposite directions count as unrelated. */
function similarity(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}

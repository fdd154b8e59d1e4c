import type BetterSqlite3 from 'better-sqlite3';
import type { SearchHit, SearchQuery } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';
import { HIT_COLUMNS, type HitRow, toHit } from './hit-row';
import type { LexicalHit, LexicalScore } from './chunk-index';
import type { SqliteVectorIndex } from './vector-index';

/**
 * Hybrid score = LEXICAL_WEIGHT · lexical relevance + (1 − LEXICAL_WEIGHT) · dense relevance, a
 * fixed convex combination of two absolute scores in [0, 1] (lexicalRelevance: question coverage
 * and BM25; cosine similarity clamped to [0, 1]). Unlike rank fusion (RRF), the same chunk and
 * question always get the same score whatever else is in the index, so a score threshold keeps its
 * meaning across queries; a chunk matching both ways outranks one matching only one way.
 */
export const LEXICAL_WEIGHT = 0.5;
/** Candidates taken from each side, per wanted result, before fusion. */
const POOL_FACTOR = 2;
const MIN_POOL = 20;

export interface HybridDeps {
  db: BetterSqlite3.Database;
  vectors: SqliteVectorIndex;
  /** Lexical search of the chunk index (candidate generation), with each hit's ranking relevance. */
  lexical: (query: SearchQuery) => LexicalHit[];
  /** The lexical search as it answers on its own: what hybrid is without a query vector. */
  lexicalSearch: (query: SearchQuery) => SearchHit[];
  /**
   * Lexical relevance of chunks the lexical top list missed, as the lexical search scores them
   * (absent when a chunk does not match the question), not a guess from rank.
   */
  lexicalScores: (query: SearchQuery, chunkIds: number[]) => Map<number, LexicalScore>;
}

/** Vector kNN over one project, metadata filters applied inside the search. */
export function denseSearch(deps: HybridDeps, query: SearchQuery): SearchHit[] {
  const vector = requireVector(query);
  const nearest = deps.vectors.nearest({
    projectId: query.projectId,
    vector,
    k: query.topK,
    filters: query.filters,
  });
  return hydrate(
    deps.db,
    nearest.map((n) => ({ chunkId: n.chunkId, score: n.similarity })),
  );
}

/**
 * Lexical and dense candidates (both filtered inside their searches), each rescored on the other
 * side so every candidate has both relevances, fused with {@link LEXICAL_WEIGHT}. Without a query
 * vector it is the lexical search.
 */
export function hybridSearch(deps: HybridDeps, query: SearchQuery): SearchHit[] {
  if (!query.vector) return deps.lexicalSearch(query);
  const pool = Math.max(MIN_POOL, query.topK * POOL_FACTOR);
  // The dense side starts first: with the project's codes in memory its scan runs on the scan
  // thread while FTS5 ranks the lexical side here. Lexical candidates get exact dense scores
  // below, so the dense side only needs its own top k.
  const collectDense = deps.vectors.beginNearest({
    projectId: query.projectId,
    vector: query.vector,
    k: query.topK,
    filters: query.filters,
  });
  // A scan left uncollected when this throws is waited for before the next one starts.
  const lexicalHits = deps.lexical({ ...query, topK: pool });
  const denseHits = collectDense();
  const ids = new Set([...lexicalHits.map((h) => h.chunkId), ...denseHits.map((h) => h.chunkId)]);
  const dense = new Map<number, number>(denseHits.map((h) => [h.chunkId, h.similarity]));
  const lexicalOnly = lexicalHits.filter((h) => !dense.has(h.chunkId)).map((h) => h.chunkId);
  for (const [id, s] of deps.vectors.similarities(query.vector, lexicalOnly)) dense.set(id, s);
  const lexical = new Map<number, LexicalScore>(
    lexicalHits.map((h) => [h.chunkId, { score: h.score, rankRelevance: h.rankRelevance }]),
  );
  const denseOnly = denseHits.filter((h) => !lexical.has(h.chunkId)).map((h) => h.chunkId);
  for (const [id, s] of deps.lexicalScores(query, denseOnly)) lexical.set(id, s);

  const fused = fuseScores(ids, lexical, dense, query.topK);
  return hydrate(deps.db, fused);
}

function requireVector(query: SearchQuery): Float32Array {
  if (!query.vector) {
    throw new KbqaError('BAD_REQUEST', 'Dense search needs a query vector (SearchQuery.vector)');
  }
  return query.vector;
}

/** Chunk rows for scored ids, in the given order. */
function hydrate(db: BetterSqlite3.Database, scored: Array<{ chunkId: number; score: number }>): SearchHit[] {
  if (scored.length === 0) return [];
  const rows = db
    .prepare<[string], HitRow>(
      `SELECT ${HIT_COLUMNS}
       FROM chunks c JOIN sources s ON s.id = c.source_id
       WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(scored.map((s) => s.chunkId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const hits: SearchHit[] = [];
  for (const { chunkId, score } of scored) {
    const r = byId.get(chunkId);
    if (r) hits.push(toHit(r, score));
  }
  return hits;
}

/**
 * Hybrid order and scores of the candidates `ids` from their lexical scores and vector
 * similarities (a missing one counts as 0): ranked by BM25's curve plus similarity (see
 * rankRelevance), reported with the calibrated lexical score plus similarity, capped by the scores
 * above it so that they never rise down the list. Shared by the SQLite and PostgreSQL stores.
 */
export function fuseScores(
  ids: Iterable<number>,
  lexical: ReadonlyMap<number, LexicalScore>,
  dense: ReadonlyMap<number, number>,
  topK: number,
): Array<{ chunkId: number; rank: number; score: number }> {
  const fuse = (lex: number, chunkId: number) =>
    LEXICAL_WEIGHT * lex + (1 - LEXICAL_WEIGHT) * (dense.get(chunkId) ?? 0);
  const fused = [...ids]
    .map((chunkId) => ({
      chunkId,
      rank: fuse(lexical.get(chunkId)?.rankRelevance ?? 0, chunkId),
      score: fuse(lexical.get(chunkId)?.score ?? 0, chunkId),
    }))
    .sort((a, b) => b.rank - a.rank || a.chunkId - b.chunkId)
    .slice(0, topK);
  let cap = 1;
  for (const f of fused) {
    cap = Math.min(cap, f.score);
    f.score = cap;
  }
  return fused;
}

import type BetterSqlite3 from 'better-sqlite3';
import type { SearchHit, SearchQuery } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';
import {
  fuseScores,
  HIT_COLUMNS,
  type HitRow,
  hybridPool,
  type LexicalHit,
  type LexicalScore,
  toHit,
} from '@kbqa/ranking';
import type { SqliteVectorIndex } from './vector-index';

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
 * side so every candidate has both relevances, fused (fuseScores of @kbqa/ranking). Without a query
 * vector it is the lexical search.
 */
export function hybridSearch(deps: HybridDeps, query: SearchQuery): SearchHit[] {
  if (!query.vector) return deps.lexicalSearch(query);
  const pool = hybridPool(query.topK);
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

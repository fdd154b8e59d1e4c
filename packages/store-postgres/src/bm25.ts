import { tsQueryOf, searchText } from './text-search';
import type { Queryable } from './vector-store';

/** FTS5's bm25() constants, which the SQLite store ranks with. */
const K1 = 1.2;
const B = 0.75;
/** FTS5's floor for the idf of a term on more than half of the rows. */
const MIN_IDF = 1e-6;
/**
 * Weight of an occurrence by the tsvector weight of its column: title A, headings B, prose C,
 * code D, the SQLite store's FTS_WEIGHTS (4, 2.5, 1, 0.5).
 */
const WEIGHT_SQL = "CASE w WHEN 'A' THEN 4.0 WHEN 'B' THEN 2.5 WHEN 'C' THEN 1.0 ELSE 0.5 END";
const STATS_TTL_MS = 5_000;
const MAX_CACHED_DFS = 10_000;

/** One query term (a word, or a compound identifier's words as a phrase) and its share of the score. */
export interface RankTerm {
  /** A matchTerms term, quoted. */
  term: string;
  /** 1 for the question's own terms, CONTEXT_WEIGHT for context terms. */
  factor: number;
}

interface PreparedTerm {
  factor: number;
  /** The term's tsquery (a phrase for several words). */
  query: string;
  lexemes: string[];
  idf: number;
}

/**
 * BM25 as FTS5 computes it, from term statistics Postgres keeps anyway: each chunk's weighted
 * term frequencies are read from its tsvector (positions and their weights), its length from
 * `chunks.doc_len`, document frequencies from the GIN index (one count per term, cached while the
 * chunk count stays the same) and the average length from the table. ts_rank_cd, Postgres's own
 * ranking, fell 0.13 hit@1 short of the SQLite store on the fastify-docs questions; this is the
 * ranking the SQLite store uses, with its column weights, k1 and b.
 */
export class Bm25Ranker {
  private stats = { rows: 0, avgLength: 0, at: 0 };
  private dfs = { rows: -1, n: new Map<string, number>() };

  constructor(private readonly db: Queryable) {}

  /**
   * BM25 of every chunk that `scope` selects and that matches `match` (a tsquery), by chunk id.
   * `scope` is SQL over `chunks c` (and `documents d` when `joinDocuments`), its parameters from $4.
   */
  async scores(
    terms: RankTerm[],
    match: string,
    scope: { sql: string; params: unknown[]; joinDocuments: boolean },
  ): Promise<Map<number, number>> {
    const prepared = await this.prepare(terms);
    const out = new Map<number, number>();
    if (prepared.length === 0) return out;
    const { avgLength } = await this.indexStats();
    const lexemes = [...new Set(prepared.flatMap((t) => t.lexemes))];
    const phrases = prepared.filter((t) => t.lexemes.length > 1);
    const { rows } = await this.db.query<{
      id: number;
      doc_len: number;
      tfs: Record<string, number>;
      phrases: boolean[];
    }>(
      `WITH q AS (SELECT to_tsquery('kbqa_english', $1) AS main)
       SELECT c.id, c.doc_len,
         (SELECT coalesce(json_object_agg(x.lexeme, x.tf), '{}'::json) FROM (
            SELECT u.lexeme, sum(${WEIGHT_SQL})::float8 AS tf
            FROM unnest(c.tsv) AS u (lexeme, positions, weights), unnest(u.weights) AS w
            WHERE u.lexeme = ANY($2::text[]) GROUP BY u.lexeme) x) AS tfs,
         ARRAY(SELECT c.tsv @@ to_tsquery('kbqa_english', p)
               FROM unnest($3::text[]) WITH ORDINALITY AS t (p, i) ORDER BY i) AS phrases
       FROM q, chunks c ${scope.joinDocuments ? 'JOIN documents d ON d.id = c.document_id' : ''}
       WHERE c.tsv @@ q.main AND ${scope.sql}`,
      [match, lexemes, phrases.map((p) => p.query), ...scope.params],
    );
    for (const r of rows) {
      const norm = K1 * (1 - B + (B * r.doc_len) / (avgLength || 1));
      let score = 0;
      for (const t of prepared) {
        let tf: number;
        if (t.lexemes.length === 1) {
          tf = r.tfs[t.lexemes[0]!] ?? 0;
        } else {
          // A phrase's frequency is at most that of its rarest word; counted only where it matches.
          tf = r.phrases[phrases.indexOf(t)] ? Math.min(...t.lexemes.map((l) => r.tfs[l] ?? 0)) : 0;
        }
        if (tf > 0) score += t.factor * t.idf * ((tf * (K1 + 1)) / (tf + norm));
      }
      out.set(r.id, score);
    }
    return out;
  }

  /** Lexemes (as the index stems them), tsquery and idf of each term; stop-word-only terms drop out. */
  private async prepare(terms: RankTerm[]): Promise<PreparedTerm[]> {
    if (terms.length === 0) return [];
    const { rows } = await this.db.query<{ i: string; lexemes: string[] }>(
      `SELECT i, tsvector_to_array(to_tsvector('kbqa_english', t)) AS lexemes
       FROM unnest($1::text[]) WITH ORDINALITY AS x (t, i)`,
      [terms.map((t) => searchText(t.term))],
    );
    const withLexemes = rows
      .map((r) => ({ term: terms[Number(r.i) - 1]!, lexemes: r.lexemes }))
      .filter((t) => t.lexemes.length > 0)
      .map((t) => ({ factor: t.term.factor, query: tsQueryOf([t.term.term]) ?? '', lexemes: t.lexemes }));
    const df = await this.documentFrequencies(withLexemes.map((t) => t.query));
    const { rows: total } = await this.indexStats();
    return withLexemes.map((t) => {
      const n = Math.min(total, df.get(t.query) ?? 0);
      return { ...t, idf: Math.max(MIN_IDF, Math.log((total - n + 0.5) / (n + 0.5))) };
    });
  }

  /** Chunks in the whole index matching each tsquery, as FTS5 counts over the whole table. */
  private async documentFrequencies(queries: string[]): Promise<Map<string, number>> {
    const { rows: total } = await this.indexStats();
    if (this.dfs.rows !== total) this.dfs = { rows: total, n: new Map() };
    const cache = this.dfs.n;
    const missing = [...new Set(queries)].filter((q) => !cache.has(q));
    if (missing.length > 0) {
      if (cache.size + missing.length > MAX_CACHED_DFS) cache.clear();
      const { rows } = await this.db.query<{ q: string; n: number }>(
        `SELECT q, (SELECT count(*)::int FROM chunks WHERE tsv @@ to_tsquery('kbqa_english', q)) AS n
         FROM unnest($1::text[]) AS q`,
        [missing],
      );
      for (const r of rows) cache.set(r.q, r.n);
    }
    return cache;
  }

  /** Chunk count and average length of the whole index, re-read at most every STATS_TTL_MS. */
  async indexStats(): Promise<{ rows: number; avgLength: number }> {
    const now = Date.now();
    if (now - this.stats.at > STATS_TTL_MS) {
      const { rows } = await this.db.query<{ n: number; avg: number }>(
        'SELECT count(*)::int AS n, coalesce(avg(doc_len), 0)::float8 AS avg FROM chunks',
      );
      this.stats = { rows: rows[0]?.n ?? 0, avgLength: rows[0]?.avg ?? 0, at: now };
    }
    return { rows: this.stats.rows, avgLength: this.stats.avgLength };
  }
}

/** Words of a chunk as BM25 counts its length: title, heading path and body. */
export function documentLength(title: string, headings: string, content: string): number {
  const words = (s: string) => (s === '' ? 0 : s.split(' ').length);
  return words(searchText(title)) + words(searchText(headings)) + words(searchText(content));
}

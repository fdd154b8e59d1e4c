import { B, bm25Idf, indexOfId, K1, ScoreSum } from '@kbqa/ranking';
import { INDEX_GENERATION_SQL, type PostingList, PostingsCache } from './postings-cache';
import { tsQueryOf, searchText } from './text-search';
import type { Queryable } from './vector-store';

/**
 * Weight of an occurrence by the tsvector weight of its column: title A, headings B, prose C,
 * code D, the SQLite store's FTS_WEIGHTS (4, 2.5, 1, 0.5).
 */
export const WEIGHT_SQL = "CASE w WHEN 'A' THEN 4.0 WHEN 'B' THEN 2.5 WHEN 'C' THEN 1.0 ELSE 0.5 END";
const MAX_CACHED_DFS = 10_000;

/** One query term (a word, or a compound identifier's words as a phrase) and its share of the score. */
export interface RankTerm {
  /** A matchTerms term, quoted. */
  term: string;
  /** 1 for the question's own terms, CONTEXT_WEIGHT for context terms. */
  factor: number;
}

/** SQL over `chunks c` (and `documents d` when `joinDocuments`), its parameters from $4. */
export interface Scope {
  sql: string;
  params: unknown[];
  joinDocuments: boolean;
}

/**
 * Candidates scored exactly per result wanted. The postings aggregate overrates only chunks
 * holding a phrase's words apart; twice the pool and some leave room for those to drop out.
 */
const CANDIDATE_FACTOR = 3;

/** Below this many postings of the question's words in the project, every matching chunk is scored. */
const PRUNE_ABOVE_POSTINGS = 5_000;

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
 * `chunks.doc_len`, document frequencies from the GIN index (one count per term) and the chunk
 * count and average length from the table. Those index-wide statistics are held for one
 * generation of the index ({@link INDEX_GENERATION_SQL}), which the held postings' statement reads
 * on every question, so they follow every write without a round trip of their own. ts_rank_cd, Postgres's own
 * ranking, fell 0.13 hit@1 short of the SQLite store on the fastify-docs questions; this is the
 * ranking the SQLite store uses, with its column weights, k1 and b.
 */
export class Bm25Ranker {
  /** The index's generation as last read; -1 before the first read. */
  private generation = -1;
  private stats = { rows: 0, avgLength: 0, generation: -1 };
  /** The read of the statistics in flight, shared by the questions that find them out of date. */
  private statsRead: { generation: number; done: Promise<void> } | undefined;
  private dfs = { generation: -1, n: new Map<string, number>() };
  private postings = { generation: -1, n: new Map<string, number>() };
  private readonly cache: PostingsCache | undefined;
  private readonly sum = new ScoreSum();
  /**
   * Lexemes of each term text as kbqa_english stems it (a configuration migration 1 fixes, so
   * they never change): one round trip a question fewer.
   */
  private readonly lexemesOf = new Map<string, string[]>();

  /** `cachedPostings`: postings held in the process (see {@link PostingsCache}); 0 sums in SQL. */
  constructor(
    private readonly db: Queryable,
    private readonly pruneAbove = PRUNE_ABOVE_POSTINGS,
    cachedPostings?: number,
  ) {
    this.cache = cachedPostings === 0 ? undefined : new PostingsCache(db, cachedPostings);
  }

  /**
   * BM25 of every chunk that `scope` selects and that matches `match` (a tsquery), by chunk id.
   * `scope` is SQL over `chunks c` (and `documents d` when `joinDocuments`), its parameters from $4.
   * Reads each selected chunk's tsvector: meant for a few chunks (see {@link top} for a project).
   */
  async scores(terms: RankTerm[], match: string, scope: Scope): Promise<Map<number, number>> {
    return this.exactScores(await this.prepare(terms), match, scope);
  }

  /** The index's generation the statistics are held for (-1 before the first read). */
  get indexGeneration(): number {
    return this.generation;
  }

  /**
   * Whether {@link top} reads the index's generation itself (from held postings, without a
   * `where` filter). Otherwise the caller reads it with {@link syncGeneration} before weighing a
   * question's terms, so statistics held from before a write are not used.
   */
  readsGeneration(filterSql: string): boolean {
    return this.cache !== undefined && filterSql === '';
  }

  /** Reads the index's generation; statistics held for another one are read again when next used. */
  async syncGeneration(): Promise<void> {
    const { rows } = await this.db.query<{ g: number }>({
      name: 'kbqa_index_generation',
      text: `SELECT (${INDEX_GENERATION_SQL}) AS g`,
    });
    this.generation = rows[0]?.g ?? 0;
  }

  /**
   * The `limit` best chunks of a project by BM25 (within `filter`, SQL over `documents d` with
   * parameters from $5), by chunk id. Undefined when the index's generation, read with the held
   * postings, shows a write since the statistics the terms were weighed with (unless `staleOk`):
   * the caller plans the question again, and the statistics are then read afresh. The postings
   * table gives every candidate's score in one aggregate, a compound identifier's phrase counted
   * wherever all its words occur; the best
   * `limit` × {@link CANDIDATE_FACTOR} of those are then scored exactly from their tsvectors
   * (phrases only where the words are adjacent, chunks that do not match `match` dropped), so
   * the order is the exact BM25 order while only a few tsvectors are read.
   */
  async top(
    terms: RankTerm[],
    match: string,
    projectId: number,
    filter: { sql: string; params: unknown[] },
    limit: number,
    staleOk = false,
  ): Promise<Map<number, number> | undefined> {
    const prepared = await this.prepare(terms);
    if (prepared.length === 0) return new Map();
    const want = limit * CANDIDATE_FACTOR;
    // A `where` filter reads the documents' metadata: that stays a query.
    if (this.cache && !filter.sql) {
      const lexemes = [...new Set(prepared.flatMap((t) => t.lexemes))];
      const weighedAt = this.generation;
      const { lists, indexGeneration } = await this.cache.lists(projectId, lexemes);
      this.generation = indexGeneration;
      if (indexGeneration !== weighedAt && !staleOk) return undefined;
      if (lists) return this.topFromLists(prepared, match, lists, want);
    }
    const counts = await this.postingCounts(projectId, [...new Set(prepared.flatMap((t) => t.lexemes))]);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    let rows: Array<{ id: number; score: number }>;
    if (total <= this.pruneAbove) {
      rows = await this.bounds(prepared, projectId, filter, want, undefined);
    } else {
      // MaxScore: each term adds at most weight × (k1 + 1) to a chunk. With θ the want-th best
      // score among chunks holding the rarest terms, the terms whose maxima sum below θ cannot
      // lift a chunk that has none of the others into the result: only chunks holding one of
      // the others are scored, and the postings of common words are read for those alone.
      const cost = (t: PreparedTerm): number => Math.min(...t.lexemes.map((l) => counts.get(l) ?? 0));
      const rarest = (t: PreparedTerm): string =>
        t.lexemes.reduce((a, b) => ((counts.get(b) ?? 0) < (counts.get(a) ?? 0) ? b : a));
      const byCost = [...prepared].sort((a, b) => cost(a) - cost(b));
      const first: PreparedTerm[] = [];
      let seen = 0;
      for (const t of byCost) {
        if (first.length > 0 && seen >= want * 4) break;
        first.push(t);
        seen += cost(t);
      }
      const most = (t: PreparedTerm): number => t.factor * t.idf * (K1 + 1);
      rows = await this.bounds(prepared, projectId, filter, want, first.map(rarest));
      const theta = rows.length >= want ? rows[want - 1]!.score : 0;
      const byMost = [...prepared].sort((a, b) => most(a) - most(b));
      let rest = 0;
      let skipped = 0;
      while (skipped < byMost.length && rest + most(byMost[skipped]!) < theta)
        rest += most(byMost[skipped++]!);
      const essential = byMost.slice(skipped);
      // The first candidates hold every chunk an essential term reaches: their best are final.
      if (essential.some((t) => !first.includes(t))) {
        const reach = essential.length < prepared.length ? essential.map(rarest) : undefined;
        rows = await this.bounds(prepared, projectId, filter, want, reach);
      }
    }
    if (rows.length === 0) return new Map();
    return this.exactScores(prepared, match, {
      sql: 'c.id = ANY($4::int[])',
      params: [rows.map((r) => r.id)],
      joinDocuments: false,
    });
  }

  /**
   * The `want` best chunks of a project by the postings' score: exact BM25 for single words, and
   * for a phrase its words' least frequency wherever all occur (adjacent or not, so never below
   * the exact score). With `candidates`, only chunks holding one of those lexemes are scored.
   */
  private async bounds(
    prepared: PreparedTerm[],
    projectId: number,
    filter: { sql: string; params: unknown[] },
    want: number,
    candidates: string[] | undefined,
  ): Promise<Array<{ id: number; score: number }>> {
    const { avgLength } = await this.indexStats();
    const single = new Map<string, number>();
    const phrases: PreparedTerm[] = [];
    for (const t of prepared) {
      if (t.lexemes.length === 1)
        single.set(t.lexemes[0]!, (single.get(t.lexemes[0]!) ?? 0) + t.factor * t.idf);
      else phrases.push(t);
    }
    const lexemes = [...new Set(prepared.flatMap((t) => t.lexemes))];
    // $1 project, $2 lexemes, $3 weights of single lexemes, $4 average length, the filter's from $5,
    // then each phrase's words and weight, the candidates' lexemes, the limit.
    const params: unknown[] = [
      projectId,
      lexemes,
      lexemes.map((l) => single.get(l) ?? 0),
      avgLength || 1,
      ...filter.params,
    ];
    const norm = `(${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * max(p.doc_len) / $4::float8))`;
    const termScore = (tf: string): string => `(${tf}) * ${K1 + 1}::float8 / ((${tf}) + ${norm})`;
    // float8 literals: a bare 0.75 times an integer is numeric arithmetic, several times slower per row.
    const singles = `sum(w.weight * p.tf * ${K1 + 1}::float8 / (p.tf + ${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * p.doc_len / $4::float8)))`;
    const phraseSql = phrases.map((t) => {
      params.push(t.lexemes, t.factor * t.idf);
      const words = `$${params.length - 1}::text[]`;
      const weight = `$${params.length}::float8`;
      const tf = `min(p.tf) FILTER (WHERE p.lexeme = ANY(${words}))`;
      return `CASE WHEN count(DISTINCT p.lexeme) FILTER (WHERE p.lexeme = ANY(${words})) = cardinality(${words})
        THEN ${weight} * ${termScore(tf)} ELSE 0 END`;
    });
    let only = '';
    if (candidates) {
      params.push([...new Set(candidates)]);
      only = `AND p.chunk_id IN (SELECT chunk_id FROM chunk_postings
        WHERE project_id = $1 AND lexeme = ANY($${params.length}::text[]))`;
    }
    params.push(want);
    const { rows } = await this.db.query<{ id: number; score: number }>(
      `SELECT s.id, s.score FROM (
         SELECT p.chunk_id AS id, ${[singles, ...phraseSql].join(' + ')} AS score
         FROM chunk_postings p JOIN unnest($2::text[], $3::float8[]) AS w (lexeme, weight) ON w.lexeme = p.lexeme
         WHERE p.project_id = $1 ${only}
         GROUP BY p.chunk_id) s
       ${filter.sql ? `JOIN chunks c ON c.id = s.id JOIN documents d ON d.id = c.document_id WHERE ${filter.sql}` : ''}
       ORDER BY s.score DESC, s.id LIMIT $${params.length}`,
      params,
    );
    return rows;
  }

  /** Postings of each lexeme in a project, held for one generation of the index. */
  private async postingCounts(projectId: number, lexemes: string[]): Promise<Map<string, number>> {
    await this.indexStats();
    if (this.postings.generation !== this.generation)
      this.postings = { generation: this.generation, n: new Map() };
    const cache = this.postings.n;
    const key = (l: string): string => `${projectId}\u0000${l}`;
    const missing = lexemes.filter((l) => !cache.has(key(l)));
    if (missing.length > 0) {
      if (cache.size + missing.length > MAX_CACHED_DFS) cache.clear();
      const { rows } = await this.db.query<{ lexeme: string; n: number }>(
        `SELECT l AS lexeme, (SELECT count(*)::int FROM chunk_postings WHERE project_id = $1 AND lexeme = l) AS n
         FROM unnest($2::text[]) AS l`,
        [projectId, missing],
      );
      for (const r of rows) cache.set(key(r.lexeme), r.n);
    }
    return new Map(lexemes.map((l) => [l, cache.get(key(l)) ?? 0]));
  }

  private async exactScores(
    prepared: PreparedTerm[],
    match: string,
    scope: Scope,
  ): Promise<Map<number, number>> {
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
      out.set(
        r.id,
        exactScore(prepared, phrases, (l) => r.tfs[l] ?? 0, r.phrases, r.doc_len, avgLength),
      );
    }
    return out;
  }

  /**
   * {@link top} from postings held in the process: the same bounds as {@link bounds} summed
   * here over every chunk holding a question word, then the best `want` scored exactly by
   * {@link exactScore} from the same term frequencies the tsvectors give (the postings hold
   * them exactly). The tsvectors are read only for what postings cannot tell: whether a phrase's
   * words are adjacent, and, with context terms, whether a chunk matches the question's own.
   */
  private async topFromLists(
    prepared: PreparedTerm[],
    match: string,
    lists: Map<string, PostingList>,
    want: number,
  ): Promise<Map<number, number>> {
    const { avgLength } = await this.indexStats();
    const avg = avgLength || 1;
    const lexemes = [...lists.keys()];
    const slot = new Map(lexemes.map((l, i) => [l, i]));
    const weights = new Float64Array(lexemes.length);
    const phrases = prepared.filter((t) => t.lexemes.length > 1);
    for (const t of prepared)
      if (t.lexemes.length === 1) weights[slot.get(t.lexemes[0]!)!]! += t.factor * t.idf;
    const ordered = lexemes.map((l) => lists.get(l)!);
    let maxId = -1;
    for (const l of ordered)
      if (l.chunkIds.length > 0) maxId = Math.max(maxId, l.chunkIds[l.chunkIds.length - 1]!);
    const sum = this.sum;
    sum.begin(maxId);
    // Per chunk in the order the SQL bound adds them: single words by slot, then phrases.
    ordered.forEach((list, i) => sum.addBm25(list.chunkIds, list.tfs, list.docLens, weights[i]!, K1, B, avg));
    for (const t of phrases) {
      // As the SQL bound: a phrase repeating a word never counts (its distinct words fall short).
      if (new Set(t.lexemes).size !== t.lexemes.length) continue;
      const words = t.lexemes.map((l) => lists.get(l)!);
      const weight = t.factor * t.idf;
      forEachCommon(words, (id, tf, docLen) => {
        if (tf > 0) sum.add(id, (weight * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * docLen) / avg)));
      });
    }
    const top = sum.top(want);
    const out = new Map<number, number>();
    if (top.length === 0) return out;
    // Without phrases or context terms, every chunk holding a term's word matches the question.
    let checked: Map<number, boolean[]> | undefined;
    if (phrases.length > 0 || prepared.some((t) => t.factor !== 1)) {
      // Named: prepared once per connection, as the other statements a question runs.
      const { rows } = await this.db.query<{ id: number; phrases: boolean[] }>({
        name: 'kbqa_phrase_matches',
        text: `WITH q AS (SELECT to_tsquery('kbqa_english', $1) AS main)
         SELECT c.id, ARRAY(SELECT c.tsv @@ to_tsquery('kbqa_english', p)
                            FROM unnest($2::text[]) WITH ORDINALITY AS t (p, i) ORDER BY i) AS phrases
         FROM q, chunks c WHERE c.id = ANY($3::int[]) AND c.tsv @@ q.main`,
        values: [match, phrases.map((p) => p.query), top],
      });
      checked = new Map(rows.map((r) => [r.id, r.phrases]));
    }
    for (const id of top) {
      const matched = checked ? checked.get(id) : [];
      if (!matched) continue;
      let docLen = 0;
      const tfOf = new Map<string, number>();
      for (const l of lexemes) {
        const list = lists.get(l)!;
        const j = indexOfId(list.chunkIds, id);
        if (j < 0) continue;
        tfOf.set(l, list.tfs[j]!);
        docLen = list.docLens[j]!;
      }
      out.set(
        id,
        exactScore(prepared, phrases, (l) => tfOf.get(l) ?? 0, matched, docLen, avgLength),
      );
    }
    return out;
  }

  /** Lexemes (as the index stems them), tsquery and idf of each term; stop-word-only terms drop out. */
  private async prepare(terms: RankTerm[]): Promise<PreparedTerm[]> {
    if (terms.length === 0) return [];
    const texts = terms.map((t) => searchText(t.term));
    const missing = [...new Set(texts.filter((t) => !this.lexemesOf.has(t)))];
    if (missing.length > 0) {
      const { rows } = await this.db.query<{ t: string; lexemes: string[] }>(
        `SELECT t, tsvector_to_array(to_tsvector('kbqa_english', t)) AS lexemes FROM unnest($1::text[]) AS t`,
        [missing],
      );
      if (this.lexemesOf.size + missing.length > MAX_CACHED_DFS) this.lexemesOf.clear();
      for (const r of rows) this.lexemesOf.set(r.t, r.lexemes);
    }
    const withLexemes = terms
      .map((term, i) => ({ term, lexemes: this.lexemesOf.get(texts[i]!) ?? [] }))
      .filter((t) => t.lexemes.length > 0)
      .map((t) => ({ factor: t.term.factor, query: tsQueryOf([t.term.term]) ?? '', lexemes: t.lexemes }));
    const df = await this.documentFrequencies(withLexemes.map((t) => t.query));
    const { rows: total } = await this.indexStats();
    return withLexemes.map((t) => {
      const n = Math.min(total, df.get(t.query) ?? 0);
      return { ...t, idf: bm25Idf(n, total) };
    });
  }

  /**
   * Chunks in the whole index matching each tsquery, as FTS5 counts over the whole table, held for
   * one generation of the index: keyed on the chunk count, they outlived writes that left it equal.
   */
  private async documentFrequencies(queries: string[]): Promise<Map<string, number>> {
    await this.indexStats();
    if (this.dfs.generation !== this.generation) this.dfs = { generation: this.generation, n: new Map() };
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

  /**
   * Chunk count and average length of the whole index, held for one generation of the index
   * (read first if none was). Read after the generation, so they are at least as new as it: a
   * write in between raises the generation the next read finds, and they are read again. The read
   * scans every chunk, so the questions that find it due share
   * one: before, each chat in flight ran its own, some 25 at once under 50 clients.
   */
  async indexStats(): Promise<{ rows: number; avgLength: number }> {
    if (this.generation < 0) await this.syncGeneration();
    if (this.stats.generation !== this.generation) {
      const generation = this.generation;
      let read = this.statsRead;
      if (read?.generation !== generation) {
        const started = { generation, done: this.readIndexStats(generation) };
        this.statsRead = read = started;
        void started.done
          .finally(() => {
            if (this.statsRead === started) this.statsRead = undefined;
          })
          .catch(() => undefined);
      }
      await read.done;
    }
    return { rows: this.stats.rows, avgLength: this.stats.avgLength };
  }

  private async readIndexStats(generation: number): Promise<void> {
    const { rows } = await this.db.query<{ n: number; avg: number }>(
      'SELECT count(*)::int AS n, coalesce(avg(doc_len), 0)::float8 AS avg FROM chunks',
    );
    this.stats = { rows: rows[0]?.n ?? 0, avgLength: rows[0]?.avg ?? 0, generation };
  }
}

/**
 * Calls `visit` for each chunk in all of `lists` (each by ascending chunk id), in id order, with
 * its least tf over them and its length.
 */
export function forEachCommon(
  lists: PostingList[],
  visit: (id: number, tf: number, docLen: number) => void,
): void {
  if (lists.length === 0) return;
  const at = new Int32Array(lists.length);
  const shortest = lists.reduce((a, b) => (b.chunkIds.length < a.chunkIds.length ? b : a));
  outer: for (let k = 0; k < shortest.chunkIds.length; k++) {
    const id = shortest.chunkIds[k]!;
    let tf = Infinity;
    let docLen = 0;
    for (let i = 0; i < lists.length; i++) {
      const ids = lists[i]!.chunkIds;
      let j = at[i]!;
      while (j < ids.length && ids[j]! < id) j++;
      at[i] = j;
      if (j === ids.length) return;
      if (ids[j] !== id) continue outer;
      tf = Math.min(tf, lists[i]!.tfs[j]!);
      docLen = lists[i]!.docLens[j]!;
    }
    visit(id, tf, docLen);
  }
}

/**
 * A chunk's BM25 from its term frequencies (`tf` of a lexeme, 0 where absent) and, for each of
 * `phrases` in order, whether the chunk matches it (its words adjacent). One function for both
 * ways of reading them, so both give the same number to the last bit.
 */
function exactScore(
  prepared: PreparedTerm[],
  phrases: PreparedTerm[],
  tf: (lexeme: string) => number,
  phraseMatches: boolean[],
  docLen: number,
  avgLength: number,
): number {
  const norm = K1 * (1 - B + (B * docLen) / (avgLength || 1));
  let score = 0;
  for (const t of prepared) {
    // A phrase's frequency is at most that of its rarest word; counted only where it matches.
    const f =
      t.lexemes.length === 1
        ? tf(t.lexemes[0]!)
        : phraseMatches[phrases.indexOf(t)]
          ? Math.min(...t.lexemes.map(tf))
          : 0;
    if (f > 0) score += t.factor * t.idf * ((f * (K1 + 1)) / (f + norm));
  }
  return score;
}

/** Words of a chunk as BM25 counts its length: title, heading path and body. */
export function documentLength(title: string, headings: string, content: string): number {
  const words = (s: string) => (s === '' ? 0 : s.split(' ').length);
  return words(searchText(title)) + words(searchText(headings)) + words(searchText(content));
}

import type { SearchHit, SearchQuery } from '@kbqa/core';
import { coverageOf, matchTerms, queryStems, stemsFound } from './query-terms';

/**
 * Lexical candidates re-ranked by relevance (which weighs query-term coverage), as a multiple of
 * topK: coverage only reorders passages BM25 already ranks near the top, so a small pool is enough.
 */
const RERANK_POOL = 2;
const MAX_RERANK_POOL = 100;
/** Score factor of a passage that covers none of the query terms in ranking; all of them gives 1. */
export const UNCOVERED_FACTOR = 0.75;
/** Share of its BM25 a context term (SearchQuery.context) adds, and of its weight in coverage. */
export const CONTEXT_WEIGHT = 0.5;
/**
 * Least weight of a query word in coverage. Its idf, ln(1 + (N - n + 0.5) / (n + 0.5)), falls to
 * 0 for a word on every passage, so on a four-page site the words of "How do I install Acme?"
 * would weigh nothing and a right answer would score near 0; with the floor they still count,
 * a third as much as a word on one passage in ten.
 */
export const IDF_FLOOR = 0.8;
/** BM25 at which its half of the relevance reaches one half (see {@link lexicalRelevance}). */
const BM25_HALF = 8;
/** Share of the relevance that comes from coverage alone; the rest scales with BM25. */
const COVERAGE_BASE = 0.5;

/** Lexical candidates read for a search of `topK` results, re-ranked by relevance after. */
export function rerankPool(topK: number): number {
  return Math.max(topK, Math.min(topK * RERANK_POOL, MAX_RERANK_POOL));
}

/** Coverage weight of a stem on `n` of `rows` passages: its idf, at least {@link IDF_FLOOR}. */
export function coverageIdf(n: number, rows: number): number {
  return Math.max(IDF_FLOOR, Math.log(1 + (rows - n + 0.5) / (n + 0.5)));
}

/**
 * What hybrid fusion ranks by on the lexical side: the coverage-scaled BM25 that orders lexical
 * results, through the fixed curve s / (s + 8). The calibrated score (lexicalRelevance) is flatter
 * by design (coverage decides most of it), and ranking fused results by it let a noisy dense
 * similarity decide more of the order: hit@1 of hybrid with the test model fell from 0.533 to
 * 0.489 (bench/retrieval/quality.js). It still is the score a hit reports.
 */
export function rankRelevance(rank: number): number {
  const s = Math.max(0, rank);
  return s / (s + BM25_HALF);
}

/** A lexical result with the relevance hybrid fusion ranks it by. */
export type LexicalHit = SearchHit & { rankRelevance: number };
/** The lexical side of a chunk found by the dense search: its reported score and its ranking relevance. */
export interface LexicalScore {
  score: number;
  rankRelevance: number;
}

/**
 * Relevance in [0, 1] of a passage with BM25 `raw` that holds the share `coverage` (weighted, see
 * IDF_FLOOR) of the question: coverage · (COVERAGE_BASE + (1 − COVERAGE_BASE) · raw / (raw +
 * BM25_HALF)). Coverage says whether the passage is about the question even where BM25 is near 0
 * (a word on every page of a small site); BM25, through a fixed saturating curve, says how
 * strongly. Both are absolute, so the same passage and question score the same in any query.
 */
export function lexicalRelevance(raw: number, coverage: number): number {
  const s = Math.max(0, raw);
  const c = Math.min(1, Math.max(0, coverage));
  return c * (COVERAGE_BASE + (1 - COVERAGE_BASE) * (s / (s + BM25_HALF)));
}

/**
 * Coverage weights of a query's stems (their idf) and of its context's stems (idf ×
 * {@link CONTEXT_WEIGHT}), with the share of a full term each counts for. The stores differ only in
 * where the idf comes from.
 */
export function weighStems(
  stems: readonly string[],
  contextStems: readonly string[],
  idf: (stem: string) => number,
): { weights: Map<string, number>; shares: Map<string, number> } {
  const weights = new Map<string, number>();
  const shares = new Map<string, number>();
  for (const s of stems) {
    weights.set(s, idf(s));
    shares.set(s, 1);
  }
  for (const s of contextStems) {
    weights.set(s, CONTEXT_WEIGHT * idf(s));
    shares.set(s, CONTEXT_WEIGHT);
  }
  return { weights, shares };
}

/** What a lexical search matches and how it weighs each query stem. */
export interface LexicalPlan {
  /** The quoted terms of the question (matchTerms). */
  mainTerms: string[];
  /** The quoted terms of the context that the question does not have (none without context). */
  contextTerms: string[];
  /** Relevance coverage weight per stem: idf (at least IDF_FLOOR), context stems scaled down. */
  weights: Map<string, number>;
  /** Ranking coverage weight per stem: 1, context stems scaled down. */
  shares: Map<string, number>;
}

/** The words of a query a lexical search plans with, before their idfs are known. */
export interface QueryWords {
  /** The quoted terms of the question (matchTerms), at least one. */
  terms: string[];
  /** The question's stems (queryStems). */
  stems: string[];
  /** The context's stems the question does not have. */
  contextStems: string[];
  /** The context's text (empty without one, or when it stood in for the question). */
  context: string;
}

/**
 * The terms and stems of a query; undefined without a search term. A question of stop words only
 * ("and then?") is searched as its context.
 */
export function queryWords(query: Pick<SearchQuery, 'text' | 'context'>): QueryWords | undefined {
  let text = query.text;
  let context = query.context ?? '';
  if (context.trim() !== '' && queryStems(text).length === 0) [text, context] = [context, ''];
  const terms = matchTerms(text);
  if (terms.length === 0) return undefined;
  const stems = queryStems(text);
  const contextStems = queryStems(context).filter((s) => !stems.includes(s));
  return { terms, stems, contextStems, context };
}

/**
 * The MATCH terms of a query (the question's own, and the context's it does not already have) and
 * the coverage weight of each stem, given the stems' idfs (each store reads them from its index).
 */
export function planLexical(words: QueryWords, idf: (stem: string) => number): LexicalPlan {
  const { weights, shares } = weighStems(words.stems, words.contextStems, idf);
  const own = new Set(words.terms);
  const contextTerms =
    words.contextStems.length > 0 ? matchTerms(words.context).filter((t) => !own.has(t)) : [];
  return { mainTerms: words.terms, contextTerms, weights, shares };
}

/** A passage as coverage reads it: its title, heading path and text. */
export function passageText(title: string, headingPath: readonly string[], content: string): string {
  return `${title}\n${headingPath.join('\n')}\n${content}`;
}

/**
 * A passage's place and relevance from its raw BM25 (context share included): `rank`, BM25
 * scaled down for passages that cover few of the question's stems (by {@link UNCOVERED_FACTOR}),
 * orders the candidates; `score` is its {@link lexicalRelevance}. The passage is read once for
 * both (stemming passages was a third of a lexical search's CPU at 100k chunks).
 */
export function scorePassage(
  plan: LexicalPlan,
  raw: number,
  passage: string,
): { rank: number; score: number } {
  // Shares and weights have the same stems.
  const found = stemsFound(plan.weights, passage);
  const rank = raw * (UNCOVERED_FACTOR + (1 - UNCOVERED_FACTOR) * coverageOf(plan.shares, found));
  return { rank, score: lexicalRelevance(raw, coverageOf(plan.weights, found)) };
}

/** Lexical hits as a search returns them: each score capped by those above it, so scores never rise down the list. */
export function cappedHits(ranked: readonly LexicalHit[]): SearchHit[] {
  let cap = 1;
  return ranked.map(({ rankRelevance: _rank, ...hit }) => {
    cap = Math.min(cap, hit.score);
    return { ...hit, score: cap };
  });
}

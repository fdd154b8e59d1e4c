/**
 * FTS5's bm25() constants, which the SQLite store ranks with inside SQLite and the PostgreSQL
 * store computes itself from its tsvectors' term statistics.
 */
export const K1 = 1.2;
export const B = 0.75;
/** FTS5's floor for the idf of a term on more than half of the rows. */
export const MIN_IDF = 1e-6;

/** FTS5's idf of a term on `n` of `total` rows. */
export function bm25Idf(n: number, total: number): number {
  return Math.max(MIN_IDF, Math.log((total - n + 0.5) / (n + 0.5)));
}

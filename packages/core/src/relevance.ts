/**
 * The relevance score (`SearchHit.score`, the API's `relevance_score`) at and above which a
 * passage is expected to answer the question; below it, it does not. Lexical scores combine the
 * share of the question's content words the passage holds (each word weighted by how rare it is
 * in the index, with a floor so words found on most pages of a small site still count) with
 * BM25; hybrid scores average that with the embedding similarity (docs/api.md, Chat).
 * Measured on the answer-quality benchmark (docs/benchmarks.md).
 */
export const ANSWER_FLOOR = 0.25;

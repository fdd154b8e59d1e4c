/**
 * Turns text into normalized vectors. Queries and passages are distinguished because some
 * models prefix them differently.
 */
export interface Embedder {
  /** Stable identifier recorded in the index (model id plus quantization). */
  readonly id: string;
  /** Vector length. */
  readonly dimension: number;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]>;
  /** Releases workers and native resources. */
  close(): Promise<void>;
}

/** Where the embedding model stands; `/health` reports `retrieval` from it. */
export type EmbedderState =
  | { status: 'disabled' }
  | { status: 'loading'; model: string }
  | { status: 'ready'; model: string; dimension: number }
  | { status: 'unavailable'; model: string; reason: string };

/**
 * A cross-encoder: reads a query and a passage together and scores how well the passage
 * answers it, which ranks better than comparing two separately made vectors but costs a model
 * run per passage, so it only reorders the first candidates of a search.
 */
export interface Reranker {
  /** Model id, for logs. */
  readonly id: string;
  /**
   * One score per text, in input order, higher is more relevant; scores only compare within one
   * call. `deadline` (epoch ms): work not started by then may be dropped with `TIMEOUT`.
   */
  rerank(query: string, texts: string[], options?: { deadline?: number }): Promise<number[]>;
}

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

import type { MetadataCondition } from './filters';

/** `lexical`: BM25 over FTS5; `dense`: vector similarity; `hybrid`: both, fused. */
export type SearchMode = 'lexical' | 'dense' | 'hybrid';

/** One query object for every mode, LlamaIndex-style. */
export interface SearchQuery {
  projectId: number;
  text: string;
  /** Query embedding; required for `dense`, used by `hybrid` when present. */
  vector?: Float32Array;
  topK: number;
  filters?: MetadataCondition[];
  mode: SearchMode;
}

export interface SearchHit {
  chunkId: number;
  documentId: number;
  sourceId: number;
  /** The data-source string (URL or label). */
  source: string;
  content: string;
  title: string;
  headingPath: string[];
  link: string;
  /** In [0, 1], higher is more relevant, comparable across queries of a project. */
  score: number;
}

/** Finds the chunks of a project that best answer a query. */
export interface Retriever {
  search(query: SearchQuery): Promise<SearchHit[]>;
}

import type { MetadataCondition } from './filters';

/** `lexical`: BM25 over FTS5; `dense`: vector similarity; `hybrid`: both, fused. */
export type SearchMode = 'lexical' | 'dense' | 'hybrid';

/** One query object for every mode, LlamaIndex-style. */
export interface SearchQuery {
  projectId: number;
  text: string;
  /**
   * Secondary terms, e.g. the topic of the conversation so far for a follow-up question, or the
   * previous question's frame for one that named a new subject ("and for guards?"). They
   * only boost passages that also match `text`, at a fraction of the weight of `text`'s own terms,
   * so a follow-up that changes topic still finds the new topic. When `text` has no content word
   * of its own ("and then?"), the context is searched instead.
   */
  context?: string;
  /**
   * What a definition question asks about ("decorators" in "what do decorators do?"). A page
   * whose title, link or top heading names exactly that is the topic's own page, and its opening
   * passage is where the topic is defined: that passage joins the candidates and ranks just
   * above the page's best passage. Only pages already among the candidates are looked at.
   */
  topic?: string;
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
  /**
   * In [0, 1], higher is more relevant, comparable across queries of a project, and hits come in
   * descending score order. At or above {@link ANSWER_FLOOR} the passage is expected to answer.
   */
  score: number;
  /** The documentation version of the passage's page, when the caller asked for it. */
  version?: string;
}

/** Finds the chunks of a project that best answer a query. */
export interface Retriever {
  search(query: SearchQuery): Promise<SearchHit[]>;
}

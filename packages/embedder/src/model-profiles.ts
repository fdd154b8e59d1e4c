/** How a model's token vectors become one text vector. */
export type Pooling = 'mean' | 'cls';

/** A published retrieval figure: MTEB retrieval average (15 BEIR sets), nDCG@10, in points. */
export interface PublishedScore {
  ndcgAt10: number;
  source: string;
}

/**
 * What an embedding model needs to be used the way it was trained: its pooling, whether its
 * vectors are normalized, and the text put before queries and before documents. The wrong
 * prefix or pooling costs several points of retrieval quality without any error.
 */
export interface EmbeddingProfile {
  /** Hub id transformers.js loads (an ONNX export). */
  id: string;
  /** Other names a user may write (the original repository id). */
  aliases: string[];
  dimension: number;
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  documentPrefix: string;
  /** Parameter count in millions, for the cost estimate. */
  paramsM: number;
  layers: number;
  hidden: number;
  retrieval: PublishedScore | undefined;
}

/** Cross-encoder rerankers with ONNX exports; scores are logits, higher is more relevant. */
export interface RerankerProfile {
  id: string;
  aliases: string[];
  paramsM: number;
  layers: number;
  hidden: number;
  /** Feed-forward width, for the cost estimate. */
  intermediate: number;
  note: string;
}

const MTEB = 'MTEB leaderboard, retrieval average (huggingface.co/spaces/mteb/leaderboard)';
const ARCTIC = 'snowflake-arctic-embed model cards and paper (arXiv:2405.05374), MTEB retrieval table';
const BGE_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/**
 * The small embedding models kbqa knows. The hub ids are ONNX exports that transformers.js
 * loads as far as we know; they could not be checked from the machines this table was written
 * on (no network), so a wrong one shows up as `MODEL_UNAVAILABLE` naming it.
 */
export const EMBEDDING_MODELS: readonly EmbeddingProfile[] = [
  {
    id: 'Xenova/all-MiniLM-L6-v2',
    aliases: ['sentence-transformers/all-MiniLM-L6-v2'],
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    paramsM: 22,
    layers: 6,
    hidden: 384,
    retrieval: { ndcgAt10: 41.95, source: `${MTEB}; also quoted in ${ARCTIC}` },
  },
  {
    id: 'Xenova/multi-qa-MiniLM-L6-cos-v1',
    aliases: ['sentence-transformers/multi-qa-MiniLM-L6-cos-v1'],
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    paramsM: 22,
    layers: 6,
    hidden: 384,
    retrieval: undefined,
  },
  {
    id: 'Snowflake/snowflake-arctic-embed-xs',
    aliases: [],
    dimension: 384,
    pooling: 'cls',
    normalize: true,
    queryPrefix: BGE_INSTRUCTION,
    documentPrefix: '',
    paramsM: 22,
    layers: 6,
    hidden: 384,
    retrieval: { ndcgAt10: 50.15, source: ARCTIC },
  },
  {
    id: 'Snowflake/snowflake-arctic-embed-s',
    aliases: [],
    dimension: 384,
    pooling: 'cls',
    normalize: true,
    queryPrefix: BGE_INSTRUCTION,
    documentPrefix: '',
    paramsM: 33,
    layers: 12,
    hidden: 384,
    retrieval: { ndcgAt10: 51.98, source: ARCTIC },
  },
  {
    id: 'Xenova/bge-small-en-v1.5',
    aliases: ['BAAI/bge-small-en-v1.5'],
    dimension: 384,
    pooling: 'cls',
    normalize: true,
    queryPrefix: BGE_INSTRUCTION,
    documentPrefix: '',
    paramsM: 33,
    layers: 12,
    hidden: 384,
    retrieval: { ndcgAt10: 51.68, source: `${MTEB}; BAAI/bge-small-en-v1.5 model card` },
  },
  {
    id: 'Xenova/bge-base-en-v1.5',
    aliases: ['BAAI/bge-base-en-v1.5'],
    dimension: 768,
    pooling: 'cls',
    normalize: true,
    queryPrefix: BGE_INSTRUCTION,
    documentPrefix: '',
    paramsM: 109,
    layers: 12,
    hidden: 768,
    retrieval: { ndcgAt10: 53.25, source: `${MTEB}; BAAI/bge-base-en-v1.5 model card` },
  },
  {
    id: 'Xenova/e5-small-v2',
    aliases: ['intfloat/e5-small-v2'],
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    paramsM: 33,
    layers: 12,
    hidden: 384,
    retrieval: { ndcgAt10: 49.04, source: `${MTEB}; also quoted in ${ARCTIC}` },
  },
  {
    id: 'Xenova/multilingual-e5-small',
    aliases: ['intfloat/multilingual-e5-small'],
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    paramsM: 118,
    layers: 12,
    hidden: 384,
    retrieval: undefined,
  },
  {
    id: 'Xenova/gte-small',
    aliases: ['thenlper/gte-small'],
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    paramsM: 33,
    layers: 12,
    hidden: 384,
    retrieval: { ndcgAt10: 49.46, source: `${MTEB}; also quoted in ${ARCTIC}` },
  },
];

/**
 * The default embedder. Rule (issue 19): at least 7 points of published MTEB retrieval above
 * all-MiniLM-L6-v2 (41.95) at no more than 1.5x its cost. snowflake-arctic-embed-xs is a
 * fine-tuned all-MiniLM-L6-v2 (same 6 layers, 384 dimensions, so the same cost and storage) and
 * publishes 50.15; bge-small and arctic-s publish about 52 but have 12 layers, twice the cost.
 */
export const DEFAULT_EMBED_MODEL = 'Snowflake/snowflake-arctic-embed-xs';

export const RERANK_MODELS: readonly RerankerProfile[] = [
  {
    id: 'Xenova/ms-marco-MiniLM-L-6-v2',
    aliases: ['cross-encoder/ms-marco-MiniLM-L-6-v2'],
    paramsM: 22,
    layers: 6,
    hidden: 384,
    intermediate: 1536,
    note: 'MS MARCO cross-encoder, the common default',
  },
  {
    id: 'Xenova/ms-marco-TinyBERT-L-2-v2',
    aliases: ['cross-encoder/ms-marco-TinyBERT-L-2-v2'],
    paramsM: 4.4,
    layers: 2,
    hidden: 128,
    intermediate: 512,
    note: 'about 25x cheaper than MiniLM-L-6, a few points weaker on MS MARCO',
  },
  {
    id: 'Xenova/bge-reranker-base',
    aliases: ['BAAI/bge-reranker-base'],
    paramsM: 278,
    layers: 12,
    hidden: 768,
    intermediate: 3072,
    note: 'multilingual, far slower on CPU',
  },
];

/** The table row for a model id (or alias); undefined for models kbqa does not know. */
export function embeddingProfile(model: string): EmbeddingProfile | undefined {
  const key = model.trim().toLowerCase();
  return EMBEDDING_MODELS.find(
    (p) => p.id.toLowerCase() === key || p.aliases.some((a) => a.toLowerCase() === key),
  );
}

export function rerankerProfile(model: string): RerankerProfile | undefined {
  const key = model.trim().toLowerCase();
  return RERANK_MODELS.find(
    (p) => p.id.toLowerCase() === key || p.aliases.some((a) => a.toLowerCase() === key),
  );
}

/** How the embedder treats a model: its table row, or mean pooling, normalized, no prefix. */
export interface ResolvedEmbedding {
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  documentPrefix: string;
  /** False for models outside the table (the service logs that it guessed). */
  known: boolean;
}

export function resolveEmbedding(model: string): ResolvedEmbedding {
  const profile = embeddingProfile(model);
  if (!profile)
    return { pooling: 'mean', normalize: true, queryPrefix: '', documentPrefix: '', known: false };
  const { pooling, normalize, queryPrefix, documentPrefix } = profile;
  return { pooling, normalize, queryPrefix, documentPrefix, known: true };
}

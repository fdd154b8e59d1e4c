/**
 * Small instruct models kbqa knows for KBQA_LLM=local, all GGUF at 4-bit (Q4_K_M). Facts are
 * the publishers' (parameters, context length, licence); a figure kbqa could not check offline
 * is left undefined rather than guessed, and shown as unknown. The GGUF repositories and file
 * names were written without network access and are unverified: a wrong one fails the pull
 * with the URL it tried.
 */
export interface LocalModelProfile {
  /** kbqa's name: the file is `<models dir>/llm/<name>.gguf`. */
  name: string;
  /** The publisher's model it is a quantization of. */
  source: string;
  /** The Hugging Face repository of the GGUF release `kbqa models pull` downloads from. */
  ggufRepo: string;
  /** The file name in that release. */
  ggufFile: string;
  /** Parameters, in billions (the model card's figure). */
  parametersB: number;
  /** Context length the model was trained for, in tokens (the model card's figure). */
  contextTokens: number;
  licence: string;
  /** File size in bytes, when known. */
  fileBytes?: number;
  /** sha256 of the GGUF file, when known: `kbqa models import` then checks it. */
  sha256?: string;
}

/**
 * Provisional default: the smallest model of the table, for the shortest time to first token on
 * a CPU. It has not yet been chosen by a grounded-answering benchmark (docs/configuration.md).
 */
export const DEFAULT_LOCAL_MODEL = 'qwen2.5-0.5b-instruct';

export const LOCAL_MODEL_PROFILES: readonly LocalModelProfile[] = [
  {
    name: 'qwen2.5-0.5b-instruct',
    source: 'Qwen/Qwen2.5-0.5B-Instruct',
    ggufRepo: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    ggufFile: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    parametersB: 0.49,
    contextTokens: 32_768,
    licence: 'Apache-2.0',
  },
  {
    name: 'qwen2.5-1.5b-instruct',
    source: 'Qwen/Qwen2.5-1.5B-Instruct',
    ggufRepo: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
    ggufFile: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
    parametersB: 1.54,
    contextTokens: 32_768,
    licence: 'Apache-2.0',
  },
  {
    name: 'llama-3.2-1b-instruct',
    source: 'meta-llama/Llama-3.2-1B-Instruct',
    ggufRepo: 'bartowski/Llama-3.2-1B-Instruct-GGUF',
    ggufFile: 'Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    parametersB: 1.24,
    contextTokens: 131_072,
    licence: 'Llama 3.2 Community License',
  },
  {
    name: 'llama-3.2-3b-instruct',
    source: 'meta-llama/Llama-3.2-3B-Instruct',
    ggufRepo: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
    ggufFile: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    parametersB: 3.21,
    contextTokens: 131_072,
    licence: 'Llama 3.2 Community License',
  },
  {
    name: 'smollm2-1.7b-instruct',
    source: 'HuggingFaceTB/SmolLM2-1.7B-Instruct',
    ggufRepo: 'HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF',
    ggufFile: 'smollm2-1.7b-instruct-q4_k_m.gguf',
    parametersB: 1.71,
    contextTokens: 8_192,
    licence: 'Apache-2.0',
  },
  {
    name: 'gemma-3-1b-it',
    source: 'google/gemma-3-1b-it',
    ggufRepo: 'ggml-org/gemma-3-1b-it-GGUF',
    ggufFile: 'gemma-3-1b-it-Q4_K_M.gguf',
    parametersB: 1.0,
    contextTokens: 32_768,
    licence: 'Gemma Terms of Use',
  },
];

/**
 * Where `kbqa models pull` fetches a model: `<host>/<repo>/resolve/main/<file>`, the Hugging Face
 * Hub unless a mirror is given (KBQA_MODEL_HOST, as for embedders).
 */
export function localModelUrl(profile: LocalModelProfile, host = 'https://huggingface.co/'): string {
  return `${host.replace(/\/*$/, '/')}${profile.ggufRepo}/resolve/main/${profile.ggufFile}`;
}

export function localModelProfile(name: string): LocalModelProfile | undefined {
  return LOCAL_MODEL_PROFILES.find((p) => p.name === name);
}

/** Q4_K_M stores about 4.85 bits a weight on average (llama.cpp's quantize table). */
const Q4_K_M_BITS_PER_WEIGHT = 4.85;

/**
 * An estimate of the RAM a model needs on a CPU, in bytes: its weights (the file's size, or
 * parameters × Q4_K_M's bits a weight) plus room for the KV cache of `contextTokens` and
 * llama.cpp's buffers. An estimate for choosing a model, not a measurement.
 */
export function estimateRamBytes(profile: LocalModelProfile, contextTokens = 2048): number {
  const weights = profile.fileBytes ?? (profile.parametersB * 1e9 * Q4_K_M_BITS_PER_WEIGHT) / 8;
  // An F16 KV cache takes 2 × layers × KV heads × head size × 2 bytes a token: from about 12 KB
  // (Qwen2.5 0.5B) to about 192 KB (SmolLM2 1.7B, no grouped-query attention). The upper bound
  // keeps the estimate on the safe side.
  const kvCache = contextTokens * 192 * 1024;
  const buffers = 200 * 1024 * 1024;
  return Math.round(weights + kvCache + buffers);
}

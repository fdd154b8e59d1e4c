/**
 * A figure published for grounded answering: Vectara's hallucination leaderboard, where each
 * model summarizes 1,000 short documents using only their facts and HHEM-2.1 judges whether the
 * summary is consistent with the document (the task a RAG answer is).
 */
export interface PublishedQuality {
  /** Summaries with a statement the document does not support, in percent (lower is better). */
  hallucinationRatePct: number;
  /** 100 − hallucination rate, in percent. */
  factualConsistencyPct: number;
  /** Documents the model summarized rather than refused, in percent. */
  answerRatePct: number;
  /** What the figure was read from: the page at a commit, so that it can be checked. */
  sourceUrl: string;
  /** The date the source gives for its figures ("Last updated on …"). */
  sourceDate: string;
}

/**
 * Small instruct models kbqa knows for KBQA_LLM=local, all GGUF at 4-bit (Q4_K_M). Facts are
 * the publishers' (parameters, context length, licence); the file sizes and sha256 sums are the
 * ones public manifests pin for these exact files, and the quality figure is the leaderboard's.
 * A figure that could not be read in a source is left undefined rather than guessed, and shown
 * as unknown.
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
  /**
   * sha256 of the GGUF file, when known: `kbqa models pull` and `import` then check it; without
   * it they say the file could not be checked and print its digest.
   */
  sha256?: string;
  /**
   * The Hugging Face revision (commit) the size and sha256 were published for: `kbqa models pull`
   * downloads that revision, so the digest still matches when the release's `main` moves on.
   * Unknown: `main`.
   */
  revision?: string;
  /** Vectara's figures for the publisher's model, when it is on the leaderboard. */
  quality?: PublishedQuality;
}

/** The leaderboard's README at the commit read: "Last updated on October 16, 2025", HHEM-2.1. */
const VECTARA_2025_10_16: Pick<PublishedQuality, 'sourceUrl' | 'sourceDate'> = {
  sourceUrl:
    'https://github.com/vectara/hallucination-leaderboard/blob/37fc0e9a757a3b42cee659a3e1914539b6b5de06/README.md',
  sourceDate: '2025-10-16',
};

function vectara(hallucinationRatePct: number, answerRatePct: number): PublishedQuality {
  return {
    hallucinationRatePct,
    factualConsistencyPct: Math.round((100 - hallucinationRatePct) * 10) / 10,
    answerRatePct,
    ...VECTARA_2025_10_16,
  };
}

/**
 * The default: of the table, the lowest published hallucination rate for grounded answering and
 * the second-smallest model, so one of the quickest to read a prompt on a CPU
 * (docs/configuration.md, "Choosing the default model").
 */
export const DEFAULT_LOCAL_MODEL = 'qwen3-0.6b';

export const LOCAL_MODEL_PROFILES: readonly LocalModelProfile[] = [
  {
    name: 'qwen3-0.6b',
    source: 'Qwen/Qwen3-0.6B',
    ggufRepo: 'unsloth/Qwen3-0.6B-GGUF',
    ggufFile: 'Qwen3-0.6B-Q4_K_M.gguf',
    parametersB: 0.6,
    contextTokens: 32_768,
    licence: 'Apache-2.0',
    fileBytes: 396_705_472,
    sha256: 'ac2d97712095a558e31573f62f466a3f9d93990898b0ec79d7c974c1780d524a',
    quality: vectara(3.7, 100.0),
  },
  {
    name: 'qwen2.5-0.5b-instruct',
    source: 'Qwen/Qwen2.5-0.5B-Instruct',
    ggufRepo: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    ggufFile: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    parametersB: 0.49,
    contextTokens: 32_768,
    licence: 'Apache-2.0',
    fileBytes: 491_400_032,
    sha256: '74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db',
    revision: '9217f5db79a29953eb74d5343926648285ec7e67',
    quality: vectara(25.2, 100.0),
  },
  {
    name: 'qwen2.5-1.5b-instruct',
    source: 'Qwen/Qwen2.5-1.5B-Instruct',
    ggufRepo: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
    ggufFile: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
    parametersB: 1.54,
    contextTokens: 32_768,
    licence: 'Apache-2.0',
    fileBytes: 1_117_320_736,
    sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
    revision: '91cad51170dc346986eccefdc2dd33a9da36ead9',
    quality: vectara(15.8, 100.0),
  },
  {
    name: 'llama-3.2-1b-instruct',
    source: 'meta-llama/Llama-3.2-1B-Instruct',
    ggufRepo: 'bartowski/Llama-3.2-1B-Instruct-GGUF',
    ggufFile: 'Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    parametersB: 1.24,
    contextTokens: 131_072,
    licence: 'Llama 3.2 Community License',
    fileBytes: 807_694_464,
    sha256: '6f85a640a97cf2bf5b8e764087b1e83da0fdb51d7c9fab7d0fece9385611df83',
    revision: '067b946cf014b7c697f3654f621d577a3e3afd1c',
    quality: vectara(20.7, 100.0),
  },
  {
    name: 'llama-3.2-3b-instruct',
    source: 'meta-llama/Llama-3.2-3B-Instruct',
    ggufRepo: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
    ggufFile: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    parametersB: 3.21,
    contextTokens: 131_072,
    licence: 'Llama 3.2 Community License',
    fileBytes: 2_019_377_696,
    sha256: '6c1a2b41161032677be168d354123594c0e6e67d2b9227c84f296ad037c728ff',
    quality: vectara(7.9, 100.0),
  },
  {
    name: 'smollm2-1.7b-instruct',
    source: 'HuggingFaceTB/SmolLM2-1.7B-Instruct',
    ggufRepo: 'HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF',
    ggufFile: 'smollm2-1.7b-instruct-q4_k_m.gguf',
    parametersB: 1.71,
    contextTokens: 8_192,
    licence: 'Apache-2.0',
    fileBytes: 1_055_609_536,
    sha256: 'decd2598bc2c8ed08c19adc3c8fdd461ee19ed5708679d1c54ef54a5a30d4f33',
    revision: '2d4a76a30b4af41ecd395c35725ac11688d4cfe4',
    // Not on the leaderboard.
  },
  {
    name: 'gemma-3-1b-it',
    source: 'google/gemma-3-1b-it',
    ggufRepo: 'ggml-org/gemma-3-1b-it-GGUF',
    ggufFile: 'gemma-3-1b-it-Q4_K_M.gguf',
    parametersB: 1.0,
    contextTokens: 32_768,
    licence: 'Gemma Terms of Use',
    fileBytes: 806_058_240,
    sha256: '8ccc5cd1f1b3602548715ae25a66ed73fd5dc68a210412eea643eb20eb75a135',
    revision: 'f9c28bcd85737ffc5aef028638d3341d49869c27',
    quality: vectara(5.3, 99.9),
  },
];

/**
 * Where `kbqa models pull` fetches a model: `<host>/<repo>/resolve/<revision or main>/<file>`, the
 * Hugging Face Hub unless a mirror is given (KBQA_MODEL_HOST, as for embedders).
 */
export function localModelUrl(profile: LocalModelProfile, host = 'https://huggingface.co/'): string {
  const revision = profile.revision ?? 'main';
  return `${host.replace(/\/*$/, '/')}${profile.ggufRepo}/resolve/${revision}/${profile.ggufFile}`;
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

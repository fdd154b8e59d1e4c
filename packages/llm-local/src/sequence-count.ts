/** What {@link chooseSequenceCount} decides from. */
export interface SequenceCountInput {
  /** CPU threads the process may use (`os.availableParallelism()`). */
  cores: number;
  /** Memory free now (`os.freemem()`), in bytes. */
  freeMemoryBytes: number;
  /** The model's weights in memory: the GGUF file's size, in bytes. */
  modelBytes: number;
  /** What one more sequence costs: the KV cache of its context, in bytes. */
  perSequenceBytes: number;
  /** Upper bound whatever the host (default 16). */
  max?: number;
}

export interface SequenceCount {
  sequences: number;
  /** The bound the cores set. */
  byCores: number;
  /** The bound free memory sets. */
  byMemory: number;
  /** One line for the log: the count and what bounded it. */
  reason: string;
}

/** llama.cpp's compute buffers and the runtime beside the weights and KV caches. */
const RUNTIME_OVERHEAD_BYTES = 200 * 1024 * 1024;
const DEFAULT_MAX_SEQUENCES = 16;
const CORES_PER_SEQUENCE = 2;

/**
 * How many answers the local model should generate at once on this host, when
 * KBQA_LLM_SEQUENCES does not say.
 *
 * Cores: llama.cpp evaluates every sequence's tokens in one batch on the same threads, so reading
 * prompts (most of an answer's time on a CPU) gains nothing from a second sequence once the cores
 * are busy; generating tokens is bound by memory bandwidth and does gain from batching. One
 * sequence per two cores lets answers overlap without slowing each prompt much.
 *
 * Memory: each sequence holds its own KV cache for the whole context; the sequences must fit in
 * what is free beside the weights, or the host swaps and every answer crawls.
 *
 * The smaller bound wins, never below one.
 */
export function chooseSequenceCount(input: SequenceCountInput): SequenceCount {
  const max = Math.max(1, Math.floor(input.max ?? DEFAULT_MAX_SEQUENCES));
  const byCores = Math.max(1, Math.floor(input.cores / CORES_PER_SEQUENCE));
  const room = input.freeMemoryBytes - input.modelBytes - RUNTIME_OVERHEAD_BYTES;
  const byMemory = input.perSequenceBytes > 0 ? Math.max(1, Math.floor(room / input.perSequenceBytes)) : max;
  const sequences = Math.min(byCores, byMemory, max);
  const mb = (n: number): string => `${Math.round(n / 1024 / 1024)} MB`;
  const bound =
    sequences === max && max < Math.min(byCores, byMemory)
      ? `the upper bound ${max}`
      : byCores <= byMemory
        ? `${input.cores} cores (one sequence per ${CORES_PER_SEQUENCE})`
        : `${mb(Math.max(0, input.freeMemoryBytes))} free memory (weights ${mb(input.modelBytes)}, ` +
          `${mb(input.perSequenceBytes)} a sequence)`;
  return {
    sequences,
    byCores,
    byMemory,
    reason: `${sequences} sequence${sequences === 1 ? '' : 's'}, bounded by ${bound}; KBQA_LLM_SEQUENCES overrides`,
  };
}

/** An F16 KV cache's bytes a token when the file's header does not say enough to compute it. */
export const KV_BYTES_PER_TOKEN_UPPER_BOUND = 192 * 1024;

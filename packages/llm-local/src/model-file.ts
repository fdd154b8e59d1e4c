import { open, stat } from 'node:fs/promises';
import { KbqaError } from '@kbqa/core';
import { GgufFormatError, GgufTruncatedError, readGgufHeader, type GgufValue } from './gguf.format';

/** Why a model file cannot be used; each has its own message. */
export type LocalModelProblem =
  'missing' | 'not-gguf' | 'truncated' | 'unsupported-architecture' | 'load-failed' | 'runtime-unavailable';

/**
 * A model file kbqa cannot use. `problem` tells the cases apart for `/health` and tests; the
 * message names the file and what to do, since an operator reads it.
 */
export class LocalModelError extends KbqaError {
  constructor(
    readonly problem: LocalModelProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('MODEL_UNAVAILABLE', message, options);
    this.name = 'LocalModelError';
  }
}

/**
 * Architectures of GGUF files that are not chat models: embedding and reranking encoders,
 * vision projectors, audio codecs. llama.cpp may load some of them, but they cannot write an
 * answer, so they are refused before loading with a message that says so.
 */
const NOT_GENERATIVE = new Set([
  'bert',
  'nomic-bert',
  'nomic-bert-moe',
  'jina-bert-v2',
  'jina-bert-v3',
  'neo-bert',
  'modern-bert',
  'roberta',
  't5encoder',
  'clip',
  'wavtokenizer-dec',
]);

/** What the header of a usable model file says. */
export interface LocalModelFileInfo {
  path: string;
  sizeBytes: number;
  architecture: string;
  /** `general.name`, when the file has one. */
  name?: string;
  /** The context length the model was trained with (`<arch>.context_length`). */
  trainedContextTokens?: number;
  license?: string;
  hasChatTemplate: boolean;
  /**
   * Bytes one token takes in an F16 KV cache (2 × layers × KV heads × head size × 2), from the
   * header's attention figures; undefined when the header lacks them.
   */
  kvBytesPerToken?: number;
}

/**
 * Checks a model file without llama.cpp: that it exists, is a GGUF file, is not cut short (the
 * header's tensors must fit in the file) and holds a text-generation architecture. Throws
 * {@link LocalModelError}. Reads the header only, so it is quick even for gigabyte files.
 */
export async function inspectModelFile(path: string): Promise<LocalModelFileInfo> {
  let size: number;
  try {
    const stats = await stat(path);
    if (!stats.isFile()) throw new LocalModelError('missing', `Model file ${path} is not a file`);
    size = stats.size;
  } catch (error) {
    if (error instanceof LocalModelError) throw error;
    throw new LocalModelError('missing', `Model file ${path} does not exist`, { cause: error });
  }
  const handle = await open(path, 'r');
  try {
    const header = await readGgufHeader({
      size,
      read: async (position, length) => {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        return buffer.subarray(0, bytesRead);
      },
    });
    if (header.expectedSize !== undefined && BigInt(size) < header.expectedSize) {
      throw new LocalModelError(
        'truncated',
        `Model file ${path} is truncated: its header describes ${header.expectedSize} bytes but the file has ${size} ` +
          '(an interrupted download or copy); copy or download it again',
      );
    }
    const architecture = header.metadata.get('general.architecture');
    if (typeof architecture !== 'string' || architecture === '') {
      throw new LocalModelError(
        'unsupported-architecture',
        `Model file ${path} does not name its architecture (general.architecture)`,
      );
    }
    if (NOT_GENERATIVE.has(architecture)) {
      throw new LocalModelError(
        'unsupported-architecture',
        `Model file ${path} has architecture "${architecture}", which is not a chat model (an embedding or other ` +
          'encoder model); KBQA_LLM=local needs an instruct model in GGUF format',
      );
    }
    const contextLength = header.metadata.get(`${architecture}.context_length`);
    return {
      path,
      sizeBytes: size,
      architecture,
      name: stringValue(header.metadata.get('general.name')),
      trainedContextTokens: typeof contextLength === 'number' ? contextLength : undefined,
      license: stringValue(header.metadata.get('general.license')),
      hasChatTemplate: typeof header.metadata.get('tokenizer.chat_template') === 'string',
      kvBytesPerToken: kvBytesPerToken(header.metadata, architecture),
    };
  } catch (error) {
    if (error instanceof LocalModelError) throw error;
    if (error instanceof GgufTruncatedError) {
      throw new LocalModelError(
        'truncated',
        `Model file ${path} is truncated: it ends inside its GGUF header; copy or download it again`,
        { cause: error },
      );
    }
    if (error instanceof GgufFormatError) {
      throw new LocalModelError('not-gguf', `Model file ${path} is not a GGUF model file: ${error.message}`, {
        cause: error,
      });
    }
    throw new LocalModelError('load-failed', `Model file ${path} cannot be read: ${describe(error)}`, {
      cause: error,
    });
  } finally {
    await handle.close();
  }
}

function kvBytesPerToken(metadata: Map<string, GgufValue>, architecture: string): number | undefined {
  const number = (key: string): number | undefined => {
    const value = metadata.get(`${architecture}.${key}`);
    return typeof value === 'number' && value > 0 ? value : undefined;
  };
  const layers = number('block_count');
  const heads = number('attention.head_count');
  const embedding = number('embedding_length');
  // head_count_kv may be one number or one a layer (models that mix attention kinds).
  const kvValue = metadata.get(`${architecture}.attention.head_count_kv`);
  const kvHeads = Array.isArray(kvValue)
    ? kvValue.reduce<number>((sum, v) => sum + (typeof v === 'number' ? v : 0), 0) / kvValue.length
    : typeof kvValue === 'number'
      ? kvValue
      : heads;
  const headSize = heads && embedding ? embedding / heads : undefined;
  const keySize = number('attention.key_length') ?? headSize;
  const valueSize = number('attention.value_length') ?? headSize;
  if (!layers || !kvHeads || !keySize || !valueSize) return undefined;
  return Math.round(layers * kvHeads * (keySize + valueSize) * 2);
}

function stringValue(value: GgufValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

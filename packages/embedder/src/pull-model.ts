import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { modelUnavailable } from './model-errors';
import type { ModelProgress } from './worker-protocol';
import { TransformersEmbedder, type TransformersEmbedderOptions } from './transformers.embedder';

export interface PullModelOptions {
  /** Cache folder the model is downloaded into (`<modelsDir>/<id>/`). */
  modelsDir: string;
  /** Progress for a command line bar; `total` events carry the aggregate over all files. */
  onProgress?: (progress: ModelProgress) => void;
  /** Quantization to fetch. Default `q8`, the one the service loads by default. */
  dtype?: TransformersEmbedderOptions['dtype'];
  /** With `offline`, nothing is downloaded and a model not yet cached fails. */
  offline?: boolean;
  /** Model hub address, for a mirror. Default the Hugging Face Hub. */
  remoteHost?: string;
  /** See {@link TransformersEmbedderOptions.workerPath}. */
  workerPath?: string;
  /** `reranker` fetches a cross-encoder (loaded as the service's reranker). Default `embedder`. */
  kind?: 'embedder' | 'reranker';
  /**
   * How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`), named in
   * messages that tell them what to run. Default `kbqa`.
   */
  command?: string;
}

/**
 * Downloads a model into the cache and checks that it loads, by loading it once the way the
 * service will. Returns its vector length (0 for a reranker).
 * @throws KbqaError `MODEL_UNAVAILABLE` when it cannot be fetched or loaded.
 */
export async function pullModel(id: string, options: PullModelOptions): Promise<{ dimension: number }> {
  const reranker = options.kind === 'reranker';
  const embedder = await TransformersEmbedder.load({
    model: id,
    rerankModel: reranker ? id : undefined,
    rerankOnly: reranker,
    modelsDir: options.modelsDir,
    offline: options.offline ?? false,
    dtype: options.dtype,
    remoteHost: options.remoteHost,
    workerPath: options.workerPath,
    command: options.command,
    onProgress: options.onProgress ?? (() => undefined),
  });
  const { dimension } = embedder;
  const rerank = await embedder.rerankerReady();
  await embedder.close();
  if (rerank.status === 'unavailable')
    throw modelUnavailable(id, rerank.reason, options.modelsDir, 'reranking', options.command);
  return { dimension };
}

/**
 * Whether a model is in the cache (or, for a local folder, present) with an ONNX file the
 * service can load (the quantized one, or `model.onnx`, which it falls back to), so it starts
 * without a download.
 */
export function isModelCached(model: string, modelsDir: string): boolean {
  const folder = path.isAbsolute(model) ? model : path.join(modelsDir, model);
  return (
    existsSync(path.join(folder, 'config.json')) &&
    ['model_quantized.onnx', 'model.onnx'].some((file) => existsSync(path.join(folder, 'onnx', file)))
  );
}

/** `hidden_size` from a cached model's config.json, for models outside the table. */
export function cachedDimension(model: string, modelsDir: string): number | undefined {
  const file = path.join(path.isAbsolute(model) ? model : path.join(modelsDir, model), 'config.json');
  if (!existsSync(file)) return undefined;
  try {
    const config = JSON.parse(readFileSync(file, 'utf8')) as { hidden_size?: unknown };
    return typeof config.hidden_size === 'number' ? config.hidden_size : undefined;
  } catch {
    return undefined;
  }
}

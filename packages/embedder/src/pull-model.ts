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
    onProgress: options.onProgress ?? (() => undefined),
  });
  const { dimension } = embedder;
  const rerank = await embedder.rerankerReady();
  await embedder.close();
  if (rerank.status === 'unavailable')
    throw modelUnavailable(id, rerank.reason, options.modelsDir, 'reranking');
  return { dimension };
}

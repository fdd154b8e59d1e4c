import { KbqaError } from '@kbqa/core';

/**
 * The error for a model that cannot be loaded. Its message says how to provide the model,
 * because whoever reads it (an operator at start-up, a CLI user) has to act on it.
 */
export function modelUnavailable(
  model: string,
  reason: string,
  modelsDir?: string,
  kind: 'embedding' | 'reranking' = 'embedding',
  /** How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, a binary's path). */
  command = 'kbqa',
): KbqaError {
  const cache = modelsDir ? ` (downloads are cached in ${modelsDir})` : '';
  const alternatives =
    kind === 'embedding'
      ? 'or set KBQA_EMBED_MODEL to a local model folder, ' +
        'or set KBQA_EMBED_MODEL=none to answer with lexical search only.'
      : 'or set KBQA_RERANK_MODEL to a local model folder, or unset it.';
  return new KbqaError(
    'MODEL_UNAVAILABLE',
    `${kind === 'embedding' ? 'Embedding' : 'Reranking'} model "${model}" is not available: ${reason}. ` +
      `To provide it, run \`${command} models pull ${model}\` on a machine with network access${cache}, ` +
      alternatives,
  );
}

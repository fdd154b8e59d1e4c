import type { Embedder, VectorStore } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';

export interface EmbedPendingOptions {
  /** Only this project's chunks; all projects when absent. */
  projectId?: number;
  /** Only chunks with ids in this set (an ingestion task's own chunks). */
  chunkIds?: ReadonlySet<number>;
  /** Chunks per embed call (the embedder batches again inside). */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void | Promise<void>;
}

/**
 * Embeds chunks that have no vector yet, in id order, storing each batch as it comes back so
 * that an interruption loses at most one batch. Used by ingestion (a task's chunks), by the
 * background backfill when a model becomes ready, and by `kbqa reindex`.
 * Returns how many chunks were embedded.
 */
export async function embedPending(
  embedder: Embedder,
  vectors: VectorStore,
  options: EmbedPendingOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 64;
  const wanted = options.chunkIds;
  let lowest = 0;
  let highest = Number.MAX_SAFE_INTEGER;
  if (wanted) {
    if (wanted.size === 0) return 0;
    // A loop, not Math.min(...ids): a large crawl has more ids than a call can take as arguments.
    lowest = Number.MAX_SAFE_INTEGER;
    highest = 0;
    for (const id of wanted) {
      if (id < lowest) lowest = id;
      if (id > highest) highest = id;
    }
    lowest -= 1;
  }
  const total = wanted ? wanted.size : await vectors.countPending(options.projectId);
  let done = 0;
  let afterId = lowest;
  await options.onProgress?.(0, total);
  for (;;) {
    if (options.signal?.aborted) throw new KbqaError('ABORTED', 'embedding was interrupted');
    const page = await vectors.pending(batchSize, afterId, options.projectId);
    if (page.length === 0) break;
    afterId = page[page.length - 1]!.chunkId;
    const batch = page.filter((c) => c.chunkId <= highest && (!wanted || wanted.has(c.chunkId)));
    if (batch.length > 0) {
      const embedded = await embedder.embed(
        batch.map((c) => c.text),
        'passage',
      );
      await vectors.store(batch.map((c, i) => ({ chunkId: c.chunkId, vector: embedded[i]! })));
      done += batch.length;
      await options.onProgress?.(Math.min(done, total), total);
    }
    if (afterId >= highest) break;
  }
  return done;
}

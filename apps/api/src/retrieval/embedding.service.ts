import { Injectable } from '@nestjs/common';

export type RetrievalMode = 'lexical' | 'hybrid';

/**
 * Owns the embedding model: loads it in the background, embeds new chunks and answers which
 * retrieval mode is live. Without a model every method is a no-op and retrieval is lexical.
 */
@Injectable()
export class EmbeddingService {
  retrievalMode(): RetrievalMode {
    return 'lexical';
  }

  /** The query vector when a model is ready; undefined means lexical retrieval. */
  embedQuery(_text: string): Promise<Float32Array | undefined> {
    return Promise.resolve(undefined);
  }

  /** Embeds the given chunks when a model is ready (reporting progress); otherwise does nothing. */
  embedChunks(
    _chunkIds: number[],
    _signal: AbortSignal,
    _progress: (current: number, total: number) => Promise<void>,
  ): Promise<void> {
    return Promise.resolve();
  }
}

import 'reflect-metadata';
import type { ChunkStore, Reranker, SearchHit, SearchQuery } from '@kbqa/core';
import type { ReadPool } from '@kbqa/read-pool';
import type { RerankSettings } from './rerank';
import type { EmbeddingService } from './embedding.service';
import { RetrievalService } from './retrieval.service';

const hit = (chunkId: number, score: number) => ({ chunkId, score }) as unknown as SearchHit;

/** A store that records the queries it gets and answers with fixed hits. */
function fakeStore(hits: SearchHit[]) {
  const queries: SearchQuery[] = [];
  const store = {
    search: (q: SearchQuery) => {
      queries.push(q);
      return Promise.resolve(hits);
    },
  } as unknown as ChunkStore;
  return { store, queries };
}

const embedding = (vector: Float32Array | undefined, reranking?: RerankSettings) =>
  ({ embedQuery: () => Promise.resolve(vector), reranking: () => reranking }) as unknown as EmbeddingService;

/** A reranker that scores each text by the number in it ("chunk 7" scores 7). */
const numberReranker = (calls: string[][] = []): Reranker => ({
  id: 'fake-reranker',
  rerank: (_query, texts) => {
    calls.push(texts);
    return Promise.resolve(texts.map((t) => Number(/chunk (\d+)/.exec(t)?.[1] ?? 0)));
  },
});

const textHit = (chunkId: number, score: number) =>
  ({ chunkId, score, title: '', headingPath: [], content: `chunk ${chunkId}` }) as unknown as SearchHit;

describe(RetrievalService.name, () => {
  const request = { projectId: 3, question: 'how do hooks run?', topK: 5, filters: [], threshold: 0 };

  it('searches lexically while no model is ready', async () => {
    const { store, queries } = fakeStore([hit(1, 0.9)]);
    const hits = await new RetrievalService(store, embedding(undefined)).retrieve(request);
    expect(hits).toHaveLength(1);
    expect(queries).toEqual([
      { projectId: 3, text: 'how do hooks run?', vector: undefined, topK: 5, filters: [], mode: 'lexical' },
    ]);
  });

  it('searches hybrid with the query vector once a model is ready', async () => {
    const vector = new Float32Array([0.1, 0.2]);
    const { store, queries } = fakeStore([]);
    await new RetrievalService(store, embedding(vector)).retrieve({
      ...request,
      filters: [{ key: 'lang', op: 'eq', value: 'en' }] as never,
    });
    expect(queries[0]).toMatchObject({
      mode: 'hybrid',
      vector,
      filters: [{ key: 'lang', op: 'eq', value: 'en' }],
    });
  });

  it('searches a focus as the text, its question as what is embedded', async () => {
    const embedded: string[] = [];
    const vector = new Float32Array([0.3]);
    const embedder = {
      embedQuery: (text: string) => (embedded.push(text), Promise.resolve(vector)),
      reranking: () => undefined,
    } as unknown as EmbeddingService;
    const { store, queries } = fakeStore([]);
    await new RetrievalService(store, embedder).retrieve({
      ...request,
      question: 'how do I register guards globally?',
      focus: 'guards',
      context: 'how do I register globally',
    });
    expect(embedded).toEqual(['how do I register guards globally?']);
    expect(queries[0]).toMatchObject({ text: 'guards', context: 'how do I register globally', vector });
  });

  it('searches through the read pool while it has workers, and on its own connection when none is left', async () => {
    const { store, queries } = fakeStore([hit(1, 0.9)]);
    const pooled = fakeStore([hit(2, 0.8)]);
    const pool = { size: 2, search: pooled.store.search } as unknown as ReadPool;
    const service = new RetrievalService(store, embedding(undefined), pool);
    expect((await service.retrieve(request)).map((h) => h.chunkId)).toEqual([2]);
    (pool as unknown as { size: number }).size = 0;
    expect((await service.retrieve(request)).map((h) => h.chunkId)).toEqual([1]);
    expect([queries.length, pooled.queries.length]).toEqual([1, 1]);
  });

  it('drops hits below the relevance threshold, and asks nothing at a threshold of 1', async () => {
    const { store, queries } = fakeStore([hit(1, 0.9), hit(2, 0.4), hit(3, 0.5)]);
    const service = new RetrievalService(store, embedding(undefined));
    expect((await service.retrieve({ ...request, threshold: 0.5 })).map((h) => h.chunkId)).toEqual([1, 3]);
    expect(await service.retrieve({ ...request, threshold: 1 })).toEqual([]);
    expect(queries).toHaveLength(1);
  });

  it('reads the reranker top candidates and returns topK in its order, keeping the fused scores in place', async () => {
    const calls: string[][] = [];
    const { store, queries } = fakeStore([
      textHit(1, 0.9),
      textHit(2, 0.8),
      textHit(3, 0.7),
      textHit(9, 0.6),
    ]);
    const service = new RetrievalService(
      store,
      embedding(undefined, { reranker: numberReranker(calls), top: 3, budgetMs: 1_000 }),
    );
    const hits = await service.retrieve({ ...request, topK: 2 });
    expect(queries[0]?.topK).toBe(3);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(3);
    // Chunk 9 is outside the reranked head; 3 > 2 > 1 by the reranker.
    expect(hits.map((h) => [h.chunkId, h.score])).toEqual([
      [3, 0.9],
      [2, 0.8],
    ]);
  });

  it('keeps the fused order when the reranker misses its budget', async () => {
    const never: Reranker = { id: 'slow', rerank: () => new Promise<number[]>(() => undefined) };
    const { store } = fakeStore([textHit(1, 0.9), textHit(2, 0.8), textHit(3, 0.7)]);
    const service = new RetrievalService(
      store,
      embedding(undefined, { reranker: never, top: 20, budgetMs: 5 }),
    );
    expect((await service.retrieve(request)).map((h) => h.chunkId)).toEqual([1, 2, 3]);
  });

  it('keeps the fused order when the reranker fails', async () => {
    const failing: Reranker = { id: 'broken', rerank: () => Promise.reject(new Error('worker gone')) };
    const { store } = fakeStore([textHit(1, 0.9), textHit(2, 0.8)]);
    const service = new RetrievalService(
      store,
      embedding(undefined, { reranker: failing, top: 20, budgetMs: 1_000 }),
    );
    expect((await service.retrieve(request)).map((h) => h.chunkId)).toEqual([1, 2]);
  });
});

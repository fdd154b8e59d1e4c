import 'reflect-metadata';
import type { ChunkStore, SearchHit, SearchQuery } from '@kbqa/core';
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

const embedding = (vector: Float32Array | undefined) =>
  ({ embedQuery: () => Promise.resolve(vector) }) as unknown as EmbeddingService;

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

  it('drops hits below the relevance threshold, and asks nothing at a threshold of 1', async () => {
    const { store, queries } = fakeStore([hit(1, 0.9), hit(2, 0.4), hit(3, 0.5)]);
    const service = new RetrievalService(store, embedding(undefined));
    expect((await service.retrieve({ ...request, threshold: 0.5 })).map((h) => h.chunkId)).toEqual([1, 3]);
    expect(await service.retrieve({ ...request, threshold: 1 })).toEqual([]);
    expect(queries).toHaveLength(1);
  });
});

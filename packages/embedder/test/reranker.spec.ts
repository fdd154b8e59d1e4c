import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { cp, mkdir, rm } from 'node:fs/promises';
import { EmbedderHost } from '../src/embedder.host';
import { TransformersEmbedder } from '../src/transformers.embedder';
import { embeddingProfile, resolveEmbedding, DEFAULT_EMBED_MODEL } from '../src/model-profiles';
import { makeTinyModel, makeTinyReranker } from '../src/testing';
import { WORKER_PATH, tempDir } from './helpers';

describe('TransformersEmbedder reranking with the generated tiny cross-encoder', () => {
  const tmp = tempDir('kbqa-rerank-');
  let embedder: TransformersEmbedder;

  beforeAll(async () => {
    const model = await makeTinyModel(tmp.dir);
    const reranker = await makeTinyReranker(tmp.dir);
    embedder = await TransformersEmbedder.load({
      model,
      modelsDir: tmp.dir,
      offline: true,
      rerankModel: reranker,
      workerPath: WORKER_PATH,
    });
  });

  afterAll(async () => {
    await embedder.close();
    tmp.remove();
  });

  it('loads the cross-encoder beside the embedder and scores pairs as its weights say', async () => {
    expect(await embedder.rerankerReady()).toEqual({ status: 'ready' });
    const scores = await embedder.rerank('which answer', [
      'a good answer',
      'the best answer',
      'plain',
      'better',
    ]);
    // Token weights best 3, better 2, good 1; the query adds the same to every pair.
    expect(scores).toEqual([1, 3, 0, 2]);
    expect(embedder.reranker()?.id).toContain('kbqa-tiny-cross-encoder');
  });

  it('keeps input order across several forward passes of texts of different lengths', async () => {
    const words = ['good', 'best', 'better', 'plain'];
    const texts = Array.from({ length: 19 }, (_, i) => `${'x '.repeat((i * 7) % 11)}${words[i % 4]}`);
    const expected = texts.map((t) => ({ good: 1, best: 3, better: 2, plain: 0 })[t.split(' ').pop()!]);
    expect(await embedder.rerank('which', texts)).toEqual(expected);
  });

  it('still embeds while it reranks', async () => {
    const [vectors, scores] = await Promise.all([
      embedder.embed(['route options'], 'passage'),
      embedder.rerank('q', ['good']),
    ]);
    expect(vectors).toHaveLength(1);
    expect(scores).toEqual([1]);
  });

  it('drops a rerank job whose deadline passed before the worker was free', async () => {
    await expect(embedder.rerank('q', ['good'], { deadline: Date.now() - 1 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(await embedder.rerank('q', ['best'])).toEqual([3]);
  });
});

describe('TransformersEmbedder with a missing reranker', () => {
  const tmp = tempDir('kbqa-rerank-missing-');
  afterAll(() => tmp.remove());

  it('embeds as before and reports the reranker unavailable', async () => {
    const model = await makeTinyModel(tmp.dir);
    const embedder = await TransformersEmbedder.load({
      model,
      modelsDir: tmp.dir,
      offline: true,
      rerankModel: 'Xenova/ms-marco-MiniLM-L-6-v2',
      workerPath: WORKER_PATH,
    });
    try {
      expect((await embedder.rerankerReady()).status).toBe('unavailable');
      expect(await embedder.embed(['still works'], 'query')).toHaveLength(1);
      expect(embedder.reranker()).toBeUndefined();
    } finally {
      await embedder.close();
    }
  });
});

describe(EmbedderHost.name, () => {
  const tmp = tempDir('kbqa-rerank-host-');
  afterAll(() => tmp.remove());

  it('warns once and offers no reranker when the reranking model is missing', async () => {
    const warnings: string[] = [];
    const host = new EmbedderHost({
      model: await makeTinyModel(tmp.dir),
      modelsDir: tmp.dir,
      offline: true,
      rerankModel: 'Xenova/ms-marco-MiniLM-L-6-v2',
      workerPath: WORKER_PATH,
      command: './kbqa-linux-x64',
      logger: { warn: (m) => warnings.push(m) },
    });
    host.start();
    expect((await host.settled()).status).toBe('ready');
    expect(host.rerankerState.status).toBe('unavailable');
    expect(host.reranker()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('run `./kbqa-linux-x64 models pull Xenova/ms-marco-MiniLM-L-6-v2`');
    await host.close();
  });

  it('offers the reranker once it is ready', async () => {
    const host = new EmbedderHost({
      model: await makeTinyModel(tmp.dir),
      modelsDir: tmp.dir,
      offline: true,
      rerankModel: await makeTinyReranker(tmp.dir),
      workerPath: WORKER_PATH,
    });
    host.start();
    await host.settled();
    expect(host.rerankerState).toEqual({ status: 'ready' });
    expect(await host.reranker()?.rerank('q', ['x', 'good'])).toEqual([0, 1]);
    await host.close();
  });

  it('closes without waiting for a reranker that is still downloading', async () => {
    // A hub that never answers: the reranker stays loading for as long as the test lasts.
    const hub = createServer(() => undefined);
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    const warnings: string[] = [];
    const host = new EmbedderHost({
      model: await makeTinyModel(tmp.dir),
      modelsDir: tmp.dir,
      offline: false,
      remoteHost: `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`,
      rerankModel: 'kbqa/hanging-reranker',
      workerPath: WORKER_PATH,
      logger: { warn: (m) => warnings.push(m) },
    });
    try {
      host.start();
      await new Promise((resolve) => host.onReady(resolve));
      expect(host.rerankerState.status).toBe('loading');
      await host.close();
      expect(host.reranker()).toBeUndefined();
      expect(warnings).toEqual([]);
    } finally {
      hub.closeAllConnections();
      await new Promise((resolve) => hub.close(resolve));
    }
  });

  it('logs that it guessed for a model outside the table', async () => {
    const logs: string[] = [];
    const host = new EmbedderHost({
      model: await makeTinyModel(tmp.dir),
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
      logger: { warn: (m) => logs.push(m), log: (m) => logs.push(m) },
    });
    host.start();
    await host.settled();
    expect(logs.filter((l) => l.includes('not in kbqa'))).toHaveLength(1);
    expect(logs.join('\n')).toContain('mean pooling');
    await host.close();
  });
});

describe('model table', () => {
  const tmp = tempDir('kbqa-profiles-');
  afterAll(() => tmp.remove());

  it('picks a default at least 7 points above all-MiniLM-L6-v2 with the same shape', () => {
    const minilm = embeddingProfile('sentence-transformers/all-MiniLM-L6-v2')!;
    const chosen = embeddingProfile(DEFAULT_EMBED_MODEL)!;
    expect(chosen.retrieval!.ndcgAt10 - minilm.retrieval!.ndcgAt10).toBeGreaterThanOrEqual(7);
    expect([chosen.layers, chosen.hidden, chosen.dimension]).toEqual([
      minilm.layers,
      minilm.hidden,
      minilm.dimension,
    ]);
  });

  it('falls back to mean pooling, normalized, without prefixes for unknown models', () => {
    expect(resolveEmbedding('someone/some-model')).toEqual({
      pooling: 'mean',
      normalize: true,
      queryPrefix: '',
      documentPrefix: '',
      known: false,
    });
    expect(resolveEmbedding('intfloat/e5-small-v2')).toMatchObject({ queryPrefix: 'query: ', known: true });
  });

  it("applies a table model's query and document prefixes and records them in the id", async () => {
    const plainDir = await makeTinyModel(tmp.dir);
    // The tiny model under an e5 name: the table row is found by the folder's last two parts.
    const e5Dir = path.join(tmp.dir, 'Xenova', 'e5-small-v2');
    await mkdir(e5Dir, { recursive: true });
    await cp(plainDir, e5Dir, { recursive: true });
    const options = { modelsDir: tmp.dir, offline: true, workerPath: WORKER_PATH };
    const plain = await TransformersEmbedder.load({ ...options, model: plainDir });
    const e5 = await TransformersEmbedder.load({ ...options, model: e5Dir });
    try {
      expect(e5.id).toBe(`${e5Dir}@q8+doc-prefix`);
      expect(e5.knownModel).toBe(true);
      const [query] = await e5.embed(['register a plugin'], 'query');
      const [passage] = await e5.embed(['register a plugin'], 'passage');
      const [expectedQuery, expectedPassage] = await plain.embed(
        ['query: register a plugin', 'passage: register a plugin'],
        'passage',
      );
      expect(Array.from(query!)).toEqual(Array.from(expectedQuery!));
      expect(Array.from(passage!)).toEqual(Array.from(expectedPassage!));
    } finally {
      await plain.close();
      await e5.close();
    }
  });
});

describe('TransformersEmbedder quantization fallback', () => {
  const tmp = tempDir('kbqa-dtype-');
  afterAll(() => tmp.remove());

  it('loads model.onnx when the quantized file is missing, and says so in its id', async () => {
    const dir = await makeTinyModel(tmp.dir);
    await rm(path.join(dir, 'onnx', 'model_quantized.onnx'));
    const embedder = await TransformersEmbedder.load({
      model: dir,
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    try {
      expect(embedder.id).toBe(`${dir}@fp32`);
      expect(await embedder.embed(['works'], 'query')).toHaveLength(1);
    } finally {
      await embedder.close();
    }
  });
});

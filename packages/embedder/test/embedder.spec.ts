import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { KbqaError } from '@kbqa/core';
import { TransformersEmbedder } from '../src/transformers.embedder';
import { TINY_MODEL_DIMENSION, TINY_MODEL_NAME, makeTinyModel } from '../src/testing';
import { WORKER_PATH, cosine, norm, tempDir } from './helpers';

// The tiny model goes through exactly the loading code a real model uses: a transformers.js
// `feature-extraction` pipeline in the worker thread, reading config, tokenizer and ONNX files.
describe('TransformersEmbedder with the generated tiny model', () => {
  const tmp = tempDir('kbqa-embedder-');
  let modelDir: string;
  let embedder: TransformersEmbedder;

  beforeAll(async () => {
    modelDir = await makeTinyModel(tmp.dir);
    embedder = await TransformersEmbedder.load({
      model: TINY_MODEL_NAME,
      modelsDir: tmp.dir,
      offline: true,
      batchSize: 8,
      workerPath: WORKER_PATH,
    });
  });

  afterAll(async () => {
    await embedder.close();
    tmp.remove();
  });

  it('reports the dimension and an id naming the model and quantization', () => {
    expect(embedder.dimension).toBe(TINY_MODEL_DIMENSION);
    expect(embedder.id).toBe(`${TINY_MODEL_NAME}@q8`);
  });

  it('returns one normalized vector per text', async () => {
    const vectors = await embedder.embed(['how to register a plugin', 'route options', 'x'], 'passage');
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toHaveLength(TINY_MODEL_DIMENSION);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic across calls and across model loads', async () => {
    const text = 'decorate the request with a user property';
    const [a] = await embedder.embed([text], 'query');
    const [b] = await embedder.embed([text], 'passage');
    const other = await TransformersEmbedder.load({
      model: modelDir,
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    try {
      const [c] = await other.embed([text], 'query');
      expect(Array.from(b!)).toEqual(Array.from(a!));
      expect(Array.from(c!)).toEqual(Array.from(a!));
    } finally {
      await other.close();
    }
  });

  it('scores related texts closer than unrelated ones', async () => {
    const [question, related, unrelated] = await embedder.embed(
      [
        'how do I set the port the server listens on',
        'the listen method takes a port and a host for the server',
        'validation schemas are compiled with ajv',
      ],
      'passage',
    );
    expect(cosine(question!, related!)).toBeGreaterThan(cosine(question!, unrelated!) + 0.1);
  });

  it('splits large inputs into batches and keeps the order', async () => {
    const texts = Array.from({ length: 21 }, (_, i) => `hook number ${i} runs after the handler`);
    const all = await embedder.embed(texts, 'passage');
    expect(all).toHaveLength(21);
    for (const i of [0, 7, 8, 20]) {
      const [alone] = await embedder.embed([texts[i]!], 'passage');
      expect(Array.from(all[i]!)).toEqual(Array.from(alone!));
    }
  });

  it('lets a query overtake queued ingestion batches', async () => {
    const order: string[] = [];
    const passages = Array.from({ length: 6 }, (_, b) =>
      embedder
        .embed(
          Array.from({ length: 8 }, (_, i) => `passage ${b} ${i} about logging and serializers`),
          'passage',
        )
        .then(() => order.push(`passage-${b}`)),
    );
    const query = embedder.embed(['which logger does it use'], 'query').then(() => order.push('query'));
    await Promise.all([...passages, query]);
    // The first passage batch was already in the worker; the query runs right after it.
    expect(order.indexOf('query')).toBeLessThanOrEqual(1);
  });

  it('writes the same model bytes on every run', async () => {
    const again = tempDir('kbqa-embedder-again-');
    try {
      const second = await makeTinyModel(again.dir);
      const files = (await readdir(modelDir, { recursive: true })).filter((f) => f.includes('.'));
      expect(files).toEqual(
        expect.arrayContaining(['config.json', 'tokenizer.json', path.join('onnx', 'model_quantized.onnx')]),
      );
      for (const file of files) {
        expect(await readFile(path.join(second, file))).toEqual(await readFile(path.join(modelDir, file)));
      }
    } finally {
      again.remove();
    }
  });
});

describe('TransformersEmbedder failures', () => {
  const tmp = tempDir('kbqa-embedder-missing-');
  afterAll(() => tmp.remove());

  it('fails offline with MODEL_UNAVAILABLE naming the model and how to provide it', async () => {
    const error = await TransformersEmbedder.load({
      model: 'Xenova/all-MiniLM-L6-v2',
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
      command: 'pnpm kbqa',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KbqaError);
    expect((error as KbqaError).code).toBe('MODEL_UNAVAILABLE');
    expect((error as KbqaError).message).toContain('Xenova/all-MiniLM-L6-v2');
    // The command as the user runs it (here from a clone of the repository).
    expect((error as KbqaError).message).toContain('run `pnpm kbqa models pull Xenova/all-MiniLM-L6-v2`');
    expect((error as KbqaError).message).toContain('KBQA_EMBED_MODEL=none');
  });

  it('rejects work after close', async () => {
    const dir = await makeTinyModel(tmp.dir);
    const embedder = await TransformersEmbedder.load({
      model: dir,
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    await embedder.close();
    await expect(embedder.embed(['anything'], 'query')).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { EmbedderState } from '@kbqa/core';
import { EmbedderHost } from '../src/embedder.host';
import { pullModel } from '../src/pull-model';
import { TransformersEmbedder } from '../src/transformers.embedder';
import type { ModelProgress } from '../src/worker-protocol';
import {
  TINY_MODEL_DIMENSION,
  TINY_MODEL_NAME,
  TINY_RERANKER_NAME,
  makeTinyModel,
  makeTinyReranker,
} from '../src/testing';
import { WORKER_PATH, tempDir } from './helpers';

describe('EmbedderHost', () => {
  const tmp = tempDir('kbqa-host-');
  let modelDir: string;
  beforeAll(async () => {
    modelDir = await makeTinyModel(tmp.dir);
  });
  afterAll(() => tmp.remove());

  it('starts without waiting for the model and becomes ready in the background', async () => {
    const states: EmbedderState['status'][] = [];
    const host = new EmbedderHost({
      model: modelDir,
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    host.onStateChange((s) => states.push(s.status));
    host.start();
    expect(host.state.status).toBe('loading');
    expect(host.get()).toBeUndefined();
    const ready = new Promise((resolve) => host.onReady(resolve));
    expect(await host.settled()).toEqual({
      status: 'ready',
      model: modelDir,
      dimension: TINY_MODEL_DIMENSION,
    });
    await ready;
    expect(host.get()?.dimension).toBe(TINY_MODEL_DIMENSION);
    expect(states).toEqual(['ready']);
    await host.close();
  });

  it('keeps running lexical-only and warns once, naming the model, when it cannot load', async () => {
    const warnings: string[] = [];
    const host = new EmbedderHost({
      model: 'Xenova/all-MiniLM-L6-v2',
      modelsDir: tmp.dir,
      offline: true,
      workerPath: WORKER_PATH,
      logger: { warn: (m) => warnings.push(m) },
    });
    host.start();
    const state = await host.settled();
    expect(state.status).toBe('unavailable');
    expect(host.get()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Xenova/all-MiniLM-L6-v2');
    // Without `command`, the installed package's `kbqa`.
    expect(warnings[0]).toContain('run `kbqa models pull Xenova/all-MiniLM-L6-v2`');
    await host.close();
  });

  it('does nothing with model none', async () => {
    const host = new EmbedderHost({ model: 'none', modelsDir: tmp.dir, offline: true });
    host.start();
    expect(await host.settled()).toEqual({ status: 'disabled' });
    expect(host.get()).toBeUndefined();
  });
});

/** A stand-in for the model hub on 127.0.0.1: `/<id>/resolve/main/<file>` from a local folder. */
async function fakeHub(root: string, requests: string[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
    const file = match ? path.join(root, match[1]!, match[2]!) : '';
    if (!match || !file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': statSync(file).size, 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

describe('pullModel', () => {
  const hubRoot = tempDir('kbqa-hub-');
  const cache = tempDir('kbqa-cache-');
  const requests: string[] = [];
  let hub: { server: Server; url: string };

  beforeAll(async () => {
    // The hub holds the tiny model under an organisation-style id, as the real hub would.
    await makeTinyModel(path.join(hubRoot.dir, 'kbqa'));
    await makeTinyReranker(path.join(hubRoot.dir, 'kbqa'));
    hub = await fakeHub(hubRoot.dir, requests);
  });
  afterAll(async () => {
    await new Promise((resolve) => hub.server.close(resolve));
    hubRoot.remove();
    cache.remove();
  });

  it('downloads a model into the cache with progress, after which it loads offline', async () => {
    const id = `kbqa/${TINY_MODEL_NAME}`;
    const progress: ModelProgress[] = [];
    const { dimension } = await pullModel(id, {
      modelsDir: cache.dir,
      remoteHost: hub.url,
      workerPath: WORKER_PATH,
      onProgress: (p) => progress.push(p),
    });
    expect(dimension).toBe(TINY_MODEL_DIMENSION);
    expect(requests.some((r) => r.endsWith('/onnx/model_quantized.onnx'))).toBe(true);
    expect(progress.some((p) => p.type === 'file' && p.status === 'done')).toBe(true);
    expect(progress.some((p) => p.type === 'bytes' || p.type === 'total')).toBe(true);

    const before = requests.length;
    const offline = await TransformersEmbedder.load({
      model: id,
      modelsDir: cache.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    expect(offline.dimension).toBe(TINY_MODEL_DIMENSION);
    await offline.close();
    expect(requests.length).toBe(before);
  });

  it('downloads a reranker into the cache, after which it reranks offline', async () => {
    const id = `kbqa/${TINY_RERANKER_NAME}`;
    await pullModel(id, {
      modelsDir: cache.dir,
      remoteHost: hub.url,
      workerPath: WORKER_PATH,
      kind: 'reranker',
    });
    const offline = await TransformersEmbedder.load({
      model: id,
      rerankModel: id,
      rerankOnly: true,
      modelsDir: cache.dir,
      offline: true,
      workerPath: WORKER_PATH,
    });
    try {
      expect(await offline.rerankerReady()).toEqual({ status: 'ready' });
      expect(await offline.rerank('q', ['good', 'best'])).toEqual([1, 3]);
    } finally {
      await offline.close();
    }
  });

  it('fails with MODEL_UNAVAILABLE naming reranking for a reranker the hub does not have', async () => {
    await expect(
      pullModel('kbqa/no-such-reranker', {
        modelsDir: cache.dir,
        remoteHost: hub.url,
        workerPath: WORKER_PATH,
        kind: 'reranker',
      }),
    ).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      message: expect.stringContaining('Reranking model'),
    });
  });

  it('fails with MODEL_UNAVAILABLE for a model the hub does not have', async () => {
    await expect(
      pullModel('kbqa/no-such-model', { modelsDir: cache.dir, remoteHost: hub.url, workerPath: WORKER_PATH }),
    ).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
  });
});

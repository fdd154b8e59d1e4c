import { cpSync, createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANSWER_FLOOR } from '@kbqa/core';
import { readDocsCorpusFile } from '@kbqa/core/testing';
import { SqliteChunkIndex } from '@kbqa/store-sqlite';
import request from 'supertest';
import { Logger } from '@nestjs/common';
import { makeTinyModel, makeTinyReranker, TINY_MODEL_DIMENSION } from '@kbqa/embedder/testing';
import { EmbeddingService } from '../src/retrieval/embedding.service';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { cli } from './process-helpers';

// Pages of the repository's docs corpus (fixtures/docs-corpus).
const PAGES = [
  'reference/server.md',
  'reference/hooks.md',
  'reference/decorators.md',
  'guides/getting-started.md',
];

function pages(): Array<{ source: string; content: string; metadata: Record<string, string> }> {
  return PAGES.map((page) => ({
    source: page,
    content: readDocsCorpusFile(page),
    metadata: { section: page.split('/')[0]! },
  }));
}

async function ingest(t: TestApp, p: TestProject, documents = pages()): Promise<Record<string, unknown>> {
  const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
  return t.waitForTask(res.body.task_id, 60_000);
}

function counts(t: TestApp, projectId: number): { chunks: number; vectors: number; pending: number } {
  const index = t.app.get(SqliteChunkIndex);
  return {
    chunks: index.countChunks(projectId),
    vectors: index.vectors.countVectors(projectId),
    pending: index.vectors.countPending(projectId),
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('embedding model in the service (tiny generated model, offline)', () => {
  const root = mkdtempSync(join(tmpdir(), 'kbqa-embed-e2e-'));
  let modelDir: string;
  beforeAll(async () => {
    modelDir = await makeTinyModel(join(root, 'models'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  describe('with the model available', () => {
    let t: TestApp;
    let p: TestProject;
    beforeAll(async () => {
      t = await startTestApp({ KBQA_EMBED_MODEL: modelDir, KBQA_OFFLINE: '1' });
      expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
      p = await t.createProject('hybrid');
      await ingest(t, p);
    });
    afterAll(() => t.close());

    it('reports hybrid retrieval on /health', async () => {
      const health = await request(t.http).get('/health').expect(200);
      expect(health.body.retrieval).toBe('hybrid');
    });

    it('embeds every chunk during ingestion', () => {
      const c = counts(t, p.id);
      expect(c.chunks).toBeGreaterThan(20);
      expect(c.vectors).toBe(c.chunks);
      expect(c.pending).toBe(0);
    });

    it('answers with hybrid retrieval and cites the page that answers', async () => {
      const res = await t
        .post('/v1/serviceChat', {
          api_key: p.serverKey,
          question: 'which hooks of the request lifecycle run, like onRequest and beforeHandler',
          history: [],
          shouldStream: false,
        })
        .expect(200);
      const sources = res.body.sources as Array<{ link: string; relevance_score: number }>;
      expect(sources.length).toBeGreaterThan(0);
      expect(sources[0]!.link).toBe('reference/hooks.md');
      // Hybrid scores are in [0, 1] and never rise down the list; the page that answers clears the floor.
      const scores = sources.map((s) => s.relevance_score);
      expect(scores[0]).toBeGreaterThanOrEqual(ANSWER_FLOOR);
      expect(scores[0]).toBeLessThanOrEqual(1);
      expect(scores[scores.length - 1]).toBeGreaterThanOrEqual(0);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      const vector = await t.app.get(EmbeddingService).embedQuery('hooks');
      expect(vector).toHaveLength(TINY_MODEL_DIMENSION);
    });

    it('removes the vectors of a deleted source', async () => {
      const before = counts(t, p.id);
      await t.post('/v1/deleteSource', { api_key: p.serverKey, source: 'reference/hooks.md' }).expect(200);
      const after = counts(t, p.id);
      expect(after.vectors).toBe(after.chunks);
      expect(after.vectors).toBeLessThan(before.vectors);
    });
  });

  describe('without a model, then reindex, then a model change', () => {
    const dataDir = join(root, 'data');
    const env = (model: string) => ({
      KBQA_DATA_DIR: dataDir,
      KBQA_EMBED_MODEL: model,
      KBQA_OFFLINE: '1',
      KBQA_MODELS_DIR: join(root, 'empty-cache'),
    });
    let projectId: number;
    let p: TestProject;

    it('starts lexical at once when the model is missing, and answers and ingests', async () => {
      const t = await startTestApp(env('Xenova/all-MiniLM-L6-v2'), { dataDir });
      try {
        const health = await request(t.http).get('/health').expect(200);
        expect(health.body.retrieval).toBe('lexical');
        expect(await t.app.get(EmbeddingService).settled()).toBe('lexical');
        expect(t.app.get(EmbeddingService).state).toMatchObject({
          status: 'unavailable',
          model: 'Xenova/all-MiniLM-L6-v2',
        });
        const p = await t.createProject('later');
        projectId = p.id;
        await ingest(t, p);
        const c = counts(t, p.id);
        expect(c.vectors).toBe(0);
        expect(c.pending).toBe(c.chunks);
        const res = await t
          .post('/v1/serviceChat', {
            api_key: p.serverKey,
            question: 'how do I decorate the request object',
            history: [],
            shouldStream: false,
          })
          .expect(200);
        expect(res.body.sources[0].link).toBe('reference/decorators.md');
      } finally {
        await t.close();
      }
    });

    it('reindex embeds the existing chunks and prints one JSON object', async () => {
      const out = JSON.parse(await cli(['reindex', '--json'], env(modelDir)));
      expect(out).toMatchObject({ dimension: TINY_MODEL_DIMENSION, reset: false, project_id: null });
      expect(out.embedded).toBeGreaterThan(20);
      expect(out.vectors).toBe(out.embedded);
    });

    it('a service on the reindexed data is hybrid with nothing pending', async () => {
      const t = await startTestApp(env(modelDir), { dataDir });
      try {
        expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
        const c = counts(t, projectId);
        expect(c.pending).toBe(0);
        expect(c.vectors).toBe(c.chunks);
      } finally {
        await t.close();
      }
    });

    it('refuses an index built by another model with a message naming reindex, then reindex rebuilds it', async () => {
      // A copy of the model in another folder is another model id to the index.
      const otherModel = join(root, 'other-model');
      cpSync(modelDir, otherModel, { recursive: true });
      const t = await startTestApp(env(otherModel), { dataDir });
      try {
        expect(await t.app.get(EmbeddingService).settled()).toBe('lexical');
        const index = t.app.get(SqliteChunkIndex);
        let error: unknown;
        try {
          index.vectors.attach(`${otherModel}@q8`, TINY_MODEL_DIMENSION);
        } catch (e) {
          error = e;
        }
        expect(error).toMatchObject({ code: 'INDEX_MISMATCH' });
        // The command as this process was started (jest from node_modules: `kbqa`).
        expect((error as Error).message).toContain(`run \`${t.config.command} reindex\``);
        const health = await request(t.http).get('/health').expect(200);
        expect(health.body).toMatchObject({ retrieval: 'lexical' });
        expect(health.body.retrieval_detail).toContain(`run \`${t.config.command} reindex\``);
      } finally {
        await t.close();
      }
      const refused = await cli(['reindex', '--project', String(projectId), '--json'], env(otherModel)).catch(
        (e: { stdout: string }) => e.stdout,
      );
      // The built CLI of a clone: `pnpm kbqa`.
      expect(JSON.parse(refused).error).toContain('run `pnpm kbqa reindex` without --project');
      const out = JSON.parse(await cli(['reindex', '--json'], env(otherModel)));
      expect(out).toMatchObject({ reset: true, model: `${otherModel}@q8` });
      expect(out.embedded).toBe(out.vectors);
    });

    it('embeds chunks stored without a model in the background once the model is ready', async () => {
      const noModel = await startTestApp({ ...env('none') }, { dataDir });
      try {
        p = await noModel.createProject('backfill');
        await ingest(noModel, p);
        expect(counts(noModel, p.id).pending).toBeGreaterThan(0);
      } finally {
        await noModel.close();
      }
      const t = await startTestApp(env(join(root, 'other-model')), { dataDir });
      try {
        expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
        await until(() => counts(t, p.id).pending === 0, 'the background embedding');
        expect(counts(t, p.id).vectors).toBe(counts(t, p.id).chunks);
      } finally {
        await t.close();
      }
    });

    it('keeps the vectors of unchanged content when sources are ingested again', async () => {
      // No model in this process, so every vector present afterwards was carried over.
      const t = await startTestApp(env('none'), { dataDir });
      try {
        const docs = pages();
        docs[0]!.content += '\n\n## A new section\n\nThis paragraph about graceful shutdown is new.\n';
        await ingest(t, p, docs);
        const c = counts(t, p.id);
        expect(c.pending).toBeGreaterThan(0);
        expect(c.pending).toBeLessThan(4);
        expect(c.vectors).toBe(c.chunks - c.pending);
      } finally {
        await t.close();
      }
    });
  });

  describe('kbqa models pull', () => {
    let hub: Server;
    const requests: string[] = [];
    beforeAll(async () => {
      const hubRoot = join(root, 'hub');
      await makeTinyModel(join(hubRoot, 'acme'));
      hub = createServer((req, res) => {
        requests.push(req.url ?? '');
        const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
        const file = m ? join(hubRoot, m[1]!, m[2]!) : '';
        if (!m || !existsSync(file) || !statSync(file).isFile()) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-length': statSync(file).size });
        createReadStream(file).pipe(res);
      });
      await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
    });
    afterAll(() => new Promise((r) => hub.close(r)));

    it('downloads the model into KBQA_MODELS_DIR, after which the service loads it offline', async () => {
      const cache = join(root, 'pulled');
      const host = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
      const out = JSON.parse(
        await cli(['models', 'pull', 'acme/kbqa-tiny-bert', '--json'], {
          KBQA_DATA_DIR: join(root, 'pull-data'),
          KBQA_MODELS_DIR: cache,
          KBQA_MODEL_HOST: host,
        }),
      );
      expect(out).toEqual({
        model: 'acme/kbqa-tiny-bert',
        dimension: TINY_MODEL_DIMENSION,
        models_dir: cache,
        pulled: [{ model: 'acme/kbqa-tiny-bert', kind: 'embedder', dimension: TINY_MODEL_DIMENSION }],
      });
      expect(requests.some((r) => r.endsWith('model_quantized.onnx'))).toBe(true);
      const t = await startTestApp({
        KBQA_EMBED_MODEL: 'acme/kbqa-tiny-bert',
        KBQA_MODELS_DIR: cache,
        KBQA_OFFLINE: '1',
      });
      try {
        expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
      } finally {
        await t.close();
      }
    });

    it('pulls the configured embedder and reranker together, and models list shows them cached', async () => {
      await makeTinyReranker(join(root, 'hub', 'acme'));
      const cache = join(root, 'pulled-both');
      const env = {
        KBQA_DATA_DIR: join(root, 'pull-data'),
        KBQA_MODELS_DIR: cache,
        KBQA_MODEL_HOST: `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`,
        KBQA_EMBED_MODEL: 'acme/kbqa-tiny-bert',
        KBQA_RERANK_MODEL: 'acme/kbqa-tiny-cross-encoder',
      };
      const before = JSON.parse(await cli(['models', 'list', '--json'], env));
      expect(before.configured.map((m: { cached: boolean }) => m.cached)).toEqual([false, false]);
      const out = JSON.parse(await cli(['models', 'pull', '--json'], env));
      expect(out.pulled).toEqual([
        { model: 'acme/kbqa-tiny-bert', kind: 'embedder', dimension: TINY_MODEL_DIMENSION },
        { model: 'acme/kbqa-tiny-cross-encoder', kind: 'reranker', dimension: null },
      ]);
      const list = JSON.parse(await cli(['models', 'list', '--json'], env));
      expect(list.configured).toEqual([
        expect.objectContaining({
          role: 'embedding',
          model: 'acme/kbqa-tiny-bert',
          known: false,
          dimension: TINY_MODEL_DIMENSION,
          pooling: 'mean',
          query_prefix: '',
          cached: true,
        }),
        expect.objectContaining({
          role: 'reranker',
          model: 'acme/kbqa-tiny-cross-encoder',
          cached: true,
          top: 20,
        }),
      ]);
      expect(list.known).toContainEqual(
        expect.objectContaining({
          model: 'Snowflake/snowflake-arctic-embed-xs',
          dimension: 384,
          pooling: 'cls',
          query_prefix: 'Represent this sentence for searching relevant passages: ',
          cached: false,
        }),
      );
    });

    it('refuses to pull when KBQA_OFFLINE is set', async () => {
      const out = await cli(['models', 'pull', 'acme/kbqa-tiny-bert', '--json'], {
        KBQA_DATA_DIR: join(root, 'pull-data'),
        KBQA_OFFLINE: '1',
      }).catch((e: { stdout: string }) => e.stdout);
      expect(JSON.parse(out).error).toContain('KBQA_OFFLINE');
    });
  });

  describe('with a reranker (tiny generated cross-encoder)', () => {
    // The fused order puts the page that repeats the question's words first; the tiny
    // cross-encoder only values "best" (3), "better" (2) and "good" (1).
    const documents = [
      {
        source: 'plain.md',
        content: '# Listen port\n\nThe listen port of the server: set the listen port option.',
      },
      { source: 'best.md', content: '# Notes\n\nThe best choice for the listen port.' },
      { source: 'good.md', content: '# More notes\n\nA good listen port.' },
    ];
    const ask = async (t: TestApp, p: TestProject): Promise<string[]> => {
      const res = await t
        .post('/v1/serviceChat', {
          api_key: p.serverKey,
          question: 'which listen port',
          history: [],
          shouldStream: false,
        })
        .expect(200);
      return (res.body.sources as Array<{ link: string }>).map((s) => s.link);
    };
    let fused: string[];

    it('answers in the fused order without a reranker', async () => {
      const t = await startTestApp({ KBQA_EMBED_MODEL: modelDir, KBQA_OFFLINE: '1' });
      try {
        await t.app.get(EmbeddingService).settled();
        const p = await t.createProject('fused');
        await ingest(
          t,
          p,
          documents.map((d) => ({ ...d, metadata: {} })),
        );
        fused = await ask(t, p);
        expect(fused[0]).toBe('plain.md');
      } finally {
        await t.close();
      }
    });

    it("applies the cross-encoder's order to the fused candidates", async () => {
      const reranker = await makeTinyReranker(join(root, 'models'));
      const t = await startTestApp({
        KBQA_EMBED_MODEL: modelDir,
        KBQA_RERANK_MODEL: reranker,
        KBQA_OFFLINE: '1',
      });
      try {
        await t.app.get(EmbeddingService).settled();
        expect((await request(t.http).get('/health').expect(200)).body.reranker).toBe('ready');
        const p = await t.createProject('reranked');
        await ingest(
          t,
          p,
          documents.map((d) => ({ ...d, metadata: {} })),
        );
        expect(await ask(t, p)).toEqual(['best.md', 'good.md', 'plain.md']);
      } finally {
        await t.close();
      }
    });

    it('answers as before with one warning when the reranking model is missing', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn');
      const t = await startTestApp({
        KBQA_EMBED_MODEL: modelDir,
        KBQA_RERANK_MODEL: 'Xenova/ms-marco-MiniLM-L-6-v2',
        KBQA_MODELS_DIR: join(root, 'empty-cache'),
        KBQA_OFFLINE: '1',
      });
      try {
        await t.app.get(EmbeddingService).settled();
        expect((await request(t.http).get('/health').expect(200)).body.reranker).toBe('unavailable');
        const p = await t.createProject('missing-reranker');
        await ingest(
          t,
          p,
          documents.map((d) => ({ ...d, metadata: {} })),
        );
        expect(await ask(t, p)).toEqual(fused);
        const rerankWarnings = warn.mock.calls.filter(([m]) => String(m).includes('Reranking model'));
        expect(rerankWarnings).toHaveLength(1);
      } finally {
        warn.mockRestore();
        await t.close();
      }
    });
  });
});

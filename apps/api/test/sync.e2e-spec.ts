import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { makeTinyModel } from '@kbqa/embedder/testing';
import { timestampAt } from '@kbqa/core';
import { IndexesService } from '../src/indexes/indexes.service';
import { SyncScheduler } from '../src/indexes/sync.scheduler';
import { EmbeddingService } from '../src/retrieval/embedding.service';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { cli } from './process-helpers';

/**
 * A small documentation site whose pages a test changes between syncs. Pages with `etag` answer
 * conditional requests with 304; the others always send their body (a sync then compares content).
 */
class ChangingSite {
  readonly pages = new Map<string, { title: string; body: string; links: string[]; etag?: boolean }>();
  /** Every request: path and whether it was conditional. */
  readonly requests: Array<{ path: string; conditional: boolean; status: number }> = [];
  down = false;
  server!: TestServer;

  async start(): Promise<void> {
    this.server = await startServer((req, res) => this.handle(req, res));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const conditional = req.headers['if-none-match'] !== undefined;
    const answer = (status: number, headers: Record<string, string> = {}, body = ''): void => {
      this.requests.push({ path, conditional, status });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (this.down) return answer(503, { 'content-type': 'text/plain' }, 'down for maintenance');
    if (path === '/robots.txt') return answer(404);
    const page = this.pages.get(path);
    if (!page) return answer(404, { 'content-type': 'text/html' }, '<html><body>not found</body></html>');
    const html =
      `<!doctype html><html><head><title>${page.title}</title></head><body><main><h1>${page.title}</h1>` +
      `<p>${page.body}</p>${page.links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
    const etag = `"${createHash('sha1').update(html).digest('hex').slice(0, 16)}"`;
    if (page.etag && req.headers['if-none-match'] === etag) return answer(304, { etag });
    answer(200, { 'content-type': 'text/html; charset=utf-8', ...(page.etag ? { etag } : {}) }, html);
  }

  get origin(): string {
    return this.server.origin;
  }
}

function text(words: string): string {
  return `${words} `.repeat(30).trim();
}

describe('indexes: re-sync, incremental ingestion and auto sync (e2e, local site on 127.0.0.1)', () => {
  const root = mkdtempSync(join(tmpdir(), 'kbqa-sync-e2e-'));
  let modelDir: string;
  let site: ChangingSite;

  beforeAll(async () => {
    modelDir = await makeTinyModel(join(root, 'models'));
    site = new ChangingSite();
    await site.start();
  });
  afterAll(async () => {
    await site.server.close();
    rmSync(root, { recursive: true, force: true });
  });

  function resetSite(): void {
    site.down = false;
    site.pages.clear();
    site.pages.set('/', { title: 'Home', body: text('welcome home page'), links: ['/a', '/b', '/c'] });
    site.pages.set('/a', { title: 'Alpha', body: text('alpha routing guide'), links: ['/'], etag: true });
    site.pages.set('/b', { title: 'Beta', body: text('beta plugins guide'), links: ['/'] });
    site.pages.set('/c', { title: 'Gamma', body: text('gamma hooks guide'), links: ['/'], etag: true });
  }

  describe('ingestData again on the same URL', () => {
    let t: TestApp;
    let p: TestProject;
    let embedded: () => number;

    beforeAll(async () => {
      resetSite();
      t = await startTestApp({
        KBQA_EMBED_MODEL: modelDir,
        KBQA_OFFLINE: '1',
        KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort,
      });
      expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
      p = await t.createProject('sync');
      const service = t.app.get(EmbeddingService);
      embedded = () => service.embeddedChunks;
    });
    afterAll(() => t.close());

    const ingest = async (): Promise<Record<string, unknown>> => {
      const res = await t
        .post('/v1/ingestData', { api_key: p.serverKey, url: `${site.origin}/` })
        .expect(200);
      const status = await t.waitForTask(res.body.task_id as number, 60_000);
      return status.result as Record<string, unknown>;
    };
    const sources = async (): Promise<string[]> => {
      const res = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      return (res.body as Array<{ source: string }>).map((s) => s.source).sort();
    };
    const chunkIdsOf = (path: string) =>
      t.query<{ id: number }>(
        'SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.source = ? ORDER BY c.id',
        [`${site.origin}${path}`],
      );

    it('first load adds every page and embeds their chunks', async () => {
      const before = embedded();
      const result = await ingest();
      expect(result).toMatchObject({
        success: true,
        added: 4,
        updated: 0,
        unchanged: 0,
        removed: 0,
        failed: 0,
      });
      expect(embedded() - before).toBeGreaterThan(0);
      expect(await sources()).toEqual(['/', '/a', '/b', '/c'].map((x) => `${site.origin}${x}`));
      const indexes = await t.app.get(IndexesService).list(p.id);
      expect(indexes).toHaveLength(1);
      expect(indexes[0]).toMatchObject({
        type: 'website-crawler',
        url: `${site.origin}/`,
        pages: 4,
        auto_sync: false,
      });
    });

    it('a sync of an unchanged site embeds nothing and asks ETag pages conditionally', async () => {
      const before = embedded();
      const aChunks = await chunkIdsOf('/a');
      site.requests.length = 0;
      const result = await ingest();
      expect(result).toMatchObject({ success: true, added: 0, updated: 0, unchanged: 4, removed: 0 });
      expect(embedded() - before).toBe(0);
      // Same chunk rows: the page was neither chunked nor written again.
      expect(await chunkIdsOf('/a')).toEqual(aChunks);
      expect(site.requests).toContainEqual({ path: '/a', conditional: true, status: 304 });
      // Still one index: the same type and URL re-synced it.
      expect(await t.app.get(IndexesService).list(p.id)).toHaveLength(1);
    });

    it('a changed page answers with its new text, a 404 page goes, a new linked page comes', async () => {
      site.pages.get('/b')!.body = text('beta plugins guide') + ' The zanzibar option encapsulates plugins.';
      site.pages.delete('/c');
      site.pages.set('/d', { title: 'Delta', body: text('delta decorators guide'), links: ['/'] });
      site.pages.get('/')!.links = ['/a', '/b', '/c', '/d'];
      const aChunks = await chunkIdsOf('/a');
      const before = embedded();
      const result = await ingest();
      expect(result).toMatchObject({ success: true, added: 1, updated: 2, unchanged: 1, removed: 1 });
      expect(await sources()).toEqual(['/', '/a', '/b', '/d'].map((x) => `${site.origin}${x}`));
      expect(await chunkIdsOf('/a')).toEqual(aChunks);
      // Only chunks whose text changed are embedded again: fewer than all of the index's chunks.
      const [row] = await t.query<{ n: number }>('SELECT count(*) AS n FROM chunks WHERE project_id = ?', [
        p.id,
      ]);
      const n = row?.n ?? 0;
      const reembedded = embedded() - before;
      expect(reembedded).toBeGreaterThan(0);
      expect(reembedded).toBeLessThan(n);
      const answer = await t
        .post('/v1/serviceChat', {
          api_key: p.serverKey,
          question: 'What does the zanzibar option do?',
          history: [],
          shouldStream: false,
        })
        .expect(200);
      expect(JSON.stringify(answer.body)).toContain('zanzibar');
    });

    it('a sync while the site is down fails with a reason and removes nothing', async () => {
      const kept = await sources();
      site.down = true;
      const result = await ingest();
      site.down = false;
      expect(result.success).toBe(false);
      expect(String(result.error)).toMatch(/503/);
      expect(await sources()).toEqual(kept);
    });

    it('kbqa indexes list and show print the index as JSON', async () => {
      const env = { KBQA_DATA_DIR: t.dataDir, KBQA_EMBED_MODEL: 'none' };
      const list = JSON.parse(await cli(['indexes', 'list', '--project', String(p.id), '--json'], env));
      expect(list.indexes).toHaveLength(1);
      const index = list.indexes[0];
      expect(Object.keys(index)).toEqual(
        expect.arrayContaining([
          'id',
          'project_id',
          'type',
          'url',
          'auto_sync',
          'pages',
          'last_synced_at',
          'next_sync_at',
          'last_task_id',
        ]),
      );
      expect(index.pages).toBe(4);
      expect(index.last_synced_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const shown = JSON.parse(await cli(['indexes', 'show', String(index.id), '--json'], env));
      expect(shown).toEqual(index);
      const on = JSON.parse(await cli(['indexes', 'sync', String(index.id), '--on', '--json'], env));
      expect(on.auto_sync).toBe(true);
      expect(Date.parse(on.next_sync_at)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      const off = JSON.parse(await cli(['indexes', 'sync', String(index.id), '--off', '--json'], env));
      expect(off).toMatchObject({ auto_sync: false, next_sync_at: null });
    });

    it('deleting an index removes its pages and keeps raw documents', async () => {
      await t
        .post('/v1/ingestDocuments', {
          api_key: p.serverKey,
          documents: [{ source: 'notes', content: 'raw notes' }],
        })
        .expect(200)
        .then((r) => t.waitForTask(r.body.task_id as number));
      const [index] = await t.app.get(IndexesService).list(p.id);
      const deleted = await t.app.get(IndexesService).delete(index!.id);
      expect(deleted.removed_pages).toBe(4);
      expect(await sources()).toEqual(['notes']);
      expect(await t.app.get(IndexesService).list(p.id)).toHaveLength(0);
    });
  });

  describe('auto sync', () => {
    it('re-syncs on the interval, and a sync due while the service was down runs after start', async () => {
      resetSite();
      const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-autosync-'));
      const env = { KBQA_SYNC_INTERVAL: '2s', KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort };
      let t = await startTestApp(env, { dataDir });
      try {
        const p = await t.createProject('auto');
        const first = await t
          .post('/v1/ingestData', { api_key: p.serverKey, url: `${site.origin}/` })
          .expect(200);
        await t.waitForTask(first.body.task_id as number);
        const indexes = t.app.get(IndexesService);
        const [index] = await indexes.list(p.id);
        await indexes.setAutoSync(index!.id, true);
        site.pages.get('/b')!.body = text('beta plugins guide') + ' Now with the quokka setting.';
        const synced = await waitFor(async () => {
          const now = await indexes.show(index!.id);
          return now.last_task_id !== first.body.task_id ? now : undefined;
        }, 15_000);
        const status = await t.waitForTask(synced.last_task_id!);
        expect(status.result).toMatchObject({ success: true, updated: 1 });
        const [row] = await t.query<{ content: string }>(
          "SELECT group_concat(content) AS content FROM chunks WHERE content LIKE '%quokka%'",
        );
        expect(row!.content).toContain('quokka');

        // Stop, let the next run fall due while nothing runs, and start again: it runs soon.
        await t.close();
        await fallDue(dataDir);
        const tasksBefore = await countTasks(dataDir);
        t = await startTestApp({ ...env, KBQA_SYNC_INTERVAL: '1h' }, { dataDir });
        const idx = t.app.get(IndexesService);
        const after = await waitFor(async () => {
          const n = await t.query<{ n: number }>('SELECT count(*) AS n FROM ingestion_tasks');
          return n[0]!.n > tasksBefore ? idx.show(index!.id) : undefined;
        }, 10_000);
        // The schedule moved on by the new interval from the run.
        expect(Date.parse(after.next_sync_at!)).toBeGreaterThan(Date.now() + 3_000_000);
      } finally {
        await t.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('switching auto sync off cancels a queued scheduled sync and keeps one asked for by hand', async () => {
      resetSite();
      // A second site whose page is held until released: its load keeps the project's one
      // in-process worker slot busy, so the syncs queued behind it wait.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let asked = false;
      const slow = await startServer((req, res) => {
        if (req.url === '/robots.txt') return void res.writeHead(404).end();
        asked = true;
        void held.then(() => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><html><body><main><h1>Slow</h1><p>${text('slow page')}</p></main></body></html>`,
          );
        });
      });
      const t = await startTestApp({
        KBQA_ALLOW_PRIVATE_HOSTS: `${site.server.hostPort},${slow.hostPort}`,
      });
      try {
        const p = await t.createProject('auto-off');
        const first = await t
          .post('/v1/ingestData', { api_key: p.serverKey, url: `${site.origin}/` })
          .expect(200);
        await t.waitForTask(first.body.task_id as number);
        const indexes = t.app.get(IndexesService);
        const [index] = await indexes.list(p.id);
        await indexes.setAutoSync(index!.id, true);

        const blocking = await t
          .post('/v1/ingestData', { api_key: p.serverKey, url: `${slow.origin}/` })
          .expect(200);
        await waitFor(() => Promise.resolve(asked ? true : undefined), 10_000);
        const [scheduled] = await indexes.startDueSyncs(Date.now() + 10 * 24 * 3_600_000);
        expect(scheduled).toBeDefined();
        const byHand = await indexes.resync(index!.id);

        const view = await indexes.setAutoSync(index!.id, false);
        expect(view.auto_sync).toBe(false);
        release();
        await t.waitForTask(blocking.body.task_id as number, 30_000);
        const handStatus = await t.waitForTask(byHand, 30_000);
        expect(handStatus.result).toMatchObject({ success: true });
        const [row] = await t.query<{ status: string; error_code: string; attempts: number }>(
          'SELECT status, error_code, attempts FROM ingestion_tasks WHERE id = ?',
          [scheduled],
        );
        expect(row).toEqual({ status: 'completed', error_code: 'ABORTED', attempts: 0 });
      } finally {
        release();
        await t.close();
        await slow.close();
      }
    });
  });

  const redisUrl = process.env.REDIS_URL;
  (redisUrl ? describe : describe.skip)('auto sync with Redis and two processes (REDIS_URL)', () => {
    it('runs a due sync once, not once per process', async () => {
      resetSite();
      const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-autosync-redis-'));
      const env = {
        REDIS_URL: redisUrl!,
        KBQA_QUEUE_NAME: `kbqa-sync-test-${process.pid}-${Date.now()}`,
        // Long enough that the schedulers' own ticks (every minute) leave the looks to the test.
        KBQA_SYNC_INTERVAL: '1h',
        KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort,
      };
      const a = await startTestApp(env, { dataDir });
      const b = await startTestApp(env, { dataDir });
      try {
        const p = await a.createProject('two');
        const first = await a
          .post('/v1/ingestData', { api_key: p.serverKey, url: `${site.origin}/` })
          .expect(200);
        await a.waitForTask(first.body.task_id as number);
        const indexes = a.app.get(IndexesService);
        const [index] = await indexes.list(p.id);
        await indexes.setAutoSync(index!.id, true);
        // Due now, and both processes look at the same row at the same moment, twice.
        await a.query("UPDATE indexes SET next_sync_at = '2000-01-01T00:00:00.000000'");
        const look = () => Promise.all([a.app.get(SyncScheduler).tick(), b.app.get(SyncScheduler).tick()]);
        const tasks = () =>
          a.query<{ id: number }>('SELECT id FROM ingestion_tasks WHERE index_id = ?', [index!.id]);
        await look();
        // A look already under way in either process (its first one after start) may be the one that wins.
        await waitFor(async () => ((await tasks()).length > 1 ? true : undefined), 10_000);
        await look();
        expect(await tasks()).toHaveLength(2);
        const shown = await indexes.show(index!.id);
        expect(Date.parse(shown.next_sync_at!)).toBeGreaterThan(Date.now() + 3_000_000);
      } finally {
        await a.close();
        await b.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});

/** Moves every stored due time into the past, as if the service had stayed down past them. */
async function fallDue(dataDir: string): Promise<void> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(dataDir, 'kbqa.sqlite'));
  try {
    db.prepare('UPDATE indexes SET next_sync_at = ? WHERE next_sync_at IS NOT NULL').run(
      timestampAt(Date.now() - 1_000),
    );
  } finally {
    db.close();
  }
}

async function countTasks(dataDir: string): Promise<number> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(dataDir, 'kbqa.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM ingestion_tasks').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

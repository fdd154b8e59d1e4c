import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mountSmallDisk } from './small-disk';
import { startTestApp, type TestApp } from './helpers';

// The last ingestion's WAL alone grows to about 12.5 MB (nothing can be checkpointed while the
// disk is full before it), so the disk has room for it twice over once the fillers are gone: with
// 16 MB it ended with 380 KB free, and a slower run filled it and retried for minutes.
const disk = mountSmallDisk('kbqa-full-disk-', 40, 'the full-disk test');
const mountPoint = disk?.path ?? '';
const mounted = disk !== undefined;

const bigBatch = (n: number) =>
  Array.from({ length: 400 }, (_, i) => ({
    source: `big${n}/doc${i}`,
    content: `# Document ${i}\n\n` + `Batch ${n} paragraph ${i} about hooks, routes and plugins. `.repeat(60),
  }));

(mounted ? describe : describe.skip)('A full disk (e2e, a 40 MB tmpfs of its own)', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  const filler = join(mountPoint, 'filler');

  beforeAll(async () => {
    t = await startTestApp({}, { dataDir: join(mountPoint, 'data') });
  });
  afterAll(async () => {
    await t.close();
    disk?.unmount();
  });

  const statusOf = async (id: number, key: string) =>
    (await t.post('/v1/ingestionStatus', { task_id: String(id), api_key: key }).expect(200)).body;

  const waitForEnd = async (id: number, key: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await statusOf(id, key);
      if (s.status === 'completed') return s.result as { success: boolean; error: string };
      if (Date.now() > deadline) throw new Error(`task ${id} still ${s.status} after 60 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('fails the task that met the full disk with a reason, keeps serving, and loses nothing', async () => {
    const p = await t.createProject('full');
    await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'first', content: 'kept' }],
      })
      .expect(200)
      .then((r) => t.waitForTask(r.body.task_id));
    // Room for the task's payload (about 1.5 MB) but not for its chunks and index.
    const { bavail, bsize } = statfsSync(mountPoint);
    writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - 2.5 * 1024 * 1024)));

    const big = await t
      .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: bigBatch(1) })
      .expect(200);
    const small = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'small', content: 'after' }],
      })
      .expect(200);
    const bigResult = await waitForEnd(big.body.task_id, p.serverKey);
    expect(bigResult.success).toBe(false);
    expect(bigResult.error).toMatch(/disk|space|full/i);
    // The task queued behind it ends too (whether there was room for it or not).
    await waitForEnd(small.body.task_id, p.serverKey);

    // With no room even for the request, it is refused with its own code, not a 500.
    const { bavail: left, bsize: size } = statfsSync(mountPoint);
    writeFileSync(join(mountPoint, 'filler2'), Buffer.alloc(Math.max(0, left * size - 64 * 1024)));
    const refused = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: bigBatch(3) });
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({ error: expect.stringMatching(/disk .* full/), code: 'STORAGE_FULL' });

    rmSync(filler);
    rmSync(join(mountPoint, 'filler2'));
    const again = await t
      .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: bigBatch(2) })
      .expect(200);
    expect(await waitForEnd(again.body.task_id, p.serverKey)).toMatchObject({ success: true, error: '' });

    const sources = (await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200)).body as Array<{
      source: string;
    }>;
    expect(sources.map((s) => s.source)).toEqual(
      expect.arrayContaining(['first', 'big2/doc0', 'big2/doc399']),
    );
    const db = new Database(join(mountPoint, 'data', 'kbqa.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // What the failed task wrote before the disk filled is whole: every chunk has its index row.
      const counts = db
        .prepare('SELECT (SELECT count(*) FROM chunks) AS chunks, (SELECT count(*) FROM chunks_fts) AS fts')
        .get() as { chunks: number; fts: number };
      expect(counts.fts).toBe(counts.chunks);
    } finally {
      db.close();
    }
  });
});

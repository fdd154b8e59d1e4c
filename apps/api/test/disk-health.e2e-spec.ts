import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { mountSmallDisk } from './small-disk';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const disk = mountSmallDisk('kbqa-disk-health-', 16, 'the disk health test');
const mountPoint = disk?.path ?? '';
const mounted = disk !== undefined;

const bigBatch = Array.from({ length: 400 }, (_, i) => ({
  source: `big/doc${i}`,
  content: `# Document ${i}\n\n` + `Paragraph ${i} about hooks, routes and plugins. `.repeat(60),
}));

(mounted ? describe : describe.skip)('/health and a full disk (e2e, a 16 MB tmpfs of its own)', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let p: TestProject;
  const filler = join(mountPoint, 'filler');

  beforeAll(async () => {
    t = await startTestApp({}, { dataDir: join(mountPoint, 'data') });
    p = await t.createProject('disk');
  });
  afterAll(async () => {
    await t.close();
    disk?.unmount();
  });

  const health = async () =>
    (await request(t.http).get('/health').expect(200)).body as Record<string, unknown>;
  /** Fills the disk until `leftBytes` are free. */
  const fillLeaving = (leftBytes: number) => {
    const { bavail, bsize } = statfsSync(mountPoint);
    writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leftBytes)));
  };

  it('says degraded, naming the disk, while the data directory has almost no space left', async () => {
    expect(await health()).toMatchObject({ status: 'ok', disk_state: 'ok', queue_state: 'ok' });
    expect((await health()).disk_detail).toBeUndefined();

    fillLeaving(64 * 1024);
    const full = await health();
    expect(full).toMatchObject({ status: 'degraded', disk_state: 'full', queue_state: 'ok' });
    expect(full.disk_detail).toMatch(/disk of the data directory is full: \d+\.\d MB free of 16\.0 MB/);

    rmSync(filler);
    expect(await health()).toMatchObject({ status: 'ok', disk_state: 'ok' });
  });

  it('stays degraded after a write failed for lack of space, until an ingestion succeeds', async () => {
    // Room for the task's payload (about 1.5 MB), not for its chunks and index; above the threshold.
    fillLeaving(2.5 * 1024 * 1024);
    expect(await health()).toMatchObject({ status: 'ok', disk_state: 'ok' });
    const big = await t
      .post('/v1/ingestDocuments', { api_key: p.serverKey, documents: bigBatch })
      .expect(200);
    const failed = await t.waitForTask(big.body.task_id, 60_000);
    expect(failed.result).toMatchObject({ success: false, error: expect.stringMatching(/disk .* full/) });

    // Space is back, but the last write failed: the next one would too until the operator looks.
    rmSync(filler);
    const after = await health();
    expect(after).toMatchObject({ status: 'degraded', disk_state: 'full' });
    expect(after.disk_detail).toMatch(
      /a write failed \d+ s ago because the disk of the data directory was full/,
    );

    const small = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'small', content: 'fits' }],
      })
      .expect(200);
    expect((await t.waitForTask(small.body.task_id)).result).toMatchObject({ success: true });
    expect(await health()).toMatchObject({ status: 'ok', disk_state: 'ok' });
  });
});

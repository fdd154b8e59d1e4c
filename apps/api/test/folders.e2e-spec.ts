import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { makeTinyModel } from '@kbqa/embedder/testing';
import { makePdf } from '@kbqa/loader-files/testing';
import { FolderWatcher } from '../src/indexes/folder-watcher';
import { EmbeddingService } from '../src/retrieval/embedding.service';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { cli } from './process-helpers';

const TOKEN = 'folders-operator-token-0123456789';
const url = (path: string) => pathToFileURL(path).href;

/** A section of its own chunk (KBQA_CHUNK_SIZE=200), so an edit of one leaves the others' vectors. */
function section(title: string, words: string): string {
  return `## ${title}\n\n${`${words} `.repeat(12).trim()}\n`;
}

describe('watched folders (e2e)', () => {
  // Real paths: the folder index compares real paths, and tmpdir() may sit behind a link.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'kbqa-folders-e2e-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const docs = join(root, 'handbook');
  let t: TestApp;
  let p: TestProject;
  let embedded: () => number;
  let indexId: number;
  /** Tasks of the index seen so far. */
  const seen = new Set<number>();

  const admin = (method: 'get' | 'post' | 'delete', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    return body ? req.send(body) : req;
  };
  const tasksOf = async (id: number) =>
    (await t.query<{ id: number }>('SELECT id FROM ingestion_tasks WHERE index_id = ?', [id])).map(
      (r) => r.id,
    );
  /**
   * Waits for the sync the watcher queues after a change on disk (a task of the index not seen
   * before) and returns its result; then checks it was the only one.
   */
  const nextSync = async (): Promise<{ taskId: number; result: Record<string, unknown> }> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const fresh = (await tasksOf(indexId)).filter((id) => !seen.has(id));
      if (fresh.length > 0) {
        const taskId = fresh[0]!;
        seen.add(taskId);
        const status = await t.waitForTask(taskId, 60_000);
        expect((await tasksOf(indexId)).filter((id) => !seen.has(id))).toEqual([]);
        return { taskId, result: status.result as Record<string, unknown> };
      }
      if (Date.now() > deadline) throw new Error('the watcher queued no sync');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const sources = async (project = p): Promise<string[]> => {
    const res = await t.post('/v1/getSources', { api_key: project.serverKey }).expect(200);
    return (res.body as Array<{ source: string }>).map((s) => s.source).sort();
  };
  const report = async (taskId: number) =>
    (await admin('get', `/admin/v1/tasks/${taskId}`).expect(200)).body as {
      skipped: Array<{ url: string; code: string; reason: string }>;
    };
  const chunksOf = (path: string) =>
    t.query<{ id: number; content: string }>(
      'SELECT c.id, c.content FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.source = ? ORDER BY c.ordinal',
      [url(path)],
    );

  beforeAll(async () => {
    mkdirSync(join(docs, 'guides'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(
      join(docs, 'travel.md'),
      `# Travel policy\n\n${section('Trains', 'first class trains are allowed above four hours')}\n` +
        `${section('Hotels', 'hotel nights are reimbursed up to one hundred forty euros')}\n` +
        `${section('Meals', 'dinner allowance is thirty five euros on travel days')}`,
    );
    writeFileSync(join(docs, 'guides', 'setup.txt'), 'The warehouse in Tilburg closes at half past four.');
    writeFileSync(
      join(docs, 'espresso.pdf'),
      await makePdf([
        'Espresso machine manual. Unpack the machine and rinse the water tank.',
        'Descaling: run citric acid through the boiler every ninety days.',
      ]),
    );
    writeFileSync(join(docs, 'logo.png'), 'not a document');
    writeFileSync(join(outside, 'salaries.md'), '# Salaries\n\nThe director earns nine hundred thousand.');
    symlinkSync(join(outside, 'salaries.md'), join(docs, 'salaries.md'));
    symlinkSync(outside, join(docs, 'elsewhere'));
    symlinkSync(outside, join(root, 'escape'));
    const model = await makeTinyModel(join(base, 'models'));
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_FOLDER_ROOTS: root,
      // Events are what is under test; the backstop would only add syncs that find nothing.
      KBQA_FOLDER_RESCAN_INTERVAL: '1h',
      // The command line's folder index and its task are found quickly.
      KBQA_QUEUE_RECONCILE_MS: '300',
      KBQA_CHUNK_SIZE: '200',
      KBQA_CHUNK_OVERLAP: '0',
      KBQA_EMBED_MODEL: model,
      KBQA_OFFLINE: '1',
    });
    expect(await t.app.get(EmbeddingService).settled()).toBe('hybrid');
    embedded = () => t.app.get(EmbeddingService).embeddedChunks;
    p = await t.createProject('folders');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('ingests a folder created through the operator API, skipping links out of the roots', async () => {
    const res = await admin('post', `/admin/v1/projects/${p.id}/indexes`, {
      type: 'folder',
      path: docs,
    }).expect(201);
    expect(res.body).toEqual({ index_id: expect.any(Number), task_id: expect.any(Number) });
    indexId = res.body.index_id as number;
    seen.add(res.body.task_id as number);
    const status = await t.waitForTask(res.body.task_id as number, 60_000);
    expect(status.result).toMatchObject({ success: true, added: 3, updated: 0, removed: 0 });
    expect(await sources()).toEqual(
      [join(docs, 'espresso.pdf'), join(docs, 'guides', 'setup.txt'), join(docs, 'travel.md')].map(url),
    );
    const skipped = (await report(res.body.task_id as number)).skipped;
    expect(skipped).toEqual(
      expect.arrayContaining([
        { url: url(join(docs, 'elsewhere')), code: 'OFF_SITE', reason: expect.stringContaining('outside') },
        { url: url(join(docs, 'salaries.md')), code: 'OFF_SITE', reason: expect.stringContaining('outside') },
        { url: url(join(docs, 'logo.png')), code: 'UNSUPPORTED', reason: expect.any(String) },
      ]),
    );
    expect(skipped).toHaveLength(3);
    expect(await t.query('SELECT id FROM chunks WHERE content LIKE ?', ['%nine hundred thousand%'])).toEqual(
      [],
    );
    // A PDF stays one source, each page linked.
    const pdf = (await chunksOf(join(docs, 'espresso.pdf'))).map((c) => c.content);
    expect(pdf.join(' ')).toContain('Unpack the machine');
    expect(pdf.join(' ')).toContain('citric acid');
    const answer = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'How often should the boiler be descaled with citric acid?',
        history: [],
        shouldStream: false,
      })
      .expect(200);
    expect(answer.body.sources[0]?.link).toBe(`${url(join(docs, 'espresso.pdf'))}#page=2`);
    const index = await admin('get', `/admin/v1/indexes/${indexId}`).expect(200);
    expect(index.body).toMatchObject({ type: 'folder', url: docs, pages: 3 });
    expect(t.app.get(FolderWatcher).watching()).toContain(indexId);
  });

  it('follows an edit: the file is chunked again and only its changed chunk embedded', async () => {
    const before = await chunksOf(join(docs, 'travel.md'));
    expect(before.length).toBeGreaterThanOrEqual(3);
    const embeddedBefore = embedded();
    writeFileSync(
      join(docs, 'travel.md'),
      `# Travel policy\n\n${section('Trains', 'first class trains are allowed above four hours')}\n` +
        `${section('Hotels', 'hotel nights are reimbursed up to one hundred sixty euros')}\n` +
        `${section('Meals', 'dinner allowance is thirty five euros on travel days')}`,
    );
    const { result } = await nextSync();
    expect(result).toMatchObject({ success: true, added: 0, updated: 1, unchanged: 2, removed: 0 });
    const after = await chunksOf(join(docs, 'travel.md'));
    expect(after.map((c) => c.content).join(' ')).toContain('one hundred sixty euros');
    expect(after.map((c) => c.content).join(' ')).not.toContain('one hundred forty euros');
    const changed = after.filter((c) => !before.some((b) => b.content === c.content)).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(after.length);
    expect(embedded() - embeddedBefore).toBe(changed);
  });

  it('follows a new file in a new sub-folder', async () => {
    mkdirSync(join(docs, 'faq'));
    writeFileSync(
      join(docs, 'faq', 'parcels.md'),
      '# Parcels\n\nParcels to Iceland take eleven working days.',
    );
    const { result } = await nextSync();
    expect(result).toMatchObject({ success: true, added: 1, updated: 0, removed: 0, unchanged: 3 });
    expect(await sources()).toContain(url(join(docs, 'faq', 'parcels.md')));
  });

  it('follows a rename (in that new sub-folder): the old source goes, the new one comes', async () => {
    renameSync(join(docs, 'faq', 'parcels.md'), join(docs, 'faq', 'shipping.md'));
    const { result } = await nextSync();
    expect(result).toMatchObject({ success: true, added: 1, removed: 1, updated: 0 });
    const now = await sources();
    expect(now).toContain(url(join(docs, 'faq', 'shipping.md')));
    expect(now).not.toContain(url(join(docs, 'faq', 'parcels.md')));
  });

  it("follows a delete: the file's source is removed", async () => {
    rmSync(join(docs, 'guides', 'setup.txt'));
    const { result } = await nextSync();
    expect(result).toMatchObject({ success: true, added: 0, updated: 0, removed: 1 });
    expect(await sources()).not.toContain(url(join(docs, 'guides', 'setup.txt')));
    expect(await t.query('SELECT id FROM chunks WHERE content LIKE ?', ['%Tilburg%'])).toEqual([]);
  });

  it('refuses a folder outside its roots and one reached through a link out of them', async () => {
    const outsideRes = await admin('post', `/admin/v1/projects/${p.id}/indexes`, {
      type: 'folder',
      path: outside,
    }).expect(400);
    expect(outsideRes.body).toEqual({
      code: 'BAD_REQUEST',
      error: `${outside} is outside the folders KBQA_FOLDER_ROOTS allows: ${root}`,
    });
    const linked = await admin('post', `/admin/v1/projects/${p.id}/indexes`, {
      type: 'folder',
      path: join(root, 'escape'),
    }).expect(400);
    expect(linked.body.error).toBe(
      `${join(root, 'escape')} (it resolves to ${outside}) is outside the folders KBQA_FOLDER_ROOTS allows: ${root}`,
    );
    for (const [body, error] of [
      [{ type: 'folder', path: 'handbook' }, 'the folder must be an absolute path, got "handbook"'],
      [{ type: 'folder', path: join(root, 'missing') }, `no such folder: ${join(root, 'missing')}`],
      [{ type: 'url', path: docs }, 'type must be folder'],
      [{ type: 'folder' }, 'path is required'],
    ] as const) {
      const res = await admin('post', `/admin/v1/projects/${p.id}/indexes`, body).expect(400);
      expect(res.body.error).toContain(error);
    }
    await admin('post', '/admin/v1/projects/999999/indexes', { type: 'folder', path: docs }).expect(404);
    expect((await admin('get', `/admin/v1/projects/${p.id}/indexes`).expect(200)).body.indexes).toHaveLength(
      1,
    );
  });

  it('is never created through a project API key', async () => {
    const res = await t
      .post('/v1/ingestData', { api_key: p.serverKey, type: 'folder', url: docs })
      .expect(403);
    expect(res.body).toEqual({
      code: 'FORBIDDEN',
      error:
        'type folder is an operator-only index: create it with POST /admin/v1/projects/:id/indexes ' +
        'or `kbqa indexes add-folder --project <id> <path>`',
    });
    const asBearer = await request(t.http)
      .post(`/admin/v1/projects/${p.id}/indexes`)
      .set('Authorization', `Bearer ${p.serverKey}`)
      .send({ type: 'folder', path: docs });
    expect(asBearer.status).toBe(401);
    const inBody = await t.post(`/admin/v1/projects/${p.id}/indexes`, {
      api_key: p.serverKey,
      type: 'folder',
      path: docs,
    });
    expect(inBody.status).toBe(401);
    expect((await admin('get', `/admin/v1/projects/${p.id}/indexes`).expect(200)).body.indexes).toHaveLength(
      1,
    );
  });

  it('adds a folder from the command line, which the running service loads and watches', async () => {
    const q = await t.createProject('folders-cli');
    const other = join(root, 'faq');
    mkdirSync(other);
    writeFileSync(join(other, 'returns.md'), '# Returns\n\nOpened headphones cannot be returned.');
    const out = JSON.parse(
      await cli(['indexes', 'add-folder', '--project', String(q.id), other, '--json'], {
        KBQA_DATA_DIR: t.dataDir,
        KBQA_FOLDER_ROOTS: root,
      }),
    ) as { index_id: number; task_id: number; index: { type: string; url: string } };
    expect(out.index).toMatchObject({ type: 'folder', url: other });
    const status = await t.waitForTask(out.task_id, 60_000);
    expect(status.result).toMatchObject({ success: true, added: 1 });
    expect(await sources(q)).toEqual([url(join(other, 'returns.md'))]);
    // The service found the index in the database and watches it: a new file reaches the project.
    const deadline = Date.now() + 20_000;
    while (!t.app.get(FolderWatcher).watching().includes(out.index_id)) {
      if (Date.now() > deadline) throw new Error('the service did not watch the new folder');
      await new Promise((r) => setTimeout(r, 20));
    }
    const known = new Set(await tasksOf(out.index_id));
    writeFileSync(join(other, 'warranty.md'), '# Warranty\n\nTwo years on every machine.');
    for (;;) {
      const fresh = (await tasksOf(out.index_id)).filter((id) => !known.has(id));
      for (const id of fresh) {
        known.add(id);
        await t.waitForTask(id, 60_000);
      }
      if ((await sources(q)).includes(url(join(other, 'warranty.md')))) break;
      if (Date.now() > deadline + 20_000) throw new Error('the new file was not ingested');
      await new Promise((r) => setTimeout(r, 20));
    }
    const refused = await cli(['indexes', 'add-folder', '--project', String(q.id), outside, '--json'], {
      KBQA_DATA_DIR: t.dataDir,
      KBQA_FOLDER_ROOTS: root,
    }).catch((e: { stdout?: string }) => e.stdout ?? '');
    expect(JSON.parse(refused)).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.stringContaining('outside'),
    });
  });

  it('stops watching a folder whose index is deleted, with its sources', async () => {
    const deleted = await admin('delete', `/admin/v1/indexes/${indexId}`).expect(200);
    expect(deleted.body).toEqual({ id: indexId, removed_pages: 3 });
    expect(t.app.get(FolderWatcher).watching()).not.toContain(indexId);
    expect(await sources()).toEqual([]);
  });
});

import 'reflect-metadata';
import { MarkdownChunker } from '@kbqa/chunker';
import {
  KbqaError,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SourceLoader,
  nowTimestamp,
  timestampAt,
} from '@kbqa/core';
import {
  IngestionTaskEntity,
  openDataSource,
  rawDatabase,
  SqliteChunkIndex,
  SqliteIndexRepository,
  SqliteTaskLeaseRepository,
  SqliteTaskRepository,
  type TaskKind,
} from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../config/config';
import type { EmbeddingService } from '../retrieval/embedding.service';
import { LoaderRegistry } from './loader-registry';
import { ForegroundGate } from '../common/foreground';
import { IngestionRunner, type TaskStats } from './ingestion.runner';
import { TaskLeases } from './task-leases';

/** A url-type loader whose documents, skips and failure the test picks. */
function fakeLoader(behaviour: (context: LoadContext) => AsyncIterable<LoadedDocument>): SourceLoader {
  return {
    type: 'url',
    validate: () => undefined,
    load: (_r: LoadRequest, context: LoadContext) => behaviour(context),
  };
}

const page = (n: number): LoadedDocument => ({
  source: `https://docs.example.com/${n}`,
  link: `https://docs.example.com/${n}`,
  content: `# Page ${n}\n\nPage ${n} explains hooks.`,
});

describe(IngestionRunner.name, () => {
  let ds: DataSource;
  const embedded: number[][] = [];

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run();
    embedded.length = 0;
  });
  afterEach(() => ds.destroy());

  function runner(
    loader: SourceLoader,
    env: Record<string, string> = {},
    foreground?: ForegroundGate,
    leases?: TaskLeases,
  ) {
    const embedding = {
      embedChunks: (ids: number[]) => {
        embedded.push(ids);
        return Promise.resolve();
      },
    } as unknown as EmbeddingService;
    return new IngestionRunner(
      new SqliteTaskRepository(rawDatabase(ds)),
      new SqliteIndexRepository(rawDatabase(ds)),
      new SqliteChunkIndex(rawDatabase(ds)),
      new MarkdownChunker({ targetSize: 1000, maxSize: 2000, overlap: 100 }),
      null,
      new LoaderRegistry([loader], ['url']),
      embedding,
      loadConfig(env, '/tmp'),
      foreground,
      leases,
    );
  }

  async function task(kind: TaskKind, payload: unknown): Promise<number> {
    const now = nowTimestamp();
    const id = Math.floor(Math.random() * 1e9) + 1;
    await ds.getRepository(IngestionTaskEntity).insert({
      id,
      projectId: 1,
      kind,
      status: 'pending',
      current: 0,
      total: 0,
      currentStep: 'PENDING',
      payload: JSON.stringify(payload),
      success: null,
      errorCode: null,
      error: null,
      stats: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    });
    return id;
  }
  const row = (id: number) => ds.getRepository(IngestionTaskEntity).findOneByOrFail({ id });
  const never = fakeLoader(async function* () {});

  it('indexes raw documents, embeds their chunks and ends the task completed with its counts', async () => {
    const id = await task('documents', {
      documents: [
        { source: 'a', content: '# A\n\nalpha' },
        { source: 'b', content: '# B\n\nbeta' },
      ],
    });
    await runner(never).run(id, new AbortController().signal);
    const done = await row(id);
    expect(done).toMatchObject({
      status: 'completed',
      success: true,
      indexedCount: 2,
      skippedCount: 0,
      payload: '{}',
    });
    expect((JSON.parse(done.stats!) as TaskStats).indexed).toEqual(['a', 'b']);
    expect(embedded.flat()).toHaveLength(2);
  });

  it('steps aside while a chat is in flight, and goes on once it is answered', async () => {
    const documents = Array.from({ length: 60 }, (_, i) => ({
      source: `d${i}`,
      content: `# D${i}\n\nhooks ${i}`,
    }));
    const id = await task('documents', { documents });
    const gate = new ForegroundGate();
    const leave = gate.enter();
    // The chat outlasts any wait here, so the task can only go on once the chat leaves.
    const clear = gate.clear.bind(gate);
    let askedToWait: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (askedToWait = resolve));
    const waits = jest.spyOn(gate, 'clear').mockImplementation(() => {
      askedToWait();
      return clear(3_600_000);
    });
    const run = runner(never, {}, gate).run(id, new AbortController().signal);
    await waiting;
    expect((await row(id)).status).toBe('running');
    expect(waits).toHaveBeenCalledTimes(1);
    leave();
    await run;
    expect(await row(id)).toMatchObject({ status: 'completed', success: true, indexedCount: 60 });
  });

  it('keeps what a loader yielded and what it skipped, with the reason', async () => {
    const loader = fakeLoader(async function* (context) {
      await Promise.resolve();
      yield page(1);
      context.skipped?.({
        url: 'https://docs.example.com/x.pdf',
        code: 'NOT_HTML',
        reason: 'not an HTML page',
      });
      yield page(2);
    });
    const id = await task('url', { url: 'https://docs.example.com/' });
    await runner(loader).run(id, new AbortController().signal);
    const done = await row(id);
    expect(done).toMatchObject({ success: true, indexedCount: 2, skippedCount: 1 });
    expect((JSON.parse(done.stats!) as TaskStats).skipped).toEqual([
      { url: 'https://docs.example.com/x.pdf', code: 'NOT_HTML', reason: 'not an HTML page' },
    ]);
  });

  it("ends a failed load completed, unsuccessful, with the loader's code and reason", async () => {
    const loader = fakeLoader(async function* () {
      await Promise.resolve();
      throw new KbqaError('FETCH_FAILED', 'could not fetch https://docs.example.com/: HTTP 503');
      yield page(0);
    });
    const id = await task('url', { url: 'https://docs.example.com/' });
    await runner(loader).run(id, new AbortController().signal);
    expect(await row(id)).toMatchObject({
      status: 'completed',
      success: false,
      errorCode: 'FETCH_FAILED',
      error: 'could not fetch https://docs.example.com/: HTTP 503',
    });
  });

  it('leaves a task pending for the next start when the process shuts down during it', async () => {
    const shutdown = new AbortController();
    const loader = fakeLoader(async function* (context) {
      await Promise.resolve();
      yield page(1);
      shutdown.abort();
      if (context.signal.aborted) throw new KbqaError('ABORTED', 'cancelled');
      yield page(2);
    });
    const id = await task('url', { url: 'https://docs.example.com/' });
    await runner(loader).run(id, shutdown.signal);
    expect(await row(id)).toMatchObject({ status: 'pending', currentStep: 'PENDING', success: null });
  });

  it('stops a task that runs past its time limit with TIMEOUT', async () => {
    const loader = fakeLoader(async function* (context) {
      await new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () => reject(new KbqaError('ABORTED', 'cancelled'))),
      );
      yield page(1);
    });
    const id = await task('url', { url: 'https://docs.example.com/' });
    await runner(loader, { KBQA_TASK_TIMEOUT_MS: '100' }).run(id, new AbortController().signal);
    expect(await row(id)).toMatchObject({ status: 'completed', success: false, errorCode: 'TIMEOUT' });
  });

  it('does nothing for a task that already completed or does not exist', async () => {
    const id = await task('documents', { documents: [{ source: 'a', content: 'alpha' }] });
    const r = runner(never);
    await r.run(id, new AbortController().signal);
    const first = await row(id);
    await r.run(id, new AbortController().signal);
    expect(await row(id)).toEqual(first);
    await expect(r.run(123456789012, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('stops a run whose task another process took over, recording nothing', async () => {
    const loader = fakeLoader(async function* (context) {
      await new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () => reject(new KbqaError('ABORTED', 'cancelled'))),
      );
      yield page(1);
    });
    const id = await task('url', { url: 'https://docs.example.com/' });
    const leases = new TaskLeases(new SqliteTaskLeaseRepository(rawDatabase(ds)), 300);
    const running = runner(loader, {}, undefined, leases).run(id, new AbortController().signal);
    const db = rawDatabase(ds);
    while (db.prepare('SELECT 1 FROM task_leases WHERE task_id = ?').get(id) === undefined) {
      await new Promise((r) => setTimeout(r, 10));
    }
    // Another process claimed it after this one's lease lapsed: the next renewal finds out.
    db.prepare("UPDATE task_leases SET owner = 'other-host:1:ab' WHERE task_id = ?").run(id);
    await running;
    expect(await row(id)).toMatchObject({ status: 'running', attempts: 1, success: null, finishedAt: null });
    expect(db.prepare('SELECT owner FROM task_leases WHERE task_id = ?').get(id)).toEqual({
      owner: 'other-host:1:ab',
    });
  });

  it('runs only a task it could claim, and gives up its lease when the task completes', async () => {
    const id = await task('documents', { documents: [{ source: 'a', content: 'alpha' }] });
    const db = rawDatabase(ds);
    db.prepare('INSERT INTO task_leases (task_id, project_id, owner, until) VALUES (?, 1, ?, ?)').run(
      id,
      'other-host:1:ab',
      timestampAt(Date.now() + 60_000),
    );
    const leases = new TaskLeases(new SqliteTaskLeaseRepository(rawDatabase(ds)), 30_000);
    await runner(never, {}, undefined, leases).run(id, new AbortController().signal);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 0 });
    db.prepare('DELETE FROM task_leases').run();
    await runner(never, {}, undefined, leases).run(id, new AbortController().signal);
    expect(await row(id)).toMatchObject({ status: 'completed', success: true, attempts: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM task_leases').get()).toEqual({ n: 0 });
  });
});

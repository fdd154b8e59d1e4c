import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { NewTask, SourceListing, TaskLeaseRepository, TaskRepository } from '../records/tasks';
import type { ChunkStore } from '../store';
import { timestampAt, toIsoUtc } from '../time';
import { contractDraft } from './chunk-store-contract';

/**
 * One empty records database for one test: projects 1 and 2 exist, nothing else. `store` is the
 * same database's chunk store (sources are written through it); `sql` runs a statement on the
 * store's own tables (`?` placeholders; the fixture adapts them to its driver), for what the
 * repositories neither read nor write.
 */
export interface TaskRecordsContractFixture {
  tasks: TaskRepository;
  leases: TaskLeaseRepository;
  sources: SourceListing;
  store: ChunkStore;
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  teardown(): Promise<void>;
}

/** A stored timestamp: `YYYY-MM-DD`, `T` or a space, the time with its fraction. */
const STORED = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/;

/**
 * The behaviour every implementation of {@link TaskRepository}, {@link TaskLeaseRepository} and
 * {@link SourceListing} shares, on the tables of ingestion tasks, task leases and the chunk
 * store's sources: run by the SQLite and the PostgreSQL store.
 */
export function describeTaskRecordsContract(
  name: string,
  open: () => Promise<TaskRecordsContractFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`${name} (task records contract)`, () => {
    let f: TaskRecordsContractFixture;
    beforeEach(async () => {
      f = await open();
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);

    const add = async (projectId: number, extra: Partial<NewTask> = {}) => ({
      id: await f.tasks.create({
        projectId,
        kind: 'documents',
        payload: '{"documents":[]}',
        total: 3,
        indexId: null,
        ...extra,
      }),
      projectId,
    });
    const status = async (id: number) => (await f.tasks.progress(id))?.status;
    const row = async (id: number) =>
      (
        await f.sql('SELECT status, attempts, current, updated_at FROM ingestion_tasks WHERE id = ?', [id])
      )[0];
    const leaseRows = async () =>
      (await f.sql('SELECT task_id, project_id, owner, until FROM task_leases ORDER BY until')).map((r) => ({
        ...r,
        task_id: Number(r.task_id),
      }));
    // Leases compare stored timestamps: the contract passes its own clock, one minute apart.
    const at = (minutes: number) => timestampAt(Date.UTC(2026, 0, 1) + minutes * 60_000);

    test("reads a task with its payload for a run, and writes a run's fields to it", async () => {
      const a = await add(1, { kind: 'url', indexId: 7 });
      expect(await f.tasks.toRun(a.id)).toEqual({
        id: a.id,
        projectId: 1,
        kind: 'url',
        status: 'pending',
        payload: '{"documents":[]}',
        indexId: 7,
        attempts: 0,
      });
      expect(await f.tasks.toRun(a.id + 1)).toBeUndefined();
      await f.tasks.update(a.id, { status: 'running', attempts: 1, updatedAt: at(1) });
      await f.tasks.update(a.id, { current: 2, currentStep: 'SCRAPING', updatedAt: at(2) });
      expect(await row(a.id)).toEqual({ status: 'running', attempts: 1, current: 2, updated_at: at(2) });
      await f.tasks.update(a.id, {
        status: 'completed',
        success: false,
        errorCode: 'ABORTED',
        error: 'stopped',
        payload: '{}',
        finishedAt: at(3),
      });
      expect(await f.tasks.toRun(a.id)).toMatchObject({ status: 'completed', payload: '{}', attempts: 1 });
      expect(await f.tasks.report(a.id)).toMatchObject({
        success: false,
        errorCode: 'ABORTED',
        finishedAt: at(3),
      });
      // Only the named task is written.
      const b = await add(1);
      expect(await f.tasks.toRun(b.id)).toMatchObject({ status: 'pending', attempts: 0 });
    });

    test('creates pending tasks under random ids and reads them back without their payload', async () => {
      const a = await add(1, { kind: 'url', indexId: 7, scheduled: true });
      const b = await add(1);
      expect(a.id).not.toBe(b.id);
      expect(a.id).toBeGreaterThan(0);
      expect(Number.isSafeInteger(a.id)).toBe(true);
      expect(await f.tasks.progress(a.id)).toEqual({
        id: a.id,
        projectId: 1,
        status: 'pending',
        current: 0,
        total: 3,
        currentStep: 'PENDING',
        success: null,
        error: null,
        indexedCount: 0,
        skippedCount: 0,
        counts: null,
      });
      const report = await f.tasks.report(a.id);
      expect(report).toEqual({
        id: a.id,
        projectId: 1,
        kind: 'url',
        status: 'pending',
        currentStep: 'PENDING',
        current: 0,
        total: 3,
        success: null,
        error: null,
        errorCode: null,
        stats: null,
        createdAt: expect.stringMatching(STORED),
        finishedAt: null,
      });
      expect(Math.abs(Date.parse(toIsoUtc(report!.createdAt)) - Date.now())).toBeLessThan(60_000);
      const [stored] = await f.sql(
        'SELECT payload, index_id, scheduled, attempts, created_at, updated_at FROM ingestion_tasks WHERE id = ?',
        [a.id],
      );
      // scheduled is a boolean column: 0/1 in SQLite, false/true in PostgreSQL.
      expect({ ...stored, scheduled: Boolean(stored!.scheduled) }).toEqual({
        payload: '{"documents":[]}',
        index_id: 7,
        scheduled: true,
        attempts: 0,
        created_at: report!.createdAt,
        updated_at: report!.createdAt,
      });
      expect(await f.tasks.progress(a.id + 1)).toBeUndefined();
      expect(await f.tasks.report(a.id + 1)).toBeUndefined();
    });

    test("lists a project's tasks newest first, at most the limit, with their counts", async () => {
      const first = await add(1);
      await add(2);
      const second = await add(1);
      const third = await add(1);
      const listed = await f.tasks.list(1, 2);
      expect(listed.map((t) => t.id)).toEqual([third.id, second.id]);
      expect(listed[0]).toEqual({
        id: third.id,
        kind: 'documents',
        status: 'pending',
        success: null,
        indexedCount: 0,
        skippedCount: 0,
        createdAt: expect.stringMatching(STORED),
        finishedAt: null,
      });
      expect((await f.tasks.list(1, 10)).map((t) => t.id)).toEqual([third.id, second.id, first.id]);
      expect(await f.tasks.list(3, 10)).toEqual([]);
    });

    test('lists unfinished tasks, and pending ones not updated since a moment, oldest first', async () => {
      const old = await add(1);
      const running = await add(2);
      const done = await add(1);
      const recent = await add(2);
      await f.sql('UPDATE ingestion_tasks SET updated_at = ? WHERE id = ?', [at(0), old.id]);
      await f.sql("UPDATE ingestion_tasks SET status = 'running', updated_at = ? WHERE id = ?", [
        at(0),
        running.id,
      ]);
      await f.sql("UPDATE ingestion_tasks SET status = 'completed' WHERE id = ?", [done.id]);
      expect(await f.tasks.unfinished()).toEqual([old, running, recent]);
      expect(await f.tasks.pendingBefore(at(1))).toEqual([old]);
      expect(await f.tasks.pendingBefore(at(0))).toEqual([]);
    });

    test('lets exactly one of several owners claiming a task at once win; the claim starts it', async () => {
      const task = await add(1);
      const owners = ['a', 'b', 'c', 'd'];
      const won = await Promise.all(owners.map((o) => f.leases.claim(task, o, at(10), at(0))));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = owners[won.indexOf(true)]!;
      expect(await row(task.id)).toMatchObject({ status: 'running', attempts: 1, updated_at: at(0) });
      expect(await leaseRows()).toEqual([{ task_id: task.id, project_id: 1, owner: winner, until: at(10) }]);
      // Its holder may claim it again (a retry), which counts another attempt.
      expect(await f.leases.claim(task, winner, at(11), at(1))).toBe(true);
      expect(await row(task.id)).toMatchObject({ attempts: 2 });
    });

    test("lets exactly one of tasks of one project claimed at once win: a live lease holds the project's turn", async () => {
      const tasks = await Promise.all([add(1), add(1), add(1)]);
      const won = await Promise.all(tasks.map((t, i) => f.leases.claim(t, `o${i}`, at(10), at(0))));
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    test("holds the project's turn until the running task completes, and leaves other projects alone", async () => {
      const first = await add(1);
      const second = await add(1);
      const elsewhere = await add(2);
      expect(await f.leases.claim(first, 'a', at(10), at(0))).toBe(true);
      expect(await f.leases.claim(second, 'b', at(10), at(0))).toBe(false);
      expect(await f.leases.claim(elsewhere, 'b', at(10), at(0))).toBe(true);
      expect(await status(second.id)).toBe('pending');
      // An owner that does not hold the task writes nothing to it.
      expect(await f.leases.updateHeld(first.id, 'b', { status: 'completed' })).toBe(false);
      expect(await status(first.id)).toBe('running');
      expect(await f.leases.claim(second, 'b', at(10), at(0))).toBe(false);
      expect(await f.leases.updateHeld(first.id, 'a', { status: 'completed' })).toBe(true);
      expect(await f.leases.claim(second, 'b', at(10), at(0))).toBe(true);
      // The turn is held against other owners only.
      expect(await f.leases.claim(await add(1), 'b', at(10), at(0))).toBe(true);
      // A lapsed lease holds no turn.
      const third = await add(2);
      expect(await f.leases.claim(third, 'c', at(30), at(20))).toBe(true);
    });

    test('lets another owner take a task over only once its lease ran out; the first then cannot renew or write', async () => {
      const task = await add(1);
      expect(await f.leases.claim(task, 'a', at(10), at(0))).toBe(true);
      expect(await f.leases.renew(task.id, 'a', at(20))).toBe(true);
      expect(await f.leases.claim(task, 'b', at(25), at(15))).toBe(false);
      expect(await f.leases.claim(task, 'b', at(20), at(20))).toBe(false);
      expect(await f.leases.claim(task, 'b', at(31), at(21))).toBe(true);
      expect(await f.leases.renew(task.id, 'a', at(40))).toBe(false);
      expect(await f.leases.updateHeld(task.id, 'a', { current: 1 })).toBe(false);
      expect(await row(task.id)).toMatchObject({ status: 'running', attempts: 2, current: 0 });
      expect(await leaseRows()).toEqual([{ task_id: task.id, project_id: 1, owner: 'b', until: at(31) }]);
      expect(await f.leases.renew(task.id, 'b', at(41))).toBe(true);
    });

    test('never claims a completed task', async () => {
      const task = await add(1);
      await f.sql("UPDATE ingestion_tasks SET status = 'completed' WHERE id = ?", [task.id]);
      expect(await f.leases.claim(task, 'a', at(10), at(0))).toBe(false);
      expect(await f.leases.claim({ id: task.id + 1, projectId: 1 }, 'a', at(10), at(0))).toBe(false);
      expect(await leaseRows()).toEqual([]);
    });

    test("writes a held task's outcome, booleans and nulls included", async () => {
      const task = await add(1);
      await f.leases.claim(task, 'a', at(10), at(0));
      expect(
        await f.leases.updateHeld(task.id, 'a', {
          status: 'completed',
          success: true,
          error: null,
          errorCode: null,
          stats: '{"sources":2}',
          indexedCount: 2,
          skippedCount: 1,
          counts: '{"added":2}',
          payload: '{}',
          updatedAt: at(5),
          finishedAt: at(5),
        }),
      ).toBe(true);
      expect(await f.tasks.progress(task.id)).toMatchObject({
        status: 'completed',
        success: true,
        indexedCount: 2,
        skippedCount: 1,
        counts: '{"added":2}',
      });
      expect(await f.tasks.report(task.id)).toMatchObject({ stats: '{"sources":2}', finishedAt: at(5) });
      expect(await f.sql('SELECT payload FROM ingestion_tasks WHERE id = ?', [task.id])).toEqual([
        { payload: '{}' },
      ]);
      expect(await f.leases.updateHeld(task.id, 'a', { success: false, currentStep: 'EMBEDDING' })).toBe(
        true,
      );
      expect(await f.tasks.progress(task.id)).toMatchObject({ success: false, currentStep: 'EMBEDDING' });
    });

    test('releases only its own lease, and lists and drops the owners of leases', async () => {
      const a = await add(1);
      const b = await add(2);
      await f.leases.claim(a, 'one', at(10), at(0));
      await f.leases.claim(b, 'two', at(10), at(0));
      await f.leases.release(a.id, 'two');
      expect((await f.leases.owners()).sort()).toEqual(['one', 'two']);
      await f.leases.release(a.id, 'one');
      expect(await f.leases.owners()).toEqual(['two']);
      await f.leases.dropOwner('two');
      expect(await f.leases.owners()).toEqual([]);
    });

    test('lists as claimable the pending tasks older than a moment and running ones without a live lease', async () => {
      const pending = await add(1);
      const young = await add(1);
      const lapsed = await add(1);
      const held = await add(2);
      const unleased = await add(2);
      const done = await add(2);
      await f.sql('UPDATE ingestion_tasks SET updated_at = ? WHERE id = ?', [at(0), pending.id]);
      await f.sql('UPDATE ingestion_tasks SET updated_at = ? WHERE id = ?', [at(9), young.id]);
      await f.leases.claim(lapsed, 'a', at(5), at(0));
      await f.leases.claim(held, 'b', at(20), at(0));
      await f.sql("UPDATE ingestion_tasks SET status = 'running' WHERE id = ?", [unleased.id]);
      await f.sql("UPDATE ingestion_tasks SET status = 'completed' WHERE id = ?", [done.id]);
      expect(await f.leases.claimable(at(9), at(10))).toEqual([pending, lapsed, unleased]);
      expect(await f.leases.claimable(at(10), at(4))).toEqual([pending, young, unleased]);
    });

    const writeSource = (
      projectId: number,
      source: string,
      texts: string[],
      title?: string,
      indexId?: number,
    ) =>
      f.store.replaceSources([
        {
          projectId,
          source,
          kind: indexId === undefined ? 'documents' : 'url',
          indexId: indexId ?? null,
          documents: [
            {
              document: { source, content: texts.join('\n\n'), ...(title ? { title } : {}) },
              chunks: texts.map((t, i) => contractDraft(t, i)),
            },
          ],
        },
      ]);

    test('lists sources by when they were added, with counts, titles and a case-insensitive substring filter', async () => {
      await writeSource(1, 'https://docs.example/Guide', ['one', 'two'], 'The guide', 4);
      await writeSource(1, 'notes_100%.md', ['three']);
      await writeSource(1, 'notes-100.md', ['four']);
      await writeSource(2, 'https://docs.example/other', ['five']);
      const all = await f.sources.list(1, { limit: 10, offset: 0 });
      expect(all.total).toBe(3);
      expect(all.sources.map((s) => s.source)).toEqual([
        'https://docs.example/Guide',
        'notes_100%.md',
        'notes-100.md',
      ]);
      const guide = all.sources[0]!;
      expect(guide).toEqual({
        id: expect.any(Number),
        source: 'https://docs.example/Guide',
        kind: 'url',
        indexId: 4,
        dateAdded: expect.stringMatching(STORED),
        updatedAt: expect.stringMatching(STORED),
        chunks: 2,
        title: 'The guide',
        documentId: expect.any(Number),
      });
      expect(Math.abs(Date.parse(toIsoUtc(guide.dateAdded)) - Date.now())).toBeLessThan(60_000);
      expect(all.sources[1]).toMatchObject({ kind: 'documents', indexId: null, chunks: 1 });
      const q = async (text: string) =>
        (await f.sources.list(1, { q: text, limit: 10, offset: 0 })).sources.map((s) => s.source);
      expect(await q('GUIDE')).toEqual(['https://docs.example/Guide']);
      // The search text's wildcards match themselves.
      expect(await q('_100%')).toEqual(['notes_100%.md']);
      expect(await q('notes')).toEqual(['notes_100%.md', 'notes-100.md']);
      expect(await f.sources.list(1, { q: 'notes', limit: 1, offset: 1 })).toEqual({
        total: 2,
        sources: [expect.objectContaining({ source: 'notes-100.md' })],
      });
      expect(
        (await f.sources.list(1, { indexId: 4, limit: 10, offset: 0 })).sources.map((s) => s.id),
      ).toEqual([guide.id]);
      expect(await f.sources.list(1, { indexId: 5, limit: 10, offset: 0 })).toEqual({
        total: 0,
        sources: [],
      });
    });

    test("finds sources by id and reads a source's chunks in order, only within its project", async () => {
      await writeSource(1, 'a', ['alpha one', 'alpha two', 'alpha three']);
      await writeSource(2, 'b', ['beta']);
      const entries = await f.sources.entries(1);
      expect(entries).toEqual([{ id: expect.any(Number), projectId: 1, source: 'a', kind: 'documents' }]);
      const a = entries[0]!;
      const [b] = await f.sources.entries(2);
      expect(await f.sources.entry(b!.id)).toEqual({
        id: b!.id,
        projectId: 2,
        source: 'b',
        kind: 'documents',
      });
      expect(await f.sources.entry(b!.id + a.id + 100)).toBeUndefined();
      expect(await f.sources.chunkTexts(1, a.id)).toEqual({
        source: 'a',
        texts: ['alpha one', 'alpha two', 'alpha three'],
      });
      expect(await f.sources.chunkTexts(1, b!.id)).toBeUndefined();
      expect(await f.sources.chunkTexts(2, b!.id)).toEqual({ source: 'b', texts: ['beta'] });
    });
  });
}

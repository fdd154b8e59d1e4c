import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IndexRepository } from '../records/indexes';
import type { NewTask, TaskRepository } from '../records/tasks';
import { timestampAt } from '../time';

/**
 * One empty records database for one test: projects 1 and 2 exist, nothing else. `tasks` writes
 * the same database's task rows (the index's tasks are read and cancelled through `indexes`).
 */
export interface IndexRecordsContractFixture {
  indexes: IndexRepository;
  tasks: TaskRepository;
  teardown(): Promise<void>;
}

/**
 * The behaviour every implementation of {@link IndexRepository} shares, on the tables of indexes
 * and ingestion tasks: run by the SQLite and the PostgreSQL store.
 */
export function describeIndexRecordsContract(
  name: string,
  open: () => Promise<IndexRecordsContractFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`${name} (index records contract)`, () => {
    let f: IndexRecordsContractFixture;
    beforeEach(async () => {
      f = await open();
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);

    // The contract passes its own clock, one minute apart.
    const at = (minutes: number) => timestampAt(Date.UTC(2026, 0, 1) + minutes * 60_000);
    const task = (indexId: number, extra: Partial<NewTask> = {}) =>
      f.tasks.create({ projectId: 1, kind: 'url', payload: '{}', total: 0, indexId, ...extra });

    test('creates an index once per project, type and URL, and gives it the latest options', async () => {
      const first = await f.indexes.upsert(
        1,
        'website-crawler',
        'https://a.test/docs',
        { includePaths: ['/docs'] },
        at(0),
      );
      expect(first).toEqual({
        id: expect.any(Number),
        projectId: 1,
        type: 'website-crawler',
        url: 'https://a.test/docs',
        options: { includePaths: ['/docs'] },
        autoSync: false,
        nextSyncAt: null,
        lastSyncedAt: null,
        lastTaskId: null,
        createdAt: at(0),
        updatedAt: at(0),
      });
      const again = await f.indexes.upsert(
        1,
        'website-crawler',
        'https://a.test/docs',
        { versionPattern: '/v(\\d+)/', defaultVersion: '2' },
        at(1),
      );
      expect(again).toEqual({
        ...first,
        options: { versionPattern: '/v(\\d+)/', defaultVersion: '2' },
        updatedAt: at(1),
      });
      const otherType = await f.indexes.upsert(1, 'url', 'https://a.test/docs', {}, at(2));
      const otherProject = await f.indexes.upsert(2, 'website-crawler', 'https://a.test/docs', {}, at(2));
      expect(new Set([first.id, otherType.id, otherProject.id]).size).toBe(3);
      expect(await f.indexes.get(first.id)).toEqual(again);
      expect(await f.indexes.get(first.id + 1000)).toBeUndefined();
    });

    test('makes one index of two upserts at once', async () => {
      const [a, b] = await Promise.all([
        f.indexes.upsert(1, 'folder', '/srv/docs', {}, at(0)),
        f.indexes.upsert(1, 'folder', '/srv/docs', {}, at(0)),
      ]);
      expect(a.id).toBe(b.id);
      expect(await f.indexes.list(1)).toHaveLength(1);
    });

    test("lists a project's indexes, every index, and the indexes of a type, by id", async () => {
      const a = await f.indexes.upsert(2, 'folder', '/srv/a', {}, at(0));
      const b = await f.indexes.upsert(1, 'url', 'https://a.test/', {}, at(0));
      const c = await f.indexes.upsert(1, 'folder', '/srv/c', {}, at(0));
      expect((await f.indexes.list(1)).map((i) => i.id)).toEqual([b.id, c.id]);
      expect((await f.indexes.list()).map((i) => i.id)).toEqual([a.id, b.id, c.id]);
      expect((await f.indexes.ofType('folder')).map((i) => [i.id, i.url])).toEqual([
        [a.id, '/srv/a'],
        [c.id, '/srv/c'],
      ]);
      await f.indexes.delete(a.id);
      expect(await f.indexes.get(a.id)).toBeUndefined();
      expect((await f.indexes.list()).map((i) => i.id)).toEqual([b.id, c.id]);
    });

    test('finds due syncs, earliest first, and lets exactly one claim move each on', async () => {
      const a = await f.indexes.upsert(1, 'url', 'https://a.test/', {}, at(0));
      const b = await f.indexes.upsert(1, 'url', 'https://b.test/', {}, at(0));
      const off = await f.indexes.upsert(1, 'url', 'https://c.test/', {}, at(0));
      await f.indexes.setAutoSync(a.id, true, at(5), at(1));
      await f.indexes.setAutoSync(b.id, true, at(3), at(1));
      await f.indexes.setAutoSync(off.id, true, at(2), at(1));
      await f.indexes.setAutoSync(off.id, false, null, at(1));
      expect(await f.indexes.get(a.id)).toMatchObject({
        autoSync: true,
        nextSyncAt: at(5),
        updatedAt: at(1),
      });
      expect(await f.indexes.get(off.id)).toMatchObject({ autoSync: false, nextSyncAt: null });
      expect((await f.indexes.due(at(4))).map((i) => i.id)).toEqual([b.id]);
      expect((await f.indexes.due(at(5))).map((i) => i.id)).toEqual([b.id, a.id]);

      const claims = await Promise.all([1, 2, 3].map(() => f.indexes.claimDue(b.id, at(3), at(63))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await f.indexes.get(b.id)).toMatchObject({ nextSyncAt: at(63) });
      expect((await f.indexes.due(at(5))).map((i) => i.id)).toEqual([a.id]);
      // Switched off after it was read as due: the claim fails.
      await f.indexes.setAutoSync(a.id, false, null, at(5));
      expect(await f.indexes.claimDue(a.id, at(5), at(65))).toBe(false);
    });

    test('notes the task that synced an index', async () => {
      const index = await f.indexes.upsert(1, 'url', 'https://a.test/', {}, at(0));
      const taskId = await task(index.id);
      await f.indexes.synced(index.id, taskId, at(9));
      expect(await f.indexes.get(index.id)).toMatchObject({
        lastSyncedAt: at(9),
        lastTaskId: taskId,
        updatedAt: at(9),
        createdAt: at(0),
      });
    });

    test("finds an index's open tasks and cancels only its pending scheduled ones", async () => {
      const index = await f.indexes.upsert(1, 'url', 'https://a.test/', {}, at(0));
      const other = await f.indexes.upsert(1, 'url', 'https://b.test/', {}, at(0));
      expect(await f.indexes.taskIn(index.id, ['pending', 'running'])).toBeUndefined();
      const byHand = await task(index.id);
      const scheduled = await task(index.id, { scheduled: true });
      const otherScheduled = await task(other.id, { scheduled: true });
      expect([byHand, scheduled]).toContain(await f.indexes.taskIn(index.id, ['pending']));
      expect(await f.indexes.taskIn(index.id, ['running'])).toBeUndefined();

      await f.indexes.cancelScheduled(index.id, 'cancelled: auto sync was switched off', at(7));
      expect(await f.tasks.progress(scheduled)).toMatchObject({
        status: 'completed',
        success: false,
        error: 'cancelled: auto sync was switched off',
      });
      expect(await f.tasks.report(scheduled)).toMatchObject({ errorCode: 'ABORTED', finishedAt: at(7) });
      expect(await f.tasks.progress(byHand)).toMatchObject({ status: 'pending' });
      expect(await f.tasks.progress(otherScheduled)).toMatchObject({ status: 'pending' });
      expect(await f.indexes.taskIn(index.id, ['pending', 'running'])).toBe(byHand);
    });
  });
}

import 'reflect-metadata';
import { hostname } from 'node:os';
import { timestampAt } from '@kbqa/core';
import { IngestionTaskEntity, openDataSource, rawDatabase, TaskLeaseEntity } from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { insertTask } from './task-rows';
import { TaskLeases } from './task-leases';

describe(TaskLeases.name, () => {
  let ds: DataSource;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    const db = rawDatabase(ds);
    db.prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now'), ('q', 'now')").run();
  });
  afterEach(() => ds.destroy());

  const tasks = () => ds.getRepository(IngestionTaskEntity);
  const add = async (projectId: number) => {
    const row = await insertTask(tasks(), {
      projectId,
      kind: 'documents',
      payload: '{}',
      total: 0,
      indexId: null,
    });
    return { id: row.id, projectId };
  };
  const row = (id: number) => tasks().findOneByOrFail({ id });

  it('lets exactly one of two processes claim a pending task, and counts the attempt', async () => {
    const [a, b] = [new TaskLeases(ds, 30_000), new TaskLeases(ds, 30_000)];
    const task = await add(1);
    const won = await Promise.all([a.claim(task), b.claim(task)]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await row(task.id)).toMatchObject({ status: 'running', attempts: 1 });
    expect(await ds.getRepository(TaskLeaseEntity).findBy({ taskId: task.id })).toEqual([
      expect.objectContaining({ projectId: 1, owner: won[0] ? a.owner : b.owner }),
    ]);
  });

  it("holds the project's turn: another task of the project waits until the first is finished", async () => {
    const [a, b] = [new TaskLeases(ds, 30_000), new TaskLeases(ds, 30_000)];
    const first = await add(1);
    const second = await add(1);
    const elsewhere = await add(2);
    expect(await a.claim(first)).toBe(true);
    expect(await b.claim(second)).toBe(false);
    expect(await b.claim(elsewhere)).toBe(true);
    expect((await row(second.id)).status).toBe('pending');
    // A holder that can no longer write the task (b) changes nothing.
    expect(await b.update(first.id, { status: 'completed' })).toBe(false);
    expect(await b.claim(second)).toBe(false);
    expect(await a.update(first.id, { status: 'completed' })).toBe(true);
    expect(await b.claim(second)).toBe(true);
  });

  it('lets another process take a task over only once its lease ran out; the first then cannot renew', async () => {
    const a = new TaskLeases(ds, 300);
    const b = new TaskLeases(ds, 300);
    const task = await add(1);
    expect(await a.claim(task)).toBe(true);
    expect(await a.renew(task.id)).toBe(true);
    expect(await b.claim(task)).toBe(false);
    const deadline = Date.now() + 5_000;
    while (!(await b.claim(task))) {
      if (Date.now() > deadline) throw new Error('the lease never ran out');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await a.renew(task.id)).toBe(false);
    expect(await a.update(task.id, { current: 1 })).toBe(false);
    expect(await row(task.id)).toMatchObject({ status: 'running', attempts: 2, current: 0 });
  });

  it('lists pending tasks and running ones whose lease ran out or whose holder on this machine ended', async () => {
    const mine = new TaskLeases(ds, 30_000);
    const live = timestampAt(Date.now() + 60_000);
    const pending = await add(1);
    const lapsed = await add(1);
    const orphaned = await add(2);
    const elsewhere = await add(2);
    const legacy = await add(2);
    const hold = (taskId: number, projectId: number, owner: string, until: string) =>
      ds.getRepository(TaskLeaseEntity).insert({ taskId, projectId, owner, until });
    for (const t of [lapsed, orphaned, elsewhere, legacy]) await tasks().update(t.id, { status: 'running' });
    await hold(lapsed.id, 1, 'other-host:1:ab', timestampAt(Date.now() - 1));
    // No process has this pid (above Linux's default pid_max): its holder has ended.
    await hold(orphaned.id, 2, `${hostname()}:${2 ** 22 + 7}:ab`, live);
    await hold(elsewhere.id, 2, 'other-host:1:ab', live);

    const ids = (await mine.claimable()).map((t) => t.id);
    expect(ids.sort()).toEqual([pending.id, lapsed.id, orphaned.id, legacy.id].sort());
    const leases = await ds.getRepository(TaskLeaseEntity).find();
    expect(leases.map((l) => l.taskId).sort()).toEqual([lapsed.id, elsewhere.id].sort());
  });
});

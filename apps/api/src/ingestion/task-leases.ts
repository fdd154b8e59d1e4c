import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { nowTimestamp, timestampAt } from '@kbqa/core';
import { IngestionTaskEntity, rawDatabase, TaskLeaseEntity, writeTransaction } from '@kbqa/store-sqlite';
import { type DataSource, Raw } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { QueuedTask } from './ingestion-queue';

/** First key of the PostgreSQL advisory lock that orders the claims of one project ("kbqa"). */
const CLAIM_LOCK_KEY = 0x6b627161;

/**
 * Takes the lease of a task that is not completed, unless another process holds a live lease on
 * it or on another running task of its project. Returns the task id when this process won.
 */
const CLAIM_SQL = `INSERT INTO task_leases (task_id, project_id, owner, until)
  SELECT CAST(:id AS bigint), CAST(:projectId AS integer), CAST(:owner AS text), CAST(:until AS text)
  WHERE EXISTS (SELECT 1 FROM ingestion_tasks WHERE id = :id AND status <> 'completed')
    AND NOT EXISTS (SELECT 1 FROM task_leases l JOIN ingestion_tasks t ON t.id = l.task_id
      WHERE l.project_id = :projectId AND l.task_id <> :id AND l.owner <> :owner
        AND l.until >= :now AND t.status = 'running')
  ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, until = excluded.until
    WHERE task_leases.owner = :owner OR task_leases.until < :now
  RETURNING task_id`;

const START_SQL = `UPDATE ingestion_tasks SET status = 'running', attempts = attempts + 1, updated_at = :now
  WHERE id = :id`;

export const TASK_LEASES = Symbol('TASK_LEASES');

/**
 * Claims on tasks, for processes that share one database without Redis (BullMQ has its own
 * locks). A process runs a task only after one conditional statement made it the task's lease
 * holder, and renews the lease while it runs; another process takes the task over only once the
 * lease has run out (its holder was killed or hangs). A running task's live lease also holds its
 * project's turn: no other task of the project is claimed meanwhile.
 */
export class TaskLeases {
  /** Owners made in this process: several apps in one process (tests) each have their own. */
  private static readonly ours = new Set<string>();
  private readonly logger = new Logger(TaskLeases.name);
  /**
   * This process, as `host:pid:random`. The host and pid let a process on the same machine see at
   * once that a holder is gone (a restart after kill -9 need not wait out its lease); the random
   * part tells a later process that got the same pid (a container's pid 1) from the holder.
   */
  readonly owner: string;
  private readonly host = hostname();

  constructor(
    private readonly dataSource: DataSource,
    /** How long a claim lasts without renewal; holders renew it every third of that. */
    readonly leaseMs: number,
  ) {
    this.owner = `${this.host}:${process.pid}:${randomBytes(6).toString('hex')}`;
    TaskLeases.ours.add(this.owner);
  }

  /** How often a running task's lease is renewed. */
  get renewMs(): number {
    return Math.max(1, Math.floor(this.leaseMs / 3));
  }

  /**
   * Makes this process the task's holder, marks it running and counts the attempt, if the task
   * is unfinished, no other process holds a live lease on it and no other running task of its
   * project has one. One statement decides, so of processes claiming at once exactly one wins:
   * on SQLite under the write lock taken at BEGIN; on PostgreSQL after an advisory lock per
   * project, without which the statement would not see another task of the project claimed
   * concurrently.
   */
  async claim(task: QueuedTask): Promise<boolean> {
    const now = nowTimestamp();
    const params = { id: task.id, projectId: task.projectId, owner: this.owner, until: this.until(), now };
    const [claim, claimParams] = this.sql(CLAIM_SQL, params);
    const [start, startParams] = this.sql(START_SQL, params);
    if (this.dataSource.options.type !== 'postgres') {
      const db = rawDatabase(this.dataSource);
      return writeTransaction(db, () => {
        if (db.prepare(claim).get(...claimParams) === undefined) return false;
        db.prepare(start).run(...startParams);
        return true;
      });
    }
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [CLAIM_LOCK_KEY, task.projectId]);
      if ((await manager.query<unknown[]>(claim, claimParams)).length === 0) return false;
      await manager.query(start, startParams);
      return true;
    });
  }

  /** Extends this process's lease on a task; false when it no longer holds it. */
  async renew(taskId: number): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(TaskLeaseEntity)
      .update({ taskId, owner: this.owner }, { until: this.until() });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Renews the lease on `taskId` until the returned function is called; `lost` is called once if
   * another process took the task over (this one was too slow to renew). A renewal that fails
   * (the database refuses writes) is tried again at the next tick.
   */
  hold(taskId: number, lost: () => void): () => void {
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      this.renew(taskId)
        .then((held) => {
          if (held) return;
          clearInterval(timer);
          lost();
        })
        .catch((e: unknown) =>
          this.logger.warn(
            `task ${taskId}: lease not renewed (${e instanceof Error ? e.message : String(e)})`,
          ),
        )
        .finally(() => (renewing = false));
    }, this.renewMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Writes `values` to the task row if this process holds the task: a run that was taken over
   * cannot overwrite the new run's progress or outcome. False when it no longer holds it.
   */
  async update(taskId: number, values: QueryDeepPartialEntity<IngestionTaskEntity>): Promise<boolean> {
    const held = Raw(
      (id) => `${id} = :id AND EXISTS (SELECT 1 FROM task_leases WHERE task_id = :id AND owner = :owner)`,
      {
        id: taskId,
        owner: this.owner,
      },
    );
    const result = await this.dataSource.getRepository(IngestionTaskEntity).update({ id: held }, values);
    return (result.affected ?? 0) > 0;
  }

  /**
   * Gives up this process's lease (after the task completed or went back to pending). A lease
   * left behind by a crash in between holds nothing: only running tasks' leases count.
   */
  async release(taskId: number): Promise<void> {
    await this.dataSource.getRepository(TaskLeaseEntity).delete({ taskId, owner: this.owner });
  }

  /**
   * Tasks this process may try to claim, oldest first: pending ones (those pending for at least
   * `pendingForMs`: younger ones are in the queue of the process that created them), and running
   * ones without a live lease (it ran out, its holder is gone, or the task predates leases).
   */
  async claimable(pendingForMs = 0): Promise<QueuedTask[]> {
    await this.releaseGone();
    const rows = await this.dataSource
      .getRepository(IngestionTaskEntity)
      .createQueryBuilder('t')
      .select(['t.id', 't.projectId'])
      .where(
        `(t.status = 'pending' AND t.updated_at < :cutoff) OR (t.status = 'running' AND NOT EXISTS
          (SELECT 1 FROM task_leases l WHERE l.task_id = t.id AND l.until >= :now))`,
        { cutoff: timestampAt(Date.now() - pendingForMs + 1), now: nowTimestamp() },
      )
      // Ids are random: creation time gives the order of arrival.
      .orderBy('t.created_at', 'ASC')
      .addOrderBy('t.id', 'ASC')
      .getMany();
    return rows.map((r) => ({ id: Number(r.id), projectId: r.projectId }));
  }

  /**
   * Drops the leases held by processes of this machine that no longer exist (killed, or replaced
   * by a restart), so their tasks are taken over now rather than when the leases run out.
   */
  private async releaseGone(): Promise<void> {
    const leases = this.dataSource.getRepository(TaskLeaseEntity);
    const held = await leases
      .createQueryBuilder('l')
      .select('DISTINCT l.owner', 'owner')
      .getRawMany<{ owner: string }>();
    const gone = held.map((h) => h.owner).filter((owner) => this.isGone(owner));
    if (gone.length === 0) return;
    this.logger.log(`taking over the tasks of ended process(es) ${gone.join(', ')}`);
    for (const owner of gone) await leases.delete({ owner });
  }

  /** Whether `owner` was a process of this machine that has ended. */
  private isGone(owner: string): boolean {
    const m = /^(.*):(\d+):[0-9a-f]+$/.exec(owner);
    if (!m || m[1] !== this.host) return false;
    const pid = Number(m[2]);
    // Our pid but not one of our owners: the holder was an earlier process with this pid.
    if (pid === process.pid) return !TaskLeases.ours.has(owner);
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      // EPERM: the pid exists under another user, perhaps the holder; only ESRCH says it ended.
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  /** `:name` parameters in the database's own form. */
  private sql(sql: string, params: Record<string, unknown>): [string, unknown[]] {
    return this.dataSource.driver.escapeQueryWithParameters(sql, params, {}) as [string, unknown[]];
  }

  private until(): string {
    return timestampAt(Date.now() + this.leaseMs);
  }
}

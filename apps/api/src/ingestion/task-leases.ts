import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { IngestionTaskEntity, nowTimestamp, timestampAt } from '@kbqa/store-sqlite';
import { type DataSource, type EntityManager, In, IsNull, LessThan, Not } from 'typeorm';
import type { QueuedTask } from './ingestion-queue';

/** First key of the PostgreSQL advisory lock that orders the claims of one project ("kbqa"). */
const CLAIM_LOCK_KEY = 0x6b627161;

export const TASK_LEASES = Symbol('TASK_LEASES');

/**
 * Claims on tasks, kept in the task rows, for processes that share one database without Redis
 * (BullMQ has its own locks). A process runs a task only after one conditional UPDATE made it the
 * task's `lease_owner`, and renews `lease_until` while it runs; another process takes the task
 * over only once the lease has run out (its holder was killed or hangs). A task holding a live
 * lease also holds its project's turn: no other task of the project is claimed meanwhile.
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
   * is unfinished, no other process holds a live lease on it and no other task of its project
   * does. One statement decides, so of processes claiming at once exactly one wins. On
   * PostgreSQL claims of one project are serialized by an advisory lock first: its UPDATE would
   * otherwise not see another task of the project claimed concurrently.
   */
  async claim(task: QueuedTask): Promise<boolean> {
    const update = async (manager: EntityManager): Promise<boolean> => {
      const now = nowTimestamp();
      const result = await manager
        .createQueryBuilder()
        .update(IngestionTaskEntity)
        .set({
          status: 'running',
          attempts: () => 'attempts + 1',
          leaseOwner: this.owner,
          leaseUntil: this.until(),
          updatedAt: now,
        })
        .where('id = :id', { id: task.id })
        .andWhere("status <> 'completed'")
        .andWhere('(lease_owner IS NULL OR lease_owner = :owner OR lease_until < :now)', {
          owner: this.owner,
          now,
        })
        .andWhere(
          `NOT EXISTS (SELECT 1 FROM ingestion_tasks other WHERE other.project_id = :projectId
             AND other.id <> :id AND other.status = 'running' AND other.lease_owner <> :owner
             AND other.lease_until >= :now)`,
          { projectId: task.projectId },
        )
        .execute();
      return (result.affected ?? 0) > 0;
    };
    if (this.dataSource.options.type !== 'postgres') return update(this.dataSource.manager);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [CLAIM_LOCK_KEY, task.projectId]);
      return update(manager);
    });
  }

  /** Extends this process's lease on a running task; false when it no longer holds it. */
  async renew(taskId: number): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(IngestionTaskEntity)
      .update({ id: taskId, leaseOwner: this.owner, status: 'running' }, { leaseUntil: this.until() });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Renews the lease on `taskId` until the returned function is called; `lost` is called once if
   * another process took the task over (this one was too slow to renew) or the task row is gone.
   * A renewal that fails (the database refuses writes) is tried again at the next tick.
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
   * Tasks this process may try to claim, oldest first: pending ones (those pending for at least
   * `pendingForMs`: younger ones are in the queue of the process that created them), and running
   * ones whose lease ran out, whose holder is gone, or that have none (stored before leases).
   */
  async claimable(pendingForMs = 0): Promise<QueuedTask[]> {
    await this.releaseGone();
    const tasks = this.dataSource.getRepository(IngestionTaskEntity);
    const now = nowTimestamp();
    const rows = await tasks.find({
      select: { id: true, projectId: true },
      where: [
        { status: 'pending', updatedAt: LessThan(timestampAt(Date.now() - pendingForMs + 1)) },
        { status: 'running', leaseOwner: IsNull() },
        { status: 'running', leaseUntil: LessThan(now) },
      ],
      // Ids are random: creation time gives the order of arrival.
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map((r) => ({ id: Number(r.id), projectId: r.projectId }));
  }

  /**
   * Clears the leases held by processes of this machine that no longer exist (killed, or
   * replaced by a restart), so their tasks are taken over now rather than when the leases run out.
   */
  private async releaseGone(): Promise<void> {
    const tasks = this.dataSource.getRepository(IngestionTaskEntity);
    const held = await tasks
      .createQueryBuilder('t')
      .select('DISTINCT t.lease_owner', 'owner')
      .where("t.status <> 'completed'")
      .andWhere('t.lease_owner IS NOT NULL')
      .getRawMany<{ owner: string }>();
    const gone = held.map((h) => h.owner).filter((owner) => this.isGone(owner));
    if (gone.length === 0) return;
    this.logger.log(`taking over the task(s) of ended process(es) ${gone.join(', ')}`);
    await tasks.update(
      { leaseOwner: In(gone), status: Not('completed') },
      { leaseOwner: null, leaseUntil: null },
    );
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

  /** `{ id, leaseOwner }`: the criteria of every write of a task's run, so a run that lost its lease writes nothing. */
  own(taskId: number): { id: number; leaseOwner: string } {
    return { id: taskId, leaseOwner: this.owner };
  }

  private until(): string {
    return timestampAt(Date.now() + this.leaseMs);
  }
}

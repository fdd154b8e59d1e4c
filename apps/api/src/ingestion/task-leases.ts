import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { nowTimestamp, type TaskLeaseRepository, type TaskUpdate, timestampAt } from '@kbqa/core';
import type { QueuedTask } from './ingestion-queue';

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
    private readonly leases: TaskLeaseRepository,
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
  claim(task: QueuedTask): Promise<boolean> {
    const ref = { id: task.id, projectId: task.projectId };
    return this.leases.claim(ref, this.owner, this.until(), nowTimestamp());
  }

  /** Extends this process's lease on a task; false when it no longer holds it. */
  renew(taskId: number): Promise<boolean> {
    return this.leases.renew(taskId, this.owner, this.until());
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
  update(taskId: number, values: TaskUpdate): Promise<boolean> {
    return this.leases.updateHeld(taskId, this.owner, values);
  }

  /**
   * Gives up this process's lease (after the task completed or went back to pending). A lease
   * left behind by a crash in between holds nothing: only running tasks' leases count.
   */
  release(taskId: number): Promise<void> {
    return this.leases.release(taskId, this.owner);
  }

  /**
   * Tasks this process may try to claim, oldest first: pending ones (those pending for at least
   * `pendingForMs`: younger ones are in the queue of the process that created them), and running
   * ones without a live lease (it ran out, its holder is gone, or the task predates leases).
   */
  async claimable(pendingForMs = 0): Promise<QueuedTask[]> {
    await this.releaseGone();
    return this.leases.claimable(timestampAt(Date.now() - pendingForMs + 1), nowTimestamp());
  }

  /**
   * Drops the leases held by processes of this machine that no longer exist (killed, or replaced
   * by a restart), so their tasks are taken over now rather than when the leases run out.
   */
  private async releaseGone(): Promise<void> {
    const gone = (await this.leases.owners()).filter((owner) => this.isGone(owner));
    if (gone.length === 0) return;
    this.logger.log(`taking over the tasks of ended process(es) ${gone.join(', ')}`);
    for (const owner of gone) await this.leases.dropOwner(owner);
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

  private until(): string {
    return timestampAt(Date.now() + this.leaseMs);
  }
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A process's claim on a running task (see the API's TaskLeases): kept apart from the task row,
 * whose payload can be megabytes, so claiming and renewing never rewrite it.
 */
@Entity('task_leases')
export class TaskLeaseEntity {
  @PrimaryColumn('integer', { name: 'task_id' })
  taskId!: number;

  /** The task's project: a live lease also holds the project's turn. */
  @Column('integer', { name: 'project_id' })
  projectId!: number;

  /** The process holding the task, `host:pid:random`. */
  @Column('text')
  owner!: string;

  /** When the claim lapses unless renewed. */
  @Column('text')
  until!: string;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One stored header of a tool; `value` is a secret that never leaves the service layer. */
export interface ToolHeader {
  name: string;
  value: string;
}

/** An HTTP tool of a project, as the operator defined it (validated before it is stored). */
@Entity('tools')
export class ToolEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  name!: string;

  @Column('text')
  description!: string;

  /** JSON Schema of the arguments (`type: 'object'`). */
  @Column('simple-json')
  parameters!: Record<string, unknown>;

  @Column('text')
  method!: string;

  /** URL template with `{param}` placeholders. */
  @Column('text')
  url!: string;

  @Column('simple-json')
  headers!: ToolHeader[];

  /** JSON body template, absent for none. */
  @Column('simple-json', { nullable: true })
  body!: unknown;

  @Column('boolean', { name: 'public', default: false })
  isPublic!: boolean;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;
}

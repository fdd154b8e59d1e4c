import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('projects')
export class ProjectEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('text')
  name!: string;

  /** getMessagesData is answered only when the operator switched this on. */
  @Column('boolean', { name: 'export_enabled', default: false })
  exportEnabled!: boolean;

  @Column('text', { name: 'system_prompt', nullable: true })
  systemPrompt!: string | null;

  @Column('text', { name: 'created_at' })
  createdAt!: string;
}

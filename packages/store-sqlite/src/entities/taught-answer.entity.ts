import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A curated question and answer of the teaching feature, as the operator entered them. Its
 * content is indexed as the source `taught:<id>` of kind `teach` (taughtSource of @kbqa/core).
 */
@Entity('taught_answers')
export class TaughtAnswerEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  question!: string;

  @Column('text')
  answer!: string;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;
}

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

  /**
   * Origins whose pages may call the anon-key endpoints (the widget): a JSON array of exact
   * origins such as `https://docs.example.com`, or `["*"]` for any. Written through
   * ProjectsService, which validates each entry.
   */
  @Column('text', {
    name: 'allowed_origins',
    default: '[]',
    transformer: {
      to: (value: string[] | undefined) => JSON.stringify(value ?? []),
      from: (value: string | null) => parseOrigins(value),
    },
  })
  allowedOrigins!: string[];

  @Column('text', { name: 'created_at' })
  createdAt!: string;
}

/** The stored JSON array; anything else (a hand-edited row) reads as no origins, never as `*`. */
function parseOrigins(value: string | null): string[] {
  try {
    const parsed: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  } catch {
    return [];
  }
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ToolHeader } from './tool.entity';

/** A server whose tools a project's chats may call (an MCP server for kind 'mcp'). */
@Entity('tool_sources')
export class ToolSourceEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('integer', { name: 'project_id' })
  projectId!: number;

  @Column('text')
  kind!: string;

  /** Unique per project; prefixes the source's tools when their names clash. */
  @Column('text')
  name!: string;

  @Column('text')
  url!: string;

  /** Sent with every request to the server; the values are secrets. */
  @Column('simple-json')
  headers!: ToolHeader[];

  @Column('boolean', { name: 'public', default: false })
  isPublic!: boolean;

  @Column('text', { name: 'created_at' })
  createdAt!: string;

  @Column('text', { name: 'updated_at' })
  updatedAt!: string;
}

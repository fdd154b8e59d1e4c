import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** `PATCH /admin/v1/indexes/:id`: the auto-sync switch. */
export class UpdateIndexDto {
  @ApiProperty({ description: `re-sync every KBQA_SYNC_INTERVAL (24 h) when true` })
  @IsBoolean({ message: 'auto_sync must be a boolean' })
  auto_sync!: boolean;
}

/** An index: one ingestData root of a project. */
export class IndexResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  project_id!: number;

  @ApiProperty({ enum: ['website-crawler', 'docusaurus', 'github', 'youtube', 'url', 'sitemap'] })
  type!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({ type: [String] })
  include_paths!: string[];

  @ApiProperty({ type: [String] })
  exclude_paths!: string[];

  @ApiPropertyOptional({ description: "regular expression whose first group is a page path's version" })
  version_pattern?: string;

  @ApiPropertyOptional({ description: 'the version readers get without asking for one' })
  default_version?: string;

  @ApiProperty()
  auto_sync!: boolean;

  @ApiProperty({ type: 'integer', description: 'pages, files or videos the index holds' })
  pages!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_synced_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_sync_at!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  last_task_id!: number | null;
}

export class IndexListResponse {
  @ApiProperty({ type: [IndexResponse] })
  indexes!: IndexResponse[];
}

export class SyncStartedResponse {
  @ApiProperty({ type: 'integer' })
  index_id!: number;

  @ApiProperty({ type: 'integer', description: 'follow it with GET /admin/v1/tasks/:id or ingestionStatus' })
  task_id!: number;
}

export class IndexDeletedResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  removed_pages!: number;
}

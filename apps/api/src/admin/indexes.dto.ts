import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SOURCE_TYPES } from '@kbqa/core';
import { IsBoolean, IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';

/**
 * `POST /admin/v1/projects/:id/indexes`: an index only the operator creates. Other types are
 * created by `ingestData` (or `POST /admin/v1/projects/:id/ingest`).
 */
export class CreateIndexDto {
  @ApiProperty({ enum: ['folder'], description: 'a watched folder of the server' })
  @IsIn(['folder'], {
    message:
      'type must be folder (other indexes are created by ingestData or POST /admin/v1/projects/:id/ingest)',
  })
  type!: 'folder';

  @ApiProperty({
    example: '/srv/docs/handbook',
    description: 'absolute path of the folder; it must resolve, links followed, under KBQA_FOLDER_ROOTS',
  })
  @IsString({ message: 'path must be a string' })
  @IsNotEmpty({ message: 'path must not be empty' })
  @MaxLength(4096, { message: 'path must be at most 4096 characters' })
  path!: string;
}

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

  @ApiProperty({ enum: SOURCE_TYPES })
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

export class IndexCreatedResponse {
  @ApiProperty({ type: 'integer' })
  index_id!: number;

  @ApiProperty({ type: 'integer', description: 'its first load; follow it with GET /admin/v1/tasks/:id' })
  task_id!: number;
}

export class IndexDeletedResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  removed_pages!: number;
}

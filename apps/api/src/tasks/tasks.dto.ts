import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { TaskKind, TaskStatus } from '@kbqa/core';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { toPositiveInt } from '../common/validators';

/** Tasks a list answers when no limit is given. */
export const DEFAULT_TASK_LIST = 50;
/** Longest task list one call returns. */
export const MAX_TASK_LIST = 1000;

const TASK_KINDS: TaskKind[] = [
  'documents',
  'website-crawler',
  'docusaurus',
  'github',
  'youtube',
  'url',
  'sitemap',
  'openapi',
  'files',
  'folder',
];
const TASK_STATUSES: TaskStatus[] = ['pending', 'running', 'completed'];

/** `GET /admin/v1/projects/:id/tasks?limit=`. */
export class ListTasksQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_TASK_LIST, default: DEFAULT_TASK_LIST })
  @IsOptional()
  @Transform(toPositiveInt)
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_TASK_LIST}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_TASK_LIST}` })
  @Max(MAX_TASK_LIST, { message: `limit must be an integer from 1 to ${MAX_TASK_LIST}` })
  limit?: number;
}

/** One item an ingestion passed over, and why. */
export class SkippedItemResponse {
  @ApiProperty({ example: 'https://docs.example.com/blog/' })
  url!: string;

  @ApiPropertyOptional({
    description: 'machine-readable reason (`SkipCode` of @kbqa/core)',
    example: 'FILTERED',
  })
  code?: string;

  @ApiProperty({ example: 'excluded by exclude_paths' })
  reason!: string;
}

/** A line of a project's task list: the outcome and counts, without the per-URL report. */
export class TaskSummaryResponse {
  @ApiProperty({ description: 'random, not sequential', example: 48211590377 })
  id!: number;

  @ApiProperty({ enum: TASK_KINDS })
  kind!: TaskKind;

  @ApiProperty({ enum: TASK_STATUSES })
  status!: TaskStatus;

  @ApiProperty({ type: Boolean, nullable: true, description: 'null until the task completed' })
  success!: boolean | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-25T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finished_at!: string | null;

  @ApiProperty({ description: 'sources written' })
  indexed!: number;

  @ApiProperty({ description: 'pages, files or entries passed over' })
  skipped!: number;
}

/** `GET /admin/v1/projects/:id/tasks`. */
export class TaskListResponse {
  @ApiProperty({ type: [TaskSummaryResponse], description: 'newest first' })
  tasks!: TaskSummaryResponse[];
}

/** What an ingestData task did to the project's pages. */
export class SyncCountsResponse {
  @ApiProperty({ example: 1 })
  added!: number;

  @ApiProperty({ example: 2 })
  updated!: number;

  @ApiProperty({ example: 40 })
  unchanged!: number;

  @ApiProperty({ example: 1 })
  removed!: number;

  @ApiProperty({ example: 0 })
  failed!: number;
}

/**
 * What an ingestion task did (`kbqa tasks show`, `GET /admin/v1/tasks/:id`): its outcome and
 * every URL it indexed or skipped, with the reason.
 */
export class TaskReportResponse {
  @ApiProperty()
  id!: number;

  @ApiProperty()
  project_id!: number;

  @ApiProperty({ enum: TASK_KINDS })
  kind!: TaskKind;

  @ApiProperty({ enum: TASK_STATUSES })
  status!: TaskStatus;

  @ApiProperty({ description: 'PENDING, SCRAPING or EMBEDDING (docs/api.md)' })
  current_step!: string;

  @ApiProperty()
  current!: number;

  @ApiProperty()
  total!: number;

  @ApiProperty({ type: Boolean, nullable: true, description: 'null until the task completed' })
  success!: boolean | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true })
  error_code!: string | null;

  @ApiProperty()
  chunks!: number;

  @ApiProperty({ description: 'sources written' })
  indexed_count!: number;

  @ApiProperty({ description: 'items passed over, including those beyond the listed ones' })
  skipped_count!: number;

  @ApiPropertyOptional({
    type: SyncCountsResponse,
    description: 'ingestData tasks: pages added, updated, unchanged, removed and failed',
  })
  counts?: SyncCountsResponse;

  @ApiPropertyOptional({
    description: 'only when some were: sources the task wrote that were deleted (deleteSource) while it ran',
    example: 1,
  })
  deleted_during_run?: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'why pages a sync did not see were kept; that sources it wrote were deleted while it ran; ' +
      'include or exclude paths that matched no URL',
  })
  note!: string | null;

  @ApiProperty({ type: [String], description: 'sources indexed, in order (at most 20,000)' })
  indexed!: string[];

  @ApiProperty({ type: [SkippedItemResponse], description: 'items passed over (at most 20,000)' })
  skipped!: SkippedItemResponse[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finished_at!: string | null;
}

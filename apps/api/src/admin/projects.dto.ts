import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type ProjectRecord, toIsoUtc } from '@kbqa/core';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MAX_ORIGINS } from '../projects/origins';

const NAME_MAX = 200;
const ORIGIN_MAX = 2048;
const ORIGINS_DESCRIPTION =
  'web origins (scheme://host[:port]) whose pages may use the anon key: the embeddable widget. ' +
  'Exact match; ["*"] allows any origin; [] allows none (the default).';

/** `POST /admin/v1/projects`. */
export class CreateProjectDto {
  @ApiProperty({ maxLength: NAME_MAX, example: 'docs' })
  @IsString()
  @MaxLength(NAME_MAX)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;
}

/** `PATCH /admin/v1/projects/:id`: the fields to change; absent ones stay as they are. */
export class UpdateProjectDto {
  @ApiPropertyOptional({ maxLength: NAME_MAX, example: 'product docs' })
  @IsOptional()
  @IsString()
  @MaxLength(NAME_MAX)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({ description: 'whether getMessagesData answers for this project' })
  @IsOptional()
  @IsBoolean()
  export_enabled?: boolean;

  @ApiPropertyOptional({
    description: `${ORIGINS_DESCRIPTION} Replaces the whole list.`,
    type: [String],
    maxItems: MAX_ORIGINS,
    example: ['https://docs.example.com'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ORIGINS)
  @IsString({ each: true })
  @MaxLength(ORIGIN_MAX, { each: true })
  allowed_origins?: string[];
}

/** A project as the operator API shows it. */
export class ProjectResponse {
  @ApiProperty({ example: 1 })
  id!: number;

  @ApiProperty({ example: 'docs' })
  name!: string;

  @ApiProperty({ description: 'whether getMessagesData answers for this project' })
  export_enabled!: boolean;

  @ApiProperty({ description: ORIGINS_DESCRIPTION, type: [String], example: ['https://docs.example.com'] })
  allowed_origins!: string[];

  @ApiProperty({ format: 'date-time', example: '2026-11-25T10:00:00.000Z' })
  created_at!: string;
}

/** `GET /admin/v1/projects`. */
export class ProjectListResponse {
  @ApiProperty({ type: [ProjectResponse] })
  projects!: ProjectResponse[];
}

/** The record as a response: snake_case, ISO 8601 times. */
export function mapProject(project: ProjectRecord): ProjectResponse {
  return {
    id: project.id,
    name: project.name,
    export_enabled: project.exportEnabled,
    allowed_origins: project.allowedOrigins,
    created_at: toIsoUtc(project.createdAt),
  };
}

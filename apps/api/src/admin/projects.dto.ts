import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type ProjectEntity, toIsoUtc } from '@kbqa/store-sqlite';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const NAME_MAX = 200;

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
}

/** A project as the operator API shows it. */
export class ProjectResponse {
  @ApiProperty({ example: 1 })
  id!: number;

  @ApiProperty({ example: 'docs' })
  name!: string;

  @ApiProperty({ description: 'whether getMessagesData answers for this project' })
  export_enabled!: boolean;

  @ApiProperty({ format: 'date-time', example: '2026-11-25T10:00:00.000Z' })
  created_at!: string;
}

/** `GET /admin/v1/projects`. */
export class ProjectListResponse {
  @ApiProperty({ type: [ProjectResponse] })
  projects!: ProjectResponse[];
}

/** The entity as a response: snake_case, ISO 8601 times. */
export function mapProject(project: ProjectEntity): ProjectResponse {
  return {
    id: project.id,
    name: project.name,
    export_enabled: project.exportEnabled,
    created_at: toIsoUtc(project.createdAt),
  };
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { INGEST_DATA_TYPES, type SourceType } from '@kbqa/core';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, Min } from 'class-validator';
import { toPositiveInt } from '../common/validators';

export class MessageParams {
  @ApiProperty({ type: 'integer', minimum: 1 })
  @Transform(toPositiveInt)
  @IsInt({ message: 'id must be a positive integer' })
  @Min(1, { message: 'id must be a positive integer' })
  id!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  @Transform(toPositiveInt)
  @IsInt({ message: 'message_id must be a positive integer' })
  @Min(1, { message: 'message_id must be a positive integer' })
  message_id!: number;
}

export class RateDto {
  @ApiProperty({ enum: [1, 0, -1], description: '1 good, -1 bad, 0 clears the rating' })
  @IsIn([1, 0, -1], { message: 'rating_value must be 1, 0 or -1' })
  rating_value!: number;
}

/** The operator's counterpart of ingestData, without a key (documented for OpenAPI). */
export class AdminIngestDataDoc {
  @ApiProperty({ example: 'https://docs.example.com' })
  url!: string;

  @ApiPropertyOptional({ enum: INGEST_DATA_TYPES })
  type?: SourceType;

  @ApiPropertyOptional({ type: [String], description: 'only URLs whose path starts with one of these' })
  include_paths?: string[];

  @ApiPropertyOptional({ type: [String], description: 'skip URLs whose path starts with one of these' })
  exclude_paths?: string[];

  @ApiPropertyOptional({ description: "a regular expression whose first group is a page path's version" })
  version_pattern?: string;

  @ApiPropertyOptional({ description: 'the version readers get without asking for one' })
  default_version?: string;
}

export class TaskIdResponseDoc {
  @ApiProperty({ type: 'integer' })
  task_id!: number;
}

export class ConversationIdResponseDoc {
  @ApiProperty({ type: 'integer' })
  conversation_id!: number;
}

/** The operator's counterpart of serviceChat (documented for OpenAPI; validated as ChatDto). */
export class AdminChatDoc {
  @ApiProperty({ example: 'How do I add a route?' })
  question!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'continue this conversation' })
  conversation_id?: number;

  @ApiPropertyOptional({ description: 'false answers JSON instead of Server-Sent Events', default: true })
  shouldStream?: boolean;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type TaughtAnswerRecord, toIsoUtc } from '@kbqa/core';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const QUESTION_MAX = 1000;
const ANSWER_MAX = 20_000;

/** `POST /admin/v1/projects/:id/taught`. */
export class CreateTaughtDto {
  @ApiProperty({ maxLength: QUESTION_MAX, example: 'How do I reset my password?' })
  @IsString()
  @MaxLength(QUESTION_MAX)
  @Matches(/\S/, { message: 'question must not be blank' })
  question!: string;

  @ApiProperty({ maxLength: ANSWER_MAX, example: 'Open Settings > Security and click Reset password.' })
  @IsString()
  @MaxLength(ANSWER_MAX)
  @Matches(/\S/, { message: 'answer must not be blank' })
  answer!: string;
}

/** `PATCH /admin/v1/taught/:id`: the fields to change; absent ones stay as they are. */
export class UpdateTaughtDto {
  @ApiPropertyOptional({ maxLength: QUESTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(QUESTION_MAX)
  @Matches(/\S/, { message: 'question must not be blank' })
  question?: string;

  @ApiPropertyOptional({ maxLength: ANSWER_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(ANSWER_MAX)
  @Matches(/\S/, { message: 'answer must not be blank' })
  answer?: string;
}

/** A taught question/answer pair. */
export class TaughtResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty()
  question!: string;

  @ApiProperty()
  answer!: string;

  @ApiProperty({
    example: 'taught:3',
    description: 'the source string (kind `teach`) that indexes it; chat cites it with this link',
  })
  source!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class TaughtListResponse {
  @ApiProperty({ type: [TaughtResponse] })
  taught!: TaughtResponse[];
}

export function mapTaught(pair: TaughtAnswerRecord): TaughtResponse {
  return {
    id: pair.id,
    question: pair.question,
    answer: pair.answer,
    source: pair.source,
    created_at: toIsoUtc(pair.createdAt),
    updated_at: toIsoUtc(pair.updatedAt),
  };
}

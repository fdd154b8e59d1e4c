import { ApiProperty } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@kbqa/core';
import { Transform } from 'class-transformer';
import { IsInt, Min } from 'class-validator';
import { toPositiveInt } from '../common/validators';

/** The API's one error shape (docs/api.md), as the operator API documents it. */
export class ErrorResponse {
  @ApiProperty({
    example: 'a valid operator token (Authorization: Bearer <token>) or dashboard session is required',
  })
  error!: string;

  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'UNAUTHORIZED' })
  code!: ErrorCode;
}

/** `:id` of an operator route: a project, key or task id. */
export class IdParams {
  @ApiProperty({ type: 'integer', minimum: 1 })
  @Transform(toPositiveInt)
  @IsInt({ message: 'id must be a positive integer' })
  @Min(1, { message: 'id must be a positive integer' })
  id!: number;
}

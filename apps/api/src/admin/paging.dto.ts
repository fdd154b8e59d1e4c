import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsCalendarDay, toPositiveInt } from '../common/validators';

/** Rows a listing answers when no limit is given, and the most one call answers. */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

/** A non-negative integer from a query string, strictly (digits only); else left for the validators. */
export function toNonNegativeInt({ value }: { value: unknown }): unknown {
  return value === '0' ? 0 : toPositiveInt({ value });
}

/** `limit` and `offset` of a listing. */
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE })
  @IsOptional()
  @Transform(toPositiveInt)
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_PAGE}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_PAGE}` })
  @Max(MAX_PAGE, { message: `limit must be an integer from 1 to ${MAX_PAGE}` })
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0 })
  @IsOptional()
  @Transform(toNonNegativeInt)
  @IsInt({ message: 'offset must be a non-negative integer' })
  @Min(0, { message: 'offset must be a non-negative integer' })
  offset?: number;
}

/** `from` and `to`: inclusive UTC days. */
export class DayRangeQuery {
  @ApiPropertyOptional({ format: 'date', example: '2026-11-01', description: 'first day (UTC), included' })
  @IsOptional()
  @IsCalendarDay()
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30', description: 'last day (UTC), included' })
  @IsOptional()
  @IsCalendarDay()
  to?: string;
}

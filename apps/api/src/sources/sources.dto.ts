import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import type { SourceRecord } from '@kbqa/core';
import { KeyDto } from '../common/key.dto';

export class GetSourcesDto extends KeyDto {}

export class DeleteSourceDto extends KeyDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  source?: string;

  @IsOptional()
  @IsBoolean()
  delete_all?: boolean;
}

export interface SourceResponse {
  id: number;
  source: string;
  metadata: [];
  date_added: string;
}

export interface DeleteSourceResponse {
  message: string;
  deleted: number;
}

export function mapSource(record: SourceRecord): SourceResponse {
  return { id: record.id, source: record.source, metadata: [], date_added: record.dateAdded };
}

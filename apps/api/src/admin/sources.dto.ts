import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SourceKind } from '@kbqa/core';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { toPositiveInt } from '../common/validators';
import { PageQuery } from './paging.dto';

const SOURCE_KINDS: SourceKind[] = [
  'documents',
  'teach',
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

/** `GET /admin/v1/projects/:id/sources?index_id=&q=&limit=&offset=`. */
export class ListSourcesQuery extends PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: "only this index's pages" })
  @IsOptional()
  @Transform(toPositiveInt)
  @IsInt({ message: 'index_id must be a positive integer' })
  @Min(1, { message: 'index_id must be a positive integer' })
  index_id?: number;

  @ApiPropertyOptional({ maxLength: 500, description: 'case-insensitive part of the source string' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  q?: string;
}

/** A source (a page, file, video, raw-documents label or taught pair) of a project. */
export class AdminSourceResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ example: 'https://docs.example.com/guide/install' })
  source!: string;

  @ApiProperty({ enum: SOURCE_KINDS })
  kind!: SourceKind;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null for raw documents and taught pairs' })
  index_id!: number | null;

  @ApiProperty({ format: 'date-time' })
  date_added!: string;

  @ApiProperty({ format: 'date-time', description: 'when its content was last replaced' })
  updated_at!: string;

  @ApiProperty({ type: 'integer', description: 'passages it holds' })
  chunks!: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'Installing Acme',
    description: 'the title of its (first) page; null when it has none other than the source',
  })
  title!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '2.x',
    description: 'the documentation version of its page; null for a page without one',
  })
  version!: string | null;
}

export class SourceListResponse {
  @ApiProperty({ type: 'integer', description: 'sources matching the filters, over all pages' })
  total!: number;

  @ApiProperty({ type: [AdminSourceResponse] })
  sources!: AdminSourceResponse[];
}

export class DeletedResponse {
  @ApiProperty({ type: 'integer', example: 1 })
  deleted!: number;
}

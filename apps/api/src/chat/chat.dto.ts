import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { SearchHit } from '@kbqa/core';
import { cleanMarkup } from '@kbqa/text';
import { KeyDto } from '../common/key.dto';
import { knownTitle } from '../common/titles';
import { IsLooseId } from '../common/validators';

/** Default and bounds of retriever_options.num_chunks (SPEC.md leaves them open). */
export const NUM_CHUNKS = { default: 5, min: 1, max: 50 } as const;

export class HistoryEntryDto {
  @IsString()
  @MaxLength(20_000)
  prompt!: string;

  @IsString()
  @MaxLength(50_000)
  response!: string;

  /** Kept for compatibility; never trusted as a source. */
  @IsOptional()
  @IsArray()
  sources?: unknown[];
}

export class RetrieverOptionsDto {
  @IsOptional()
  @IsInt()
  @Min(NUM_CHUNKS.min)
  @Max(NUM_CHUNKS.max)
  num_chunks?: number;
}

export class TrackingDto {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  roleInfo?: string;
}

export class ChatDto extends KeyDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(10_000)
  question!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => HistoryEntryDto)
  history?: HistoryEntryDto[];

  @IsOptional()
  @IsLooseId()
  conversation_id?: number | string;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  temperature?: number;

  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  additional_context?: string;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  relevance_threshold?: number;

  /** Parsed by parseWhere (operators and value types) in the service. */
  @IsOptional()
  @IsObject()
  where?: Record<string, unknown>;

  /** kbqa's extension: the documentation version to answer from (`where: {"version": …}`). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  version?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RetrieverOptionsDto)
  retriever_options?: RetrieverOptionsDto;

  @IsOptional()
  @IsBoolean()
  shouldStream?: boolean;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TrackingDto)
  tracking?: TrackingDto;
}

export interface StreamedSource {
  id: string;
  content: string;
  link: string;
  /** The page's title, when it has one other than its address; the playground's stream only. */
  title?: string;
  /** Only for a page of versioned documentation: its version. */
  metadata?: { version: string };
}

export interface ChatSourceResponse {
  id: number;
  content: string;
  link: string;
  relevance_score: number;
  /** Only for a page of versioned documentation: its version. */
  metadata?: { version: string };
}

/** One tool call of an answer (SPEC.md "Tool usage record"). */
export interface ToolUsage {
  /** Unique per call. */
  id: string;
  /** One per chat turn: the calls of one answer share it. */
  internal_run_id: string;
  tool_name: string;
  has_error: boolean;
  /** When the call was made: ISO 8601 UTC with milliseconds and `Z`. */
  date: string;
}

export interface ChatResponse {
  answer: { text: string };
  message_id: number;
  sources: ChatSourceResponse[];
  tools_used: ToolUsage[];
}

/** Source snippets are shown to readers: markup that is not prose (see cleanMarkup) is dropped. */
/**
 * `withTitle` for the dashboard's playground only: serviceChat's sources keep the hosted service's
 * published shape, which clients compare field by field.
 */
export function mapStreamedSource(hit: SearchHit, withTitle = false): StreamedSource {
  const source: StreamedSource = {
    id: String(hit.chunkId),
    content: cleanMarkup(hit.content),
    link: hit.link,
  };
  if (withTitle && knownTitle(hit.title, hit.link, hit.source)) source.title = hit.title;
  if (hit.version !== undefined) source.metadata = { version: hit.version };
  return source;
}

export function mapChatSource(hit: SearchHit): ChatSourceResponse {
  return {
    id: hit.chunkId,
    content: cleanMarkup(hit.content),
    link: hit.link,
    relevance_score: Math.round(hit.score * 1e4) / 1e4,
    ...(hit.version !== undefined ? { metadata: { version: hit.version } } : {}),
  };
}

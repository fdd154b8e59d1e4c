import { INGEST_DATA_TYPES, KbqaError, SOURCE_TYPES, type SourceType } from '@kbqa/core';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { KeyDto } from '../common/key.dto';

export const MAX_DOCUMENTS_PER_REQUEST = 500;

/** Integer, or a string of digits (clients send task ids both ways). */
function IsIdLike() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isIdLike',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) ||
          (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value)),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'id'} must be a positive integer or a string of digits`,
      },
    });
}

export interface DocumentOptions {
  summarize?: boolean;
  summarize_max_chars?: number;
}

/** One element of `documents` (SPEC.md "Raw document"). */
export interface RawDocument {
  content: string;
  source: string;
  metadata?: Record<string, string | number | boolean>;
  options?: DocumentOptions;
}

const DOCUMENT_FIELDS = new Set(['content', 'source', 'metadata', 'options']);
const OPTION_FIELDS = new Set(['summarize', 'summarize_max_chars']);

function isFlatMetadata(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.entries(value).every(
      ([k, v]) =>
        k.length > 0 &&
        k.length <= 64 &&
        (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))),
    )
  );
}

/** The first problem of one raw document, or undefined when it is valid. */
export function rawDocumentProblem(doc: unknown, at: string): string | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return `${at} must be an object`;
  const d = doc as Record<string, unknown>;
  for (const key of Object.keys(d)) if (!DOCUMENT_FIELDS.has(key)) return `${at}.${key} should not exist`;
  if (typeof d.content !== 'string') return `${at}.content must be a string`;
  if (typeof d.source !== 'string' || d.source.length === 0) return `${at}.source must be a non-empty string`;
  if (d.source.length > 2048) return `${at}.source must be at most 2048 characters`;
  if (d.metadata !== undefined && !isFlatMetadata(d.metadata)) {
    return `${at}.metadata must be an object whose values are strings, numbers or booleans`;
  }
  if (d.options !== undefined) {
    const o = d.options;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return `${at}.options must be an object`;
    for (const key of Object.keys(o))
      if (!OPTION_FIELDS.has(key)) return `${at}.options.${key} should not exist`;
    const { summarize, summarize_max_chars: max } = o as Record<string, unknown>;
    if (summarize !== undefined && typeof summarize !== 'boolean')
      return `${at}.options.summarize must be a boolean`;
    if (
      max !== undefined &&
      (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 100_000)
    ) {
      return `${at}.options.summarize_max_chars must be an integer from 1 to 100000`;
    }
  }
  return undefined;
}

/**
 * Validates every raw document in one pass. class-transformer and nested class-validator were
 * slow enough on large batches to block chat requests behind each ingestion request.
 */
function AreRawDocuments() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'areRawDocuments',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) &&
          value.every((doc, i) => rawDocumentProblem(doc, `documents[${i}]`) === undefined),
        defaultMessage: (args?: ValidationArguments) => {
          const list = Array.isArray(args?.value) ? (args.value as unknown[]) : [];
          for (let i = 0; i < list.length; i++) {
            const problem = rawDocumentProblem(list[i], `documents[${i}]`);
            if (problem) return problem;
          }
          return 'documents must be an array of raw documents';
        },
      },
    });
}

export class IngestDocumentsDto extends KeyDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_DOCUMENTS_PER_REQUEST, {
    message: `documents must contain at most ${MAX_DOCUMENTS_PER_REQUEST} entries`,
  })
  @AreRawDocuments()
  documents!: RawDocument[];
}

export class IngestDataDto extends KeyDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url!: string;

  // Operator-only types pass here so the service can say where they are created instead.
  @IsOptional()
  @IsIn(SOURCE_TYPES, { message: `type must be one of: ${INGEST_DATA_TYPES.join(', ')}` })
  type?: SourceType;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  include_paths?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  exclude_paths?: string[];

  /** kbqa's extension: a regular expression whose first group is a page path's version. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  version_pattern?: string;

  /** kbqa's extension: the version readers get without asking for one. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  default_version?: string;
}

/** The text fields of an `ingestFiles` upload (the files themselves are parts named `files`). */
export class IngestFilesDto extends KeyDto {
  /** JSON object of flat values added to every document of the files, for the `where` filter. */
  @IsOptional()
  @IsString()
  @MaxLength(64 * 1024)
  metadata?: string;
}

/** The metadata field of an upload: a JSON object of strings, numbers and booleans. */
export function parseFileMetadata(
  text: string | undefined,
): Record<string, string | number | boolean> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new KbqaError('BAD_REQUEST', 'metadata must be a JSON object');
  }
  if (!isFlatMetadata(value)) {
    throw new KbqaError(
      'BAD_REQUEST',
      'metadata must be a JSON object whose values are strings, numbers or booleans',
    );
  }
  return value as Record<string, string | number | boolean>;
}

export class IngestionStatusDto extends KeyDto {
  @IsIdLike()
  task_id!: number | string;
}

export interface TaskIdResponse {
  task_id: number;
}

export type IngestionStatusResponse =
  | { status: 'pending' | 'running'; current: number; current_step: string; metadata: string; total: number }
  | {
      status: 'completed';
      result: {
        error: string;
        project_id: number;
        success: boolean;
        /** Sources (pages, files, documents' sources) indexed by the task. */
        indexed: number;
        /** Pages, files or sitemap entries passed over (`kbqa tasks show <id>` says why). */
        skipped: number;
        /** `ingestData` tasks: what the load or sync did to the index's pages. */
        added?: number;
        updated?: number;
        unchanged?: number;
        removed?: number;
        failed?: number;
        /**
         * Only when some were: sources the task wrote (counted in `indexed`, `added`, `updated`)
         * that were deleted while it ran, so the project holds that many fewer.
         */
        deleted_during_run?: number;
        /** Only when some did: `include_paths` that matched no URL the crawl met. */
        unmatched_include_paths?: string[];
        /** Only when some did: `exclude_paths` that matched no URL the crawl met (they excluded nothing). */
        unmatched_exclude_paths?: string[];
      };
    };

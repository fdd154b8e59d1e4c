import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { SECRET_MASK, TOOL_METHODS } from '../tools/tool-definition';

const PARAMETERS_EXAMPLE = {
  type: 'object',
  properties: { city: { type: 'string', description: 'city name' } },
  required: ['city'],
};
const HEADERS_DESCRIPTION =
  `header name to value; the values are secrets: stored, sent with each call, and shown only as ` +
  `"${SECRET_MASK}" from then on`;

/**
 * `POST /admin/v1/projects/:id/tools`: an HTTP tool (docs/api.md, "Tools"). The shapes are checked
 * here; the rules between fields (placeholders declared, a usable schema) by parseToolDefinition.
 */
export class CreateToolDto {
  @ApiProperty({ pattern: '^[a-zA-Z0-9_-]{1,64}$', example: 'weather' })
  @IsString({ message: 'name must be a string' })
  name!: string;

  @ApiProperty({ example: 'Current weather of a city' })
  @IsString({ message: 'description must be a string' })
  description!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: PARAMETERS_EXAMPLE })
  @IsObject({ message: 'parameters must be a JSON Schema object' })
  parameters!: Record<string, unknown>;

  @ApiProperty({ enum: TOOL_METHODS })
  @IsIn(TOOL_METHODS, { message: `method must be one of ${TOOL_METHODS.join(', ')}` })
  method!: string;

  @ApiProperty({
    example: 'https://api.example.com/weather/{city}',
    description: '{param} placeholders are URL-encoded',
  })
  @IsString({ message: 'url must be a string' })
  url!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: HEADERS_DESCRIPTION,
  })
  @IsOptional()
  @IsObject({ message: 'headers must be an object of header name to string value' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description: 'JSON body template; a string that is exactly "{param}" becomes the argument\'s JSON value',
  })
  @IsOptional()
  @Allow()
  body?: unknown;

  @ApiPropertyOptional({ default: false, description: 'anon-key chats may use the tool' })
  @IsOptional()
  @IsBoolean({ message: 'public must be a boolean' })
  public?: boolean;
}

/** `PATCH /admin/v1/tools/:id`: the fields to change. */
export class UpdateToolDto {
  @ApiPropertyOptional({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject({ message: 'parameters must be a JSON Schema object' })
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: TOOL_METHODS })
  @IsOptional()
  @IsIn(TOOL_METHODS, { message: `method must be one of ${TOOL_METHODS.join(', ')}` })
  method?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  url?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: `the full new set of headers; a value of "${SECRET_MASK}" keeps that header's stored secret, absent keeps them all`,
  })
  @IsOptional()
  @IsObject({ message: 'headers must be an object of header name to string value' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'JSON body template; null removes it' })
  @IsOptional()
  @Allow()
  body?: unknown;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean({ message: 'public must be a boolean' })
  public?: boolean;
}

/** `POST /admin/v1/tools/:id/test`. */
export class TestToolDto {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { city: 'Paris' } })
  @IsObject({ message: 'args must be a JSON object' })
  args!: Record<string, unknown>;
}

/** A tool; header values are always masked. */
export class ToolResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  project_id!: number;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  parameters!: Record<string, unknown>;

  @ApiProperty({ enum: TOOL_METHODS })
  method!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [SECRET_MASK] },
    example: { Authorization: SECRET_MASK },
  })
  headers!: Record<string, string>;

  @ApiProperty({ nullable: true, description: 'the body template, null for none' })
  body!: unknown;

  @ApiProperty()
  public!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class ToolListResponse {
  @ApiProperty({ type: [ToolResponse] })
  tools!: ToolResponse[];
}

/** One call of a tool; a failing tool is an answer with `has_error`, not an HTTP error. */
export class ToolRunResponse {
  @ApiProperty({ description: 'the server answered 2xx' })
  ok!: boolean;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no answer came' })
  status!: number | null;

  @ApiProperty({ description: 'response body (JSON pretty-printed), capped, stored header values redacted' })
  output!: string;

  @ApiProperty()
  has_error!: boolean;

  @ApiPropertyOptional()
  error?: string;
}

/** `POST /admin/v1/projects/:id/tools/import-openapi`: either `document` or `url`. */
export class ImportOpenApiDto {
  @ApiPropertyOptional({
    description: 'the OpenAPI 3 document: a JSON object, or its text (JSON or YAML)',
    oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }],
  })
  @IsOptional()
  @Allow()
  document?: unknown;

  @ApiPropertyOptional({
    example: 'https://api.example.com/openapi.json',
    description: 'fetched under the same address policy as tools (KBQA_ALLOW_PRIVATE_HOSTS)',
  })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  url?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: `set on every created tool; ${HEADERS_DESCRIPTION}`,
  })
  @IsOptional()
  @IsObject({ message: 'headers must be an object of header name to string value' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({ default: false, description: 'anon-key chats may use the created tools' })
  @IsOptional()
  @IsBoolean({ message: 'public must be a boolean' })
  public?: boolean;

  @ApiPropertyOptional({ type: [String], description: 'only these operationIds (default: every operation)' })
  @IsOptional()
  @IsArray({ message: 'operations must be an array of operationIds' })
  @IsString({ each: true, message: 'operations must be an array of operationIds' })
  operations?: string[];
}

/** An operation of the document that did not become a tool. */
export class SkippedOperationResponse {
  @ApiProperty({ description: 'operationId, else "METHOD /path"' })
  operation!: string;

  @ApiPropertyOptional({ description: 'the tool name it would have had' })
  name?: string;

  @ApiProperty()
  reason!: string;
}

export class ImportOpenApiResponse {
  @ApiProperty({ type: [ToolResponse], description: 'the created tools, header values masked' })
  tools!: ToolResponse[];

  @ApiProperty({ type: [SkippedOperationResponse] })
  skipped!: SkippedOperationResponse[];
}

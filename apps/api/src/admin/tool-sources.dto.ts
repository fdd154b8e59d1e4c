import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { SECRET_MASK } from '../tools/tool-definition';
import { TOOL_SOURCE_KINDS, type ToolSourceView } from '../tools/tool-sources.service';

/** `POST /admin/v1/projects/:id/tool-sources`: an MCP server whose tools chats may call. */
export class CreateToolSourceDto {
  @ApiProperty({ enum: TOOL_SOURCE_KINDS })
  @IsIn(TOOL_SOURCE_KINDS, { message: `kind must be one of ${TOOL_SOURCE_KINDS.join(', ')}` })
  kind!: string;

  @ApiProperty({
    example: 'https://mcp.example.com/mcp',
    description: 'Streamable HTTP endpoint; private addresses only for hosts in KBQA_ALLOW_PRIVATE_HOSTS',
  })
  @IsString({ message: 'url must be a string' })
  url!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: `sent with every request to the server; the values are secrets, shown as "${SECRET_MASK}"`,
  })
  @IsOptional()
  @IsObject({ message: 'headers must be an object of header name to string value' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({ default: false, description: "anon-key chats may use the source's tools" })
  @IsOptional()
  @IsBoolean({ message: 'public must be a boolean' })
  public?: boolean;

  @ApiPropertyOptional({
    pattern: '^[a-zA-Z0-9_-]{1,64}$',
    description:
      "unique in the project; prefixes the source's tools whose names clash (default from the host)",
  })
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  name?: string;
}

/** A tool source; header values are always masked. */
export class ToolSourceResponse implements ToolSourceView {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  project_id!: number;

  @ApiProperty({ enum: TOOL_SOURCE_KINDS })
  kind!: 'mcp';

  @ApiProperty()
  name!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [SECRET_MASK] },
    example: { Authorization: SECRET_MASK },
  })
  headers!: Record<string, string>;

  @ApiProperty()
  public!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class ToolSourceListResponse {
  @ApiProperty({ type: [ToolSourceResponse] })
  tool_sources!: ToolSourceResponse[];
}

/** A tool as the source's server lists it now. */
export class SourceToolResponse {
  @ApiProperty({
    description: "the server's name for it (a chat may offer it prefixed when the name is taken)",
  })
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' })
  parameters!: Record<string, unknown>;
}

export class SourceToolListResponse {
  @ApiProperty({ type: [SourceToolResponse] })
  tools!: SourceToolResponse[];
}

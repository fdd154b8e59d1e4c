import { Body, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ToolsService } from '../tools/tools.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { DeletedResponse } from './sources.dto';
import {
  CreateToolDto,
  ImportOpenApiDto,
  ImportOpenApiResponse,
  TestToolDto,
  ToolListResponse,
  ToolResponse,
  ToolRunResponse,
  UpdateToolDto,
} from './tools.dto';

/** HTTP tools per project (docs/api.md, "Tools"); header values are never returned. */
@AdminController('tools')
export class AdminToolsController {
  constructor(private readonly tools: ToolsService) {}

  @Get('projects/:id/tools')
  @ApiOperation({ summary: "List a project's tools (header values masked)" })
  @ApiOkResponse({ type: ToolListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<ToolListResponse> {
    return { tools: await this.tools.list(id) };
  }

  @Post('projects/:id/tools')
  @ApiOperation({ summary: 'Add an HTTP tool to a project' })
  @ApiCreatedResponse({ type: ToolResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  create(@Param() { id }: IdParams, @Body() dto: CreateToolDto): Promise<ToolResponse> {
    return this.tools.create(id, { ...dto });
  }

  @Post('projects/:id/tools/import-openapi')
  @ApiOperation({
    summary:
      'Create one tool per operation of an OpenAPI 3 document (inline or by URL); skipped operations come back with the reason',
  })
  @ApiCreatedResponse({ type: ImportOpenApiResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  importOpenApi(@Param() { id }: IdParams, @Body() dto: ImportOpenApiDto): Promise<ImportOpenApiResponse> {
    return this.tools.importOpenApi(id, { ...dto });
  }

  @Get('tools/:id')
  @ApiOperation({ summary: 'Show one tool (header values masked)' })
  @ApiOkResponse({ type: ToolResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  show(@Param() { id }: IdParams): Promise<ToolResponse> {
    return this.tools.show(id);
  }

  @Patch('tools/:id')
  @ApiOperation({ summary: 'Change a tool; a header value of "••••" keeps the stored secret' })
  @ApiOkResponse({ type: ToolResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  update(@Param() { id }: IdParams, @Body() dto: UpdateToolDto): Promise<ToolResponse> {
    return this.tools.update(id, dto);
  }

  @Delete('tools/:id')
  @ApiOperation({ summary: 'Delete a tool' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async delete(@Param() { id }: IdParams): Promise<DeletedResponse> {
    await this.tools.delete(id);
    return { deleted: 1 };
  }

  @Post('tools/:id/test')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Call a tool with these arguments, as a chat would; a failing tool gives has_error, not an HTTP error',
  })
  @ApiOkResponse({ type: ToolRunResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  test(@Param() { id }: IdParams, @Body() dto: TestToolDto): Promise<ToolRunResponse> {
    return this.tools.test(id, dto.args);
  }
}

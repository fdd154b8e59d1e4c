import { Body, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ToolSourcesService } from '../tools/tool-sources.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { DeletedResponse } from './sources.dto';
import {
  CreateToolSourceDto,
  SourceToolListResponse,
  ToolSourceListResponse,
  ToolSourceResponse,
} from './tool-sources.dto';

/** MCP servers as tool sources per project (docs/api.md, "Tools"); header values are never returned. */
@AdminController('tool-sources')
export class AdminToolSourcesController {
  constructor(private readonly sources: ToolSourcesService) {}

  @Get('projects/:id/tool-sources')
  @ApiOperation({ summary: "List a project's tool sources (header values masked)" })
  @ApiOkResponse({ type: ToolSourceListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<ToolSourceListResponse> {
    return { tool_sources: await this.sources.list(id) };
  }

  @Post('projects/:id/tool-sources')
  @ApiOperation({ summary: 'Add an MCP server (Streamable HTTP) whose tools chats may call' })
  @ApiCreatedResponse({ type: ToolSourceResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  create(@Param() { id }: IdParams, @Body() dto: CreateToolSourceDto): Promise<ToolSourceResponse> {
    return this.sources.create(id, { ...dto });
  }

  @Get('tool-sources/:id/tools')
  @ApiOperation({ summary: "List the source's tools, live from its server" })
  @ApiOkResponse({ type: SourceToolListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async tools(@Param() { id }: IdParams): Promise<SourceToolListResponse> {
    return { tools: await this.sources.liveTools(id) };
  }

  @Delete('tool-sources/:id')
  @ApiOperation({ summary: 'Remove a tool source' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async delete(@Param() { id }: IdParams): Promise<DeletedResponse> {
    await this.sources.delete(id);
    return { deleted: 1 };
  }
}

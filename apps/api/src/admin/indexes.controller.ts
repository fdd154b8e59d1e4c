import { Body, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { IndexesService } from '../indexes/indexes.service';
import { ProjectsService } from '../projects/projects.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import {
  CreateIndexDto,
  IndexCreatedResponse,
  IndexDeletedResponse,
  IndexListResponse,
  IndexResponse,
  SyncStartedResponse,
  UpdateIndexDto,
} from './indexes.dto';

/**
 * Indexes (one per ingestData root, or a watched folder): list, create a folder index, show,
 * auto-sync switch, sync now, delete with pages.
 */
@AdminController('indexes')
export class AdminIndexesController {
  constructor(
    private readonly indexes: IndexesService,
    private readonly projects: ProjectsService,
  ) {}

  @Get('projects/:id/indexes')
  @ApiOperation({ summary: "List a project's indexes with their pages and sync schedule" })
  @ApiOkResponse({ type: IndexListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<IndexListResponse> {
    await this.projects.getProject(id);
    return { indexes: await this.indexes.list(id) };
  }

  @Post('projects/:id/indexes')
  @ApiOperation({
    summary: 'Create a watched folder index (type folder) and queue its first load',
    description:
      'The folder must resolve, symbolic links followed, under one of KBQA_FOLDER_ROOTS. Its files ' +
      '(PDF, Word .docx, Markdown, HTML, text) are ingested, then kept in step as they change. ' +
      'The same path again finds the same index and syncs it.',
  })
  @ApiCreatedResponse({ type: IndexCreatedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async create(@Param() { id }: IdParams, @Body() dto: CreateIndexDto): Promise<IndexCreatedResponse> {
    await this.projects.getProject(id);
    return this.indexes.addFolder(id, dto.path);
  }

  @Get('indexes/:id')
  @ApiOperation({ summary: 'Show one index' })
  @ApiOkResponse({ type: IndexResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  show(@Param() { id }: IdParams): Promise<IndexResponse> {
    return this.indexes.show(id);
  }

  @Patch('indexes/:id')
  @ApiOperation({ summary: 'Switch auto sync (every KBQA_SYNC_INTERVAL) on or off' })
  @ApiOkResponse({ type: IndexResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  update(@Param() { id }: IdParams, @Body() dto: UpdateIndexDto): Promise<IndexResponse> {
    return this.indexes.setAutoSync(id, dto.auto_sync);
  }

  @Post('indexes/:id/sync')
  @ApiOperation({ summary: 'Sync an index now; only what changed is fetched, chunked and embedded' })
  @ApiOkResponse({ type: SyncStartedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async sync(@Param() { id }: IdParams): Promise<SyncStartedResponse> {
    return { index_id: id, task_id: await this.indexes.resync(id) };
  }

  @Delete('indexes/:id')
  @ApiOperation({ summary: 'Delete an index with every page it brought in' })
  @ApiOkResponse({ type: IndexDeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  @ApiBadRequestResponse({ type: ErrorResponse, description: 'one of its tasks is pending or running' })
  delete(@Param() { id }: IdParams): Promise<IndexDeletedResponse> {
    return this.indexes.delete(id);
  }
}

import { Delete, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { DeletedResponse, ListSourcesQuery, SourceListResponse } from './sources.dto';
import { AdminSourcesService } from './sources.service';

/** A project's sources (pages, files, videos, raw documents, taught pairs): search, delete one. */
@AdminController('sources')
export class AdminSourcesController {
  constructor(private readonly sources: AdminSourcesService) {}

  @Get('projects/:id/sources')
  @ApiOperation({ summary: "List a project's sources, filtered by index and by part of the source string" })
  @ApiOkResponse({ type: SourceListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  list(@Param() { id }: IdParams, @Query() query: ListSourcesQuery): Promise<SourceListResponse> {
    return this.sources.list(id, query);
  }

  @Delete('sources/:id')
  @ApiOperation({ summary: 'Delete a source with its documents, passages and vectors' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  delete(@Param() { id }: IdParams): Promise<DeletedResponse> {
    return this.sources.delete(id);
  }
}

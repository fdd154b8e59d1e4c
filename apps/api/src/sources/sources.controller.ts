import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import { SqliteChunkIndex } from '@kbqa/store-sqlite';
import { Auth } from '../common/auth';
import type { AuthenticatedKey } from '../projects/projects.service';
import {
  DeleteSourceDto,
  type DeleteSourceResponse,
  GetSourcesDto,
  mapSource,
  type SourceResponse,
} from './sources.dto';

@Controller(['v1', 'v0'])
export class SourcesController {
  constructor(private readonly index: SqliteChunkIndex) {}

  @Post('getSources')
  @HttpCode(200)
  getSources(@Auth() auth: AuthenticatedKey, @Body() _dto: GetSourcesDto): SourceResponse[] {
    return this.index.listSources(auth.projectId).map(mapSource);
  }

  /** SPEC.md's three rules: delete_all keeps taught sources; a named source; neither is an error. */
  @Post('deleteSource')
  @HttpCode(200)
  deleteSource(@Auth() auth: AuthenticatedKey, @Body() dto: DeleteSourceDto): DeleteSourceResponse {
    if (dto.delete_all === true) {
      return { message: 'Source(s) deleted', deleted: this.index.deleteAllSources(auth.projectId) };
    }
    if (dto.source === undefined || dto.source === '') {
      throw new KbqaError('BAD_REQUEST', 'source is required unless delete_all is true');
    }
    // Deleting a source that is already gone succeeds with a count of 0 (idempotent retries).
    return { message: 'Source(s) deleted', deleted: this.index.deleteSource(auth.projectId, dto.source) };
  }
}

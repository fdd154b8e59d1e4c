import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { type ChunkStore, KbqaError } from '@kbqa/core';
import { CHUNK_STORE } from '../database/database.module';
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
  constructor(@Inject(CHUNK_STORE) private readonly store: ChunkStore) {}

  @Post('getSources')
  @HttpCode(200)
  async getSources(@Auth() auth: AuthenticatedKey, @Body() _dto: GetSourcesDto): Promise<SourceResponse[]> {
    return (await this.store.listSources(auth.projectId)).map(mapSource);
  }

  /** SPEC.md's three rules: delete_all keeps taught sources; a named source; neither is an error. */
  @Post('deleteSource')
  @HttpCode(200)
  async deleteSource(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: DeleteSourceDto,
  ): Promise<DeleteSourceResponse> {
    if (dto.delete_all === true) {
      return { message: 'Source(s) deleted', deleted: await this.store.deleteAllSources(auth.projectId) };
    }
    if (dto.source === undefined || dto.source === '') {
      throw new KbqaError('BAD_REQUEST', 'source is required unless delete_all is true');
    }
    // Deleting a source that is already gone succeeds with a count of 0 (idempotent retries).
    return {
      message: 'Source(s) deleted',
      deleted: await this.store.deleteSource(auth.projectId, dto.source),
    };
  }
}

import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { Auth, KeyAccess, OptionalAuth } from '../common/auth';
import { RateLimit } from '../common/rate-limit';
import type { AuthenticatedKey } from '../projects/projects.service';
import {
  IngestDataDto,
  IngestDocumentsDto,
  IngestFilesDto,
  IngestionStatusDto,
  type IngestionStatusResponse,
  type TaskIdResponse,
} from './ingestion.dto';
import { IngestionService } from './ingestion.service';
import { requestUploads } from './uploads';

@Controller(['v1', 'v0'])
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  @Post('ingestDocuments')
  @HttpCode(200)
  @RateLimit('ingest')
  async ingestDocuments(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: IngestDocumentsDto,
  ): Promise<TaskIdResponse> {
    return { task_id: await this.ingestion.ingestDocuments(auth.projectId, dto.documents) };
  }

  @Post('ingestData')
  @HttpCode(200)
  @RateLimit('ingest')
  async ingestData(@Auth() auth: AuthenticatedKey, @Body() dto: IngestDataDto): Promise<TaskIdResponse> {
    return { task_id: await this.ingestion.ingestData(auth.projectId, dto) };
  }

  /** Multipart: `api_key`, one or more `files`, optional `metadata` (read by the upload hook, uploads.ts). */
  @Post('ingestFiles')
  @HttpCode(200)
  @RateLimit('ingest')
  async ingestFiles(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: IngestFilesDto,
    @Req() req: unknown,
  ): Promise<TaskIdResponse> {
    return { task_id: await this.ingestion.ingestFiles(auth.projectId, requestUploads(req), dto.metadata) };
  }

  @Post('ingestionStatus')
  @HttpCode(200)
  @KeyAccess('optional')
  status(
    @OptionalAuth() auth: AuthenticatedKey | undefined,
    @Body() dto: IngestionStatusDto,
  ): Promise<IngestionStatusResponse> {
    return this.ingestion.status(Number(dto.task_id), auth?.projectId);
  }
}

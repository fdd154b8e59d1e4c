import { Body, HttpCode, Logger, Param, Post, Put, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { replyToChat } from '../chat/chat-reply';
import { ChatDto } from '../chat/chat.dto';
import { ChatService } from '../chat/chat.service';
import { ConversationsService } from '../conversations/conversations.service';
import { IngestDataDto, IngestFilesDto } from '../ingestion/ingestion.dto';
import { requestUploads } from '../ingestion/uploads';
import { IngestionService } from '../ingestion/ingestion.service';
import { ProjectsService } from '../projects/projects.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import {
  AdminChatDoc,
  AdminIngestDataDoc,
  ConversationIdResponseDoc,
  MessageParams,
  RateDto,
  TaskIdResponseDoc,
} from './playground.dto';

/**
 * What the dashboard does on a project's behalf without holding one of its keys: start an
 * ingestion, ask a question (the playground) and rate an answer. Each goes through the same
 * service as its public counterpart (ingestData, serviceChat, rateMessage).
 */
@AdminController('playground')
export class AdminPlaygroundController {
  private readonly logger = new Logger('Playground');

  constructor(
    private readonly projects: ProjectsService,
    private readonly ingestion: IngestionService,
    private readonly chat: ChatService,
    private readonly conversations: ConversationsService,
  ) {}

  @Post('projects/:id/ingest')
  @ApiOperation({
    summary: "Start an ingestion of the project, as ingestData does (re-syncs the URL's index)",
  })
  @ApiBody({ type: AdminIngestDataDoc })
  @ApiCreatedResponse({ type: TaskIdResponseDoc })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async ingest(@Param() { id }: IdParams, @Body() dto: IngestDataDto): Promise<{ task_id: number }> {
    await this.projects.getProject(id);
    return { task_id: await this.ingestion.ingestData(id, dto) };
  }

  @Post('projects/:id/files')
  @ApiOperation({
    summary:
      'Upload files (multipart `files`, optional `metadata` JSON) into the project, as ingestFiles does',
  })
  @ApiCreatedResponse({ type: TaskIdResponseDoc })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async files(
    @Param() { id }: IdParams,
    @Body() dto: IngestFilesDto,
    @Req() req: unknown,
  ): Promise<{ task_id: number }> {
    await this.projects.getProject(id);
    return { task_id: await this.ingestion.ingestFiles(id, requestUploads(req), dto.metadata) };
  }

  @Post('projects/:id/conversations')
  @ApiOperation({ summary: 'Start a conversation of the project, as newConversation does' })
  @ApiCreatedResponse({ type: ConversationIdResponseDoc })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async newConversation(@Param() { id }: IdParams): Promise<{ conversation_id: number }> {
    await this.projects.getProject(id);
    return { conversation_id: await this.conversations.create(id, 'server', 'dashboard playground') };
  }

  @Post('projects/:id/chat')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Ask the project a question, as serviceChat answers it (Server-Sent Events unless shouldStream is false)',
  })
  @ApiBody({ type: AdminChatDoc })
  @ApiProduces('text/event-stream', 'application/json')
  @ApiOkResponse({ description: 'the answer, streamed as serviceChat streams it' })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async ask(@Param() { id }: IdParams, @Body() dto: ChatDto, @Res() reply: FastifyReply): Promise<void> {
    await this.projects.getProject(id);
    await replyToChat(this.chat, id, 'server', dto, reply, this.logger, { titles: true });
  }

  @Put('projects/:id/messages/:message_id/rating')
  @ApiOperation({ summary: 'Rate an answer of the project, as rateMessage does' })
  @ApiOkResponse({ description: 'the rating is stored' })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async rate(@Param() params: MessageParams, @Body() dto: RateDto): Promise<{ rating_value: number }> {
    await this.projects.getProject(params.id);
    await this.conversations.rate(params.id, params.message_id, dto.rating_value, 'server');
    return { rating_value: dto.rating_value };
  }
}

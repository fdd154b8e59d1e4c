import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { ConversationListResponse, ConversationResponse, ListConversationsQuery } from './analytics.dto';
import { AnalyticsService } from './analytics.service';

/** Conversations with their messages, sources and ratings. */
@AdminController('conversations')
export class AdminConversationsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('projects/:id/conversations')
  @ApiOperation({ summary: "List a project's conversations, newest first, by day and by rating" })
  @ApiOkResponse({ type: ConversationListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  list(@Param() { id }: IdParams, @Query() query: ListConversationsQuery): Promise<ConversationListResponse> {
    return this.analytics.conversations(id, query);
  }

  @Get('conversations/:id')
  @ApiOperation({ summary: 'Show a conversation with its messages, their sources and ratings' })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  show(@Param() { id }: IdParams): Promise<ConversationResponse> {
    return this.analytics.conversation(id);
  }
}

import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import { Auth, KeyAccess } from '../common/auth';
import { RateLimit } from '../common/rate-limit';
import { parseLooseId } from '../common/validators';
import type { AuthenticatedKey } from '../projects/projects.service';
import {
  ConversationRefDto,
  type ExportedMessageResponse,
  GetMessagesDataDto,
  mapMessage,
  type MessageResponse,
  NewConversationDto,
  RateMessageDto,
} from './conversations.dto';
import { ConversationsService } from './conversations.service';

@Controller(['v1', 'v0'])
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Post('newConversation')
  @HttpCode(200)
  @RateLimit('chat')
  @KeyAccess('any')
  async newConversation(
    @Auth() auth: AuthenticatedKey,
    @Body() _dto: NewConversationDto,
  ): Promise<{ conversation_id: number }> {
    return { conversation_id: await this.conversations.create(auth.projectId, auth.kind) };
  }

  @Post('endConversation')
  @HttpCode(200)
  @RateLimit('chat')
  @KeyAccess('any')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  async endConversation(@Auth() auth: AuthenticatedKey, @Body() dto: ConversationRefDto): Promise<string> {
    await this.conversations.end(auth.projectId, parseLooseId(dto.conversation_id)!, auth.kind);
    return 'Conversation has ended.';
  }

  @Post('messages/byConversationId')
  @HttpCode(200)
  async byConversationId(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: ConversationRefDto,
  ): Promise<MessageResponse[]> {
    const messages = await this.conversations.messagesOf(auth.projectId, parseLooseId(dto.conversation_id)!);
    return messages.map(mapMessage);
  }

  @Post('rateMessage')
  @HttpCode(200)
  @RateLimit('chat')
  @KeyAccess('any')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  async rateMessage(@Auth() auth: AuthenticatedKey, @Body() dto: RateMessageDto): Promise<string> {
    await this.conversations.rate(auth.projectId, parseLooseId(dto.message_id)!, dto.rating_value, auth.kind);
    return 'Message rating updated';
  }

  @Post('getMessagesData')
  @HttpCode(200)
  getMessagesData(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: GetMessagesDataDto,
  ): Promise<ExportedMessageResponse[]> {
    return this.conversations.export(auth.projectId, {
      rating: dto.rating_value,
      startDate: dto.start_date,
      endDate: dto.end_date,
    });
  }
}

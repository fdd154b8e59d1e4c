import { Body, Controller, HttpCode, Logger, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, KeyAccess } from '../common/auth';
import { ForegroundGate } from '../common/foreground';
import { RateLimit } from '../common/rate-limit';
import type { AuthenticatedKey } from '../projects/projects.service';
import { replyToChat } from './chat-reply';
import { ChatDto } from './chat.dto';
import { ChatService } from './chat.service';

@Controller(['v1', 'v0'])
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(
    private readonly chat: ChatService,
    private readonly foreground: ForegroundGate,
  ) {}

  /** serviceChat, and mendableChat for clients of the hosted service. */
  @Post(['serviceChat', 'mendableChat'])
  @HttpCode(200)
  @RateLimit('chat')
  @KeyAccess('any')
  async serviceChat(
    @Auth() auth: AuthenticatedKey,
    @Body() dto: ChatDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Ingestion in this process steps aside until the answer is out (ForegroundGate).
    const leave = this.foreground.enter();
    try {
      await replyToChat(this.chat, auth.projectId, auth.kind, dto, reply, this.logger);
    } finally {
      leave();
    }
  }
}

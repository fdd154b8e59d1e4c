import { Body, Controller, HttpCode, Logger, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, KeyAccess } from '../common/auth';
import { RateLimit } from '../common/rate-limit';
import type { AuthenticatedKey } from '../projects/projects.service';
import { ChatDto, type ChatResponse, mapChatSource } from './chat.dto';
import { ChatService } from './chat.service';
import { streamChatTurn } from './chat.stream';

@Controller(['v1', 'v0'])
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(private readonly chat: ChatService) {}

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
    const res = reply.raw;
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const turn = await this.chat.start(auth.projectId, dto, controller.signal);
    let text = '';

    if (dto.shouldStream === false) {
      try {
        for await (const piece of turn.pieces) text += piece;
      } catch (e) {
        await this.chat.finish(turn, text, false);
        throw e;
      }
      const messageId = await this.chat.finish(turn, text, true);
      const body: ChatResponse = {
        answer: { text },
        message_id: messageId,
        sources: turn.sources.map(mapChatSource),
        tools_used: [],
      };
      await reply.code(200).send(body);
      return;
    }

    // The stream is written to the socket directly; Fastify must not send a reply of its own.
    reply.hijack();
    await streamChatTurn(
      res,
      turn,
      (answer, complete) => this.chat.finish(turn, answer, complete),
      controller.signal,
      this.logger,
    );
  }
}

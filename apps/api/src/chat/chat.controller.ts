import { Body, Controller, HttpCode, Logger, Post, Res } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import { Auth, KeyAccess } from '../common/auth';
import { RateLimit } from '../common/rate-limit';
import type { AuthenticatedKey } from '../projects/projects.service';
import { ChatDto, type ChatResponse, mapChatSource, mapStreamedSource } from './chat.dto';
import { ChatService } from './chat.service';

/** One SSE event: a `data:` line with a JSON object, then a blank line. */
function sse(res: ServerResponse, payload: unknown): void {
  res.write(`data: ${JSON.stringify(payload)}\n\n`);
}

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
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    sse(res, { chunk: '<|source|>', metadata: turn.sources.map(mapStreamedSource) });
    let complete = true;
    try {
      for await (const piece of turn.pieces) {
        if (controller.signal.aborted) break;
        text += piece;
        sse(res, { chunk: piece });
      }
      complete = !controller.signal.aborted;
    } catch (e) {
      complete = false;
      if (!controller.signal.aborted) {
        const error = KbqaError.from(e);
        if (error.code === 'INTERNAL') this.logger.error(error.stack ?? error.message);
        sse(res, { chunk: '<|error|>', metadata: { error: error.message, code: error.code } });
      }
    }
    let messageId: number;
    try {
      messageId = await this.chat.finish(turn, text, complete);
    } catch (e) {
      // The headers are gone: a store failure can only be told as an error event.
      const error = KbqaError.from(e);
      this.logger.error(error.stack ?? error.message);
      if (!controller.signal.aborted) {
        sse(res, { chunk: '<|error|>', metadata: { error: error.message, code: error.code } });
      }
      res.end();
      return;
    }
    if (!controller.signal.aborted) {
      sse(res, { chunk: '<|message_id|>', metadata: messageId });
      res.end();
    }
  }
}

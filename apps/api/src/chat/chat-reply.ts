import type { Logger } from '@nestjs/common';
import type { KeyKind } from '@kbqa/core';
import type { FastifyReply } from 'fastify';
import { type ChatDto, type ChatResponse, mapChatSource } from './chat.dto';
import type { ChatService } from './chat.service';
import { streamChatTurn } from './chat.stream';

/**
 * Answers one chat turn of a project on `reply`: Server-Sent Events, or JSON when
 * `shouldStream` is false. serviceChat and the dashboard's playground both answer through here,
 * so the playground shows exactly what the API answers (`titles` adds the pages' titles to the
 * streamed sources, for the playground to show).
 */
export async function replyToChat(
  chat: ChatService,
  projectId: number,
  keyKind: KeyKind,
  dto: ChatDto,
  reply: FastifyReply,
  logger: Logger,
  options: { titles?: boolean } = {},
): Promise<void> {
  const res = reply.raw;
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const turn = await chat.start(projectId, keyKind, dto, controller.signal);
  let text = '';

  if (dto.shouldStream === false) {
    try {
      for await (const piece of turn.pieces) text += piece;
    } catch (e) {
      await chat.finish(turn, text, false);
      throw e;
    }
    const messageId = await chat.finish(turn, text, true);
    const body: ChatResponse = {
      answer: { text },
      message_id: messageId,
      sources: turn.sources.map(mapChatSource),
      tools_used: turn.toolsUsed,
    };
    await reply.code(200).send(body);
    return;
  }

  // The stream is written to the socket directly; Fastify must not send a reply of its own.
  reply.hijack();
  await streamChatTurn(
    res,
    turn,
    (answer, complete) => chat.finish(turn, answer, complete),
    controller.signal,
    logger,
    options,
  );
}

import type { ServerResponse } from 'node:http';
import type { Logger } from '@nestjs/common';
import { type AnswerToolResult, KbqaError } from '@kbqa/core';
import { mapStreamedSource } from './chat.dto';
import type { ChatTurn } from './chat.service';

/** One SSE event: a `data:` line with a JSON object, then a blank line. */
function sse(res: ServerResponse, payload: unknown): void {
  res.write(`data: ${JSON.stringify(payload)}\n\n`);
}

/**
 * Streams one chat turn as SPEC.md's Server-Sent Events: `<|source|>` first; when the model was
 * offered tools, `<|loading_tools|>` and, per call, `<|tool_called|>` `{name}` and
 * `<|tool_output|>` `{data}` (API-DECISIONS.md); then the answer's pieces, then `<|message_id|>`; an `<|error|>` event instead when the answer or its storage
 * fails after the headers are gone. Nothing more is written once the client has gone
 * (`signal` aborted). `finish` stores the answer and returns its message id; `titles` adds the
 * pages' titles to the sources (the playground).
 */
export async function streamChatTurn(
  res: ServerResponse,
  turn: ChatTurn,
  finish: (text: string, complete: boolean) => Promise<number>,
  signal: AbortSignal,
  logger: Pick<Logger, 'error'>,
  options: { titles?: boolean } = {},
): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  sse(res, {
    chunk: '<|source|>',
    metadata: turn.sources.map((hit) => mapStreamedSource(hit, options.titles)),
  });
  if (turn.toolsOffered) {
    sse(res, { chunk: '<|loading_tools|>', metadata: true });
    turn.onToolEvent = (event) => {
      if (signal.aborted) return;
      if (event.type === 'called') sse(res, { chunk: '<|tool_called|>', metadata: { name: event.name } });
      else sse(res, { chunk: '<|tool_output|>', metadata: { data: toolOutputData(event.result) } });
    };
  }
  let text = '';
  let complete = true;
  try {
    for await (const piece of turn.pieces) {
      if (signal.aborted) break;
      text += piece;
      sse(res, { chunk: piece });
    }
    complete = !signal.aborted;
  } catch (e) {
    complete = false;
    if (!signal.aborted) {
      const error = KbqaError.from(e);
      if (error.code === 'INTERNAL') logger.error(error.stack ?? error.message);
      sse(res, { chunk: '<|error|>', metadata: { error: error.message, code: error.code } });
    }
  }
  let messageId: number;
  try {
    messageId = await finish(text, complete);
  } catch (e) {
    // The headers are gone: a store failure can only be told as an error event.
    const error = KbqaError.from(e);
    logger.error(error.stack ?? error.message);
    if (!signal.aborted)
      sse(res, { chunk: '<|error|>', metadata: { error: error.message, code: error.code } });
    res.end();
    return;
  }
  if (!signal.aborted) {
    sse(res, { chunk: '<|message_id|>', metadata: messageId });
    res.end();
  }
}

/** What a tool gave, as the stream shows it: its output, or the error of a failed call. */
function toolOutputData(result: AnswerToolResult): string {
  if (!result.has_error) return result.output;
  return result.output === ''
    ? (result.error ?? 'the tool failed')
    : `${result.error ?? 'the tool failed'}: ${result.output}`;
}

import { SseParser } from './sse-parser';

/** One event of the serviceChat stream (SPEC.md "Events"). */
export interface ChatEvent {
  chunk: string;
  metadata?: unknown;
}

/** A streamed source as serviceChat sends it in the `<|source|>` event. */
export interface StreamedSource {
  id: string;
  content?: string;
  link?: string;
  title?: string;
}

/**
 * Turns the serviceChat byte stream into chat events as they complete. Pieces of the network
 * stream end anywhere (mid-line, mid-character); the SSE framing is {@link SseParser}'s.
 */
export class ChatStreamParser {
  private readonly sse = new SseParser();

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): ChatEvent[] {
    return this.sse.push(text).flatMap(chatEvent);
  }
}

function chatEvent(data: string): ChatEvent[] {
  try {
    const parsed = JSON.parse(data) as Partial<ChatEvent> | null;
    if (parsed && typeof parsed.chunk === 'string') return [parsed as ChatEvent];
  } catch {
    // Data that is not JSON is not ours to show; the stream goes on.
  }
  return [];
}

/** Control events look like `<|name|>`; every other chunk is a piece of the answer. */
export function controlName(chunk: string): string | undefined {
  const m = /^<\|([a-z_]+)\|>$/.exec(chunk);
  return m ? m[1] : undefined;
}

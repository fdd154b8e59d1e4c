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
 * Splits a Server-Sent Events byte stream into events as they complete. Pieces of the network
 * stream end anywhere (mid-line, mid-character), so the tail is kept until its blank line comes.
 */
export class SseParser {
  private buffer = '';

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): ChatEvent[] {
    this.buffer += text.replace(/\r\n?/g, '\n');
    const events: ChatEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      try {
        const parsed = JSON.parse(data) as Partial<ChatEvent>;
        if (parsed && typeof parsed.chunk === 'string') events.push(parsed as ChatEvent);
      } catch {
        // A line that is not JSON is not ours to show; the stream goes on.
      }
    }
    return events;
  }
}

/** Control events look like `<|name|>`; every other chunk is a piece of the answer. */
export function controlName(chunk: string): string | undefined {
  const m = /^<\|([a-z_]+)\|>$/.exec(chunk);
  return m ? m[1] : undefined;
}

/** Parses an SSE body the way the hosted service's published examples do: `data:` lines of JSON. */
export function parseSse(body: string): Array<{ chunk: string; metadata?: unknown }> {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5).trim()) as { chunk: string; metadata?: unknown });
}

/** The answer text of a parsed stream: every plain chunk, concatenated in order. */
export function answerText(events: Array<{ chunk: string }>): string {
  return events
    .filter((e) => !/^<\|[a-z_]+\|>$/.test(e.chunk))
    .map((e) => e.chunk)
    .join('');
}

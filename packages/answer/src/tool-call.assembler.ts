/** One function call the model asked for, arguments still as the JSON text it wrote. */
export interface AssembledToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Puts a model's tool calls together. Streamed, each call comes in fragments of
 * `delta.tool_calls` keyed by `index`: the id and name usually in the first, the arguments
 * JSON split over the rest. Non-streamed, `message.tool_calls` holds whole calls (their
 * position is their index). Servers that send no id get `call_<index>`, as the tool message
 * must name the call it answers. The `openai` client's ChatCompletionStream assembles calls
 * too, but refuses a fragment without `index` and appends object arguments as text, and
 * compatible servers send both.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<number, PendingCall>();

  /** Adds the `tool_calls` of one stream delta (or of a whole message); other values are ignored. */
  push(toolCalls: unknown): void {
    if (!Array.isArray(toolCalls)) return;
    toolCalls.forEach((raw: unknown, position) => {
      if (!isRecord(raw)) return;
      const index = typeof raw.index === 'number' && Number.isInteger(raw.index) ? raw.index : position;
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (typeof raw.id === 'string' && raw.id !== '') call.id = raw.id;
      const fn = isRecord(raw.function) ? raw.function : {};
      // Most servers send the name whole, once; some split it like the arguments.
      if (typeof fn.name === 'string') call.name = call.name === fn.name ? call.name : call.name + fn.name;
      if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
      else if (isRecord(fn.arguments)) call.arguments += JSON.stringify(fn.arguments);
      this.calls.set(index, call);
    });
  }

  get size(): number {
    return this.calls.size;
  }

  /** The calls in index order. */
  result(): AssembledToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: c.arguments }));
  }
}

/** The arguments of a call as a value: `{}` when empty, undefined when not JSON. */
export function parseToolArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import type { AnswerTool } from '@kbqa/core';

/**
 * Tool calls of a local model: the model answers one JSON object, held to a JSON-schema grammar
 * so that it can only name an offered tool with arguments of that tool's schema, or no tool.
 * Small instruct models do not reliably follow a chat template's tool-call format; a grammar
 * makes a malformed call impossible rather than merely unlikely.
 */

/** JSON-schema keywords the grammar builder (node-llama-cpp's GBNF JSON schema) understands. */
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

/**
 * A tool's parameter schema cut down to what a grammar can hold: types, properties, items, enum,
 * const and oneOf/anyOf, with descriptions. Keywords it cannot enforce (formats, patterns, ranges)
 * are dropped, so the grammar admits a little more than the schema; the tool's server still
 * validates what it gets. An unusable schema becomes "any object".
 */
export function grammarSafeSchema(schema: unknown, depth = 0): Record<string, unknown> {
  if (depth > 8 || typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { type: 'object', additionalProperties: true };
  }
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof s.description === 'string') out.description = s.description.slice(0, 200);
  if (s.const !== undefined) return { ...out, const: s.const };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { ...out, enum: s.enum };
  const alternatives: unknown[] | undefined = Array.isArray(s.oneOf)
    ? (s.oneOf as unknown[])
    : Array.isArray(s.anyOf)
      ? (s.anyOf as unknown[])
      : undefined;
  if (alternatives && alternatives.length > 0) {
    return { ...out, oneOf: alternatives.map((a) => grammarSafeSchema(a, depth + 1)) };
  }
  const type: unknown = Array.isArray(s.type) ? (s.type as unknown[]).find((t) => t !== 'null') : s.type;
  if (typeof type !== 'string' || !TYPES.has(type)) return { type: 'object', additionalProperties: true };
  out.type = type;
  if (type === 'object') {
    const properties = s.properties;
    const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]) : []);
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      // The grammar writes every property it lists: only the required ones are listed, the
      // rest left to additionalProperties so that the model need not invent optional values.
      const listed = Object.entries(properties).filter(([name]) => required.has(name));
      out.properties = Object.fromEntries(listed.map(([name, p]) => [name, grammarSafeSchema(p, depth + 1)]));
      out.additionalProperties = listed.length < Object.keys(properties).length;
    } else {
      out.additionalProperties = true;
    }
  }
  if (type === 'array') out.items = grammarSafeSchema(s.items ?? { type: 'string' }, depth + 1);
  return out;
}

/** The schema of the one reply: `{"tool": <name>, "arguments": {…}}` for an offered tool, or `{"tool": null}`. */
export function toolChoiceSchema(tools: AnswerTool[]): Record<string, unknown> {
  return {
    oneOf: [
      ...tools.map((t) => ({
        type: 'object',
        properties: { tool: { const: t.name }, arguments: grammarSafeSchema(t.parameters) },
      })),
      { type: 'object', properties: { tool: { type: 'null' } } },
    ],
  };
}

/** Added to the system prompt of the tool-choice step. */
export function toolChoicePrompt(tools: AnswerTool[]): string {
  const list = tools
    .map((t) => `- ${t.name}: ${t.description.slice(0, 300)} Arguments: ${JSON.stringify(t.parameters)}`)
    .join('\n');
  return [
    'Before answering, decide whether one of these tools is needed to look up live data the documentation does not hold:',
    list,
    'Reply with one JSON object only: {"tool": "<name>", "arguments": {...}} to call a tool, or {"tool": null} to answer from the sources.',
  ].join('\n');
}

/** The call a reply asks for; undefined for `{"tool": null}` or anything unusable. */
export function parseToolChoice(reply: string): { name: string; arguments: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(reply);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { tool, arguments: args } = value as { tool?: unknown; arguments?: unknown };
  if (typeof tool !== 'string' || tool === '') return undefined;
  return { name: tool, arguments: JSON.stringify(args ?? {}) };
}

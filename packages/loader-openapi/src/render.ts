/**
 * Renders the parts of an OpenAPI 3.x or Swagger 2.0 document as markdown a reader (and the
 * retriever) can follow: parameters as a list, schemas as nested lists, examples as code blocks.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface RenderLimits {
  /** Schema nesting rendered before it is cut with a note. */
  maxDepth: number;
  /** Characters of one example kept. */
  maxExampleChars: number;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: Json | undefined): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Resolves local `$ref`s (`#/components/schemas/Pet`) against the whole document. */
export class RefResolver {
  constructor(private readonly root: JsonObject) {}

  /** The object a local ref points to, or undefined when it is external or dangling. */
  lookup(ref: string): JsonObject | undefined {
    if (!ref.startsWith('#/')) return undefined;
    let node: Json | undefined = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(node)) return undefined;
      node = node[key];
    }
    return isObject(node) ? node : undefined;
  }

  /** Follows a chain of refs on a parameter, response or body (not a schema: no cycle note needed). */
  deref(value: Json | undefined): JsonObject | undefined {
    let node = value;
    for (let hops = 0; hops < 20 && isObject(node) && typeof node.$ref === 'string'; hops++) {
      node = this.lookup(node.$ref);
    }
    return isObject(node) && typeof node.$ref !== 'string' ? node : undefined;
  }
}

/** The short name of a ref: the last segment of its pointer (`Pet` of `#/components/schemas/Pet`). */
export function refName(ref: string): string {
  const last = ref.split('/').pop() ?? ref;
  return decodeURIComponent(last).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** One schema as a nested markdown list, refs resolved, cycles cut with "(circular: Name)". */
export class SchemaRenderer {
  constructor(
    private readonly refs: RefResolver,
    private readonly limits: RenderLimits,
  ) {}

  /** Lines of a schema's properties (or of the schema itself when it is not an object). */
  render(schema: Json | undefined, indent = 0): string[] {
    return this.body(schema, indent, [], 0);
  }

  /** A one-line type summary of a schema (`array of Pet`, `string (uuid)`). */
  typeOf(schema: Json | undefined, stack: string[] = []): string {
    if (!isObject(schema)) return 'any';
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      if (stack.includes(schema.$ref)) return `${name} (circular: ${name})`;
      return this.refs.lookup(schema.$ref) ? name : `${name} (external reference, not followed)`;
    }
    const type = schema.type;
    const types = Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
    if (type === 'array' || types.includes('array')) return `array of ${this.typeOf(schema.items, stack)}`;
    const named = typeof type === 'string' ? type : types.length ? types.join(' | ') : undefined;
    const format = str(schema.format);
    if (named) return format ? `${named} (${format})` : named;
    if (Array.isArray(schema.oneOf)) return 'one of';
    if (Array.isArray(schema.anyOf)) return 'any of';
    if (Array.isArray(schema.allOf) || isObject(schema.properties)) return 'object';
    return 'any';
  }

  private body(schema: Json | undefined, indent: number, stack: string[], depth: number): string[] {
    if (!isObject(schema)) return [];
    const pad = '  '.repeat(indent);
    if (typeof schema.$ref === 'string') {
      const ref = schema.$ref;
      if (stack.includes(ref)) return [];
      const target = this.refs.lookup(ref);
      if (!target) return [];
      return this.body(target, indent, [...stack, ref], depth);
    }
    if (depth >= this.limits.maxDepth)
      return [`${pad}- (nested deeper than ${this.limits.maxDepth} levels; cut)`];
    const lines: string[] = [];
    const merged = this.mergeAllOf(schema, stack);
    const required = new Set(
      Array.isArray(merged.required) ? merged.required.filter((r): r is string => typeof r === 'string') : [],
    );
    if (isObject(merged.properties)) {
      for (const [name, prop] of Object.entries(merged.properties)) {
        lines.push(...this.property(name, prop, required.has(name), indent, stack, depth));
      }
    }
    if (isObject(merged.additionalProperties)) {
      lines.push(
        ...this.property('(any other key)', merged.additionalProperties, false, indent, stack, depth),
      );
    }
    const items = merged.items;
    if (isObject(items)) {
      const nested = this.body(items, indent + 1, stack, depth + 1);
      if (nested.length > 0) lines.push(`${pad}- items (${this.typeOf(items, stack)}):`, ...nested);
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const options = merged[key];
      if (!Array.isArray(options)) continue;
      lines.push(`${pad}- ${key === 'oneOf' ? 'one of' : 'any of'}:`);
      for (const option of options) {
        lines.push(`${pad}  - ${this.typeOf(option, stack)}`);
        lines.push(...this.body(option, indent + 2, stack, depth + 1));
      }
    }
    return lines;
  }

  private property(
    name: string,
    prop: Json,
    required: boolean,
    indent: number,
    stack: string[],
    depth: number,
  ): string[] {
    const pad = '  '.repeat(indent);
    const resolved = this.resolveForFacts(prop);
    const facts = [this.typeOf(prop, stack)];
    if (required) facts.push('required');
    if (resolved && resolved.readOnly === true) facts.push('read-only');
    if (resolved && resolved.deprecated === true) facts.push('deprecated');
    let line = `${pad}- \`${name}\` (${facts.join(', ')})`;
    const details = resolved ? describeSchema(resolved) : '';
    if (details) line += `: ${details}`;
    const lines = [line];
    if (isObject(prop) && !(typeof prop.$ref === 'string' && stack.includes(prop.$ref))) {
      lines.push(...this.body(prop, indent + 1, stack, depth + 1));
    }
    return lines;
  }

  /** The schema whose description and enum describe a property (through one ref, not a cycle). */
  private resolveForFacts(prop: Json): JsonObject | undefined {
    if (!isObject(prop)) return undefined;
    if (typeof prop.$ref === 'string') {
      const target = this.refs.lookup(prop.$ref);
      // A property's own description wins over its type's (OpenAPI 3.1 allows siblings of $ref).
      return target
        ? { ...target, ...(str(prop.description) ? { description: prop.description } : {}) }
        : prop;
    }
    return prop;
  }

  /** `allOf` parts folded into one object schema (their properties and required lists joined). */
  private mergeAllOf(schema: JsonObject, stack: string[]): JsonObject {
    if (!Array.isArray(schema.allOf)) return schema;
    const properties: JsonObject = isObject(schema.properties) ? { ...schema.properties } : {};
    const required: Json[] = Array.isArray(schema.required) ? [...schema.required] : [];
    for (const part of schema.allOf) {
      let resolved: JsonObject | undefined = isObject(part) ? part : undefined;
      if (resolved && typeof resolved.$ref === 'string') {
        resolved = stack.includes(resolved.$ref) ? undefined : this.refs.lookup(resolved.$ref);
      }
      if (!resolved) continue;
      const inner = this.mergeAllOf(resolved, stack);
      if (isObject(inner.properties)) Object.assign(properties, inner.properties);
      if (Array.isArray(inner.required)) required.push(...inner.required);
    }
    return { ...schema, properties, required };
  }
}

/** Description, enum, default, bounds and example of a schema on one line. */
export function describeSchema(schema: JsonObject): string {
  const parts: string[] = [];
  const description = str(schema.description) ?? str(schema.title);
  if (description) parts.push(oneLine(description));
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    parts.push(`one of ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`);
  }
  if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
  for (const [key, label] of [
    ['minimum', 'minimum'],
    ['maximum', 'maximum'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
  ] as const) {
    const v = schema[key];
    if (typeof v === 'number' || typeof v === 'string') parts.push(`${label} ${String(v)}`);
  }
  if (schema.example !== undefined && !isObject(schema.example) && !Array.isArray(schema.example)) {
    parts.push(`example \`${JSON.stringify(schema.example)}\``);
  }
  return parts.join('; ');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** An example value as a fenced block, cut to `maxChars`. */
export function exampleBlock(value: Json, maxChars: number, label?: string): string[] {
  let text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}\n… (example cut at ${maxChars} characters)`;
  const lang = typeof value === 'string' ? '' : 'json';
  return [...(label ? [`Example ${label}:`, ''] : ['Example:', '']), '```' + lang, text, '```', ''];
}

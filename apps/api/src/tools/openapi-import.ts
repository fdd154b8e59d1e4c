import { KbqaError } from '@kbqa/core';
import { JSON_SCHEMA, load } from 'js-yaml';
import {
  OPENAPI_MAX_SCHEMA_BYTES,
  OPENAPI_MAX_SCHEMA_DEPTH,
  OPENAPI_MAX_SCHEMA_NODES,
  OPENAPI_MAX_TOOL_PARAMETERS_BYTES,
  OPENAPI_MAX_YAML_ALIASES,
} from './openapi-limits';

/** One operation of the document that did not become a tool, and why. */
export interface SkippedOperation {
  /** `operationId`, else `METHOD /path`. */
  operation: string;
  /** The tool name it would have had, when it got that far. */
  name?: string;
  reason: string;
}

/** A tool definition built from one operation, for parseToolDefinition (which still checks it). */
export interface ImportedTool {
  operation: string;
  definition: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    method: string;
    url: string;
    body?: unknown;
  };
}

export interface OpenApiImportOptions {
  /** Where the document was fetched from: relative server URLs are resolved against it. */
  documentUrl?: string;
  /** Only these operationIds; the ones not found are reported as skipped. */
  operations?: readonly string[];
  /** Header names the import sets on every tool, so required header parameters they cover are met. */
  headerNames?: readonly string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const UNSUPPORTED_METHODS = ['head', 'options', 'trace'] as const;
/** The placeholder rule of tool-definition.ts: what a `{param}` name may be. */
const PARAM_NAME = /^[a-zA-Z0-9_-]+$/;
const NAME_MAX = 64;
const DESCRIPTION_MAX = 2000;
/** Keywords of OpenAPI's schema dialect that JSON Schema does not have or that mean nothing to a model. */
const OPENAPI_ONLY = new Set(['nullable', 'example', 'xml', 'externalDocs', 'discriminator', 'deprecated']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An operation cannot become a tool: caught per operation and reported as skipped. */
class Skip extends Error {}

/** A tool name from an operationId under the OpenAI function-name rule; undefined when nothing is left. */
export function toolName(raw: string): string | undefined {
  const name = raw
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, NAME_MAX);
  return name === '' ? undefined : name;
}

/** Follows `#/a/b` inside the document; remote references are refused. */
function lookupRef(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) {
    throw new Skip(`$ref ${ref} points outside the document; only local references (#/…) are supported`);
  }
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) throw new Skip(`$ref ${ref} does not resolve`);
    node = (node as Json)[key];
    if (node === undefined) throw new Skip(`$ref ${ref} does not resolve`);
  }
  return node;
}

/** The node with its own `$ref` followed (a chain of them included). */
function deref(doc: Json, node: unknown, seen: readonly string[] = []): unknown {
  if (isObject(node) && typeof node.$ref === 'string') {
    if (seen.includes(node.$ref)) throw new Skip(`$ref ${node.$ref} refers to itself`);
    if (seen.length >= OPENAPI_MAX_SCHEMA_DEPTH) {
      throw new Skip(
        `$ref ${node.$ref} is the end of a chain of more than ${OPENAPI_MAX_SCHEMA_DEPTH} $refs`,
      );
    }
    return deref(doc, lookupRef(doc, node.$ref), [...seen, node.$ref]);
  }
  return node;
}

/** Sets `key` as an own property even when it is `__proto__`: names from the document are data. */
function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * What one import may still produce once `$ref`s and YAML aliases are inlined, shared by every schema
 * it renders: a shared reference is counted (and copied) each time it is used, so a document whose
 * schemas double at each level stops here instead of filling the heap.
 */
export class SchemaBudget {
  private nodes = 0;
  private bytes = 0;

  constructor(
    private readonly maxNodes = OPENAPI_MAX_SCHEMA_NODES,
    private readonly maxBytes = OPENAPI_MAX_SCHEMA_BYTES,
  ) {}

  spend(bytes: number): void {
    this.nodes += 1;
    this.bytes += bytes;
    if (this.nodes > this.maxNodes) {
      throw new KbqaError(
        'BAD_REQUEST',
        `the OpenAPI document exceeds the schema node limit: its schemas expand to more than ${this.maxNodes} nodes once $refs are inlined; import fewer of its operations (the operations field) or simplify its schemas`,
      );
    }
    if (this.bytes > this.maxBytes) {
      throw new KbqaError(
        'BAD_REQUEST',
        `the OpenAPI document exceeds the schema size limit: its schemas expand to more than ${this.maxBytes} bytes once $refs are inlined; import fewer of its operations (the operations field) or simplify its schemas`,
      );
    }
  }
}

/** Roughly what a leaf costs as JSON. */
function leafBytes(value: unknown): number {
  return typeof value === 'string' ? Buffer.byteLength(value) + 2 : String(value).length;
}

/** Stands where a schema was cut: any value, with the reason for whoever reads the tool. */
function cut(why: string, budget: SchemaBudget): Json {
  const description = `(cut: ${why})`;
  budget.spend(leafBytes(description) + 16);
  return { description };
}

/**
 * A schema with every local `$ref` inlined and OpenAPI's dialect turned into JSON Schema
 * (`nullable` becomes a `null` type). A recursive reference, and anything deeper than
 * OPENAPI_MAX_SCHEMA_DEPTH levels, becomes a `(cut: …)` schema (any value): a model cannot use an
 * infinite schema anyway. Every node produced is charged to `budget`, which throws when it runs out.
 *
 * Not swagger-parser's `dereference`: it expands a schema whose refs double at each level before
 * anything can stop it, fails the whole document on one dangling ref instead of skipping that
 * operation, and refuses 3.x versions it does not list (docs/benchmarks.md, "OpenAPI `$ref`").
 */
export function resolveSchema(
  doc: Json,
  node: unknown,
  budget: SchemaBudget,
  stack: readonly string[] = [],
  depth = 0,
): unknown {
  if (depth > OPENAPI_MAX_SCHEMA_DEPTH) {
    return cut(`nested deeper than ${OPENAPI_MAX_SCHEMA_DEPTH} levels`, budget);
  }
  if (Array.isArray(node)) {
    budget.spend(2);
    return node.map((n) => resolveSchema(doc, n, budget, stack, depth + 1));
  }
  if (!isObject(node)) {
    budget.spend(leafBytes(node));
    return node;
  }
  if (typeof node.$ref === 'string') {
    if (stack.includes(node.$ref)) return cut(`recursive reference to ${node.$ref}`, budget);
    return resolveSchema(doc, lookupRef(doc, node.$ref), budget, [...stack, node.$ref], depth + 1);
  }
  budget.spend(2);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (OPENAPI_ONLY.has(key)) continue;
    budget.spend(Buffer.byteLength(key) + 3);
    if (key === 'properties' && isObject(value)) {
      // Property maps are keyed by names, not keywords: recurse into their values only.
      const properties: Json = {};
      for (const [name, schema] of Object.entries(value)) {
        budget.spend(Buffer.byteLength(name) + 3);
        setOwn(properties, name, resolveSchema(doc, schema, budget, stack, depth + 2));
      }
      setOwn(out, key, properties);
    } else {
      setOwn(out, key, resolveSchema(doc, value, budget, stack, depth + 1));
    }
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** The base URL of an operation: its own `servers`, its path's, else the document's; variables at their defaults. */
function serverUrl(doc: Json, pathItem: Json, operation: Json, documentUrl: string | undefined): string {
  const pick = (servers: unknown): Json | undefined =>
    Array.isArray(servers) && isObject(servers[0]) ? servers[0] : undefined;
  const server = pick(operation.servers) ?? pick(pathItem.servers) ?? pick(doc.servers);
  let url = typeof server?.url === 'string' ? server.url : '/';
  const variables = isObject(server?.variables) ? server.variables : {};
  url = url.replace(/\{([^}]+)\}/g, (m, name: string) => {
    const v = variables[name];
    return isObject(v) && typeof v.default === 'string' ? v.default : m;
  });
  if (/\{[^}]*\}/.test(url)) throw new Skip(`server URL ${url} has a variable without a default`);
  if (/^https?:\/\//i.test(url)) return url.replace(/\/+$/, '');
  if (documentUrl === undefined) {
    throw new Skip(
      `server URL "${url}" is relative; import the document by url, or give servers[0].url as an absolute URL`,
    );
  }
  return new URL(url, documentUrl).href.replace(/\/+$/, '');
}

/** The request body's JSON schema; undefined when there is none. Skips a required body that is not JSON. */
function jsonBodySchema(
  doc: Json,
  operation: Json,
  budget: SchemaBudget,
): { schema: unknown; required: boolean } | undefined {
  const body = deref(doc, operation.requestBody);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const required = body.required === true;
  const types = Object.keys(body.content);
  const json = types.find((t) => /^application\/(.+\+)?json\b/i.test(t) || t === '*/*');
  if (json === undefined) {
    if (required) throw new Skip(`request body is ${types.join(', ')}; only JSON bodies are supported`);
    return undefined;
  }
  const media = body.content[json];
  const schema = isObject(media) ? media.schema : undefined;
  return { schema: resolveSchema(doc, schema ?? {}, budget), required };
}

function convertOperation(
  doc: Json,
  path: string,
  method: (typeof METHODS)[number],
  pathItem: Json,
  operation: Json,
  options: OpenApiImportOptions,
  budget: SchemaBudget,
): ImportedTool['definition'] {
  // Names come from the document: `__proto__` or `constructor` must be plain keys, not inherited ones.
  const properties: Json = {};
  const required: string[] = [];
  const origin = new Map<string, string>();
  const declare = (name: string, schema: unknown, where: string, isRequired: boolean): void => {
    const before = origin.get(name);
    if (before !== undefined) {
      throw new Skip(`argument ${name} is both a ${before} and a ${where}; rename one of them`);
    }
    origin.set(name, where);
    setOwn(properties, name, schema);
    if (isRequired) required.push(name);
  };

  // Operation-level parameters override path-level ones of the same name and location.
  const params = new Map<string, Json>();
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  for (const raw of [...list(pathItem.parameters), ...list(operation.parameters)]) {
    const p = deref(doc, raw);
    if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
    params.set(`${p.in}:${p.name}`, p);
  }

  const query: string[] = [];
  const headerNames = new Set((options.headerNames ?? []).map((h) => h.toLowerCase()));
  for (const p of params.values()) {
    const name = p.name as string;
    const where = p.in as string;
    const isRequired = where === 'path' || p.required === true;
    if (where === 'header' || where === 'cookie') {
      if (isRequired && !(where === 'header' && headerNames.has(name.toLowerCase()))) {
        throw new Skip(`required ${where} parameter ${name} is not supported (give it as an import header)`);
      }
      continue;
    }
    if (where !== 'path' && where !== 'query') continue;
    if (!PARAM_NAME.test(name)) {
      if (isRequired) throw new Skip(`${where} parameter "${name}" cannot be a placeholder name`);
      continue;
    }
    const schema = isObject(p.schema) ? (resolveSchema(doc, p.schema, budget) as Json) : { type: 'string' };
    if (typeof p.description === 'string' && schema.description === undefined) {
      schema.description = p.description;
    }
    declare(name, schema, `${where} parameter`, isRequired);
    if (where === 'query') query.push(name);
  }

  let bodyTemplate: unknown;
  const body = jsonBodySchema(doc, operation, budget);
  if (body !== undefined) {
    const schema = body.schema;
    if (isObject(schema) && isObject(schema.properties) && schema.type !== 'array') {
      const needed = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const template: Json = {};
      for (const [prop, propSchema] of Object.entries(schema.properties)) {
        // The server sets these (ids, timestamps); a model should not be asked for them.
        if (isObject(propSchema) && propSchema.readOnly === true) continue;
        if (!PARAM_NAME.test(prop)) {
          if (needed.has(prop)) throw new Skip(`body property "${prop}" cannot be a placeholder name`);
          continue;
        }
        declare(prop, propSchema, 'body property', body.required && needed.has(prop));
        setOwn(template, prop, `{${prop}}`);
      }
      bodyTemplate = template;
    } else {
      declare('body', schema, 'request body', body.required);
      bodyTemplate = '{body}';
    }
  }

  for (const name of path.match(/\{([^}]+)\}/g) ?? []) {
    const bare = name.slice(1, -1);
    if (origin.get(bare) !== 'path parameter')
      throw new Skip(`path placeholder ${name} has no path parameter`);
  }
  let url = serverUrl(doc, pathItem, operation, options.documentUrl) + path;
  if (query.length > 0) {
    url += (url.includes('?') ? '&' : '?') + query.map((q) => `${q}={${q}}`).join('&');
  }

  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const long = typeof operation.description === 'string' ? operation.description.trim() : '';
  let description = [summary, long].filter((s) => s !== '').join('\n\n') || `${method.toUpperCase()} ${path}`;
  if (description.length > DESCRIPTION_MAX) description = `${description.slice(0, DESCRIPTION_MAX - 1)}…`;

  const id = typeof operation.operationId === 'string' ? operation.operationId : '';
  const name = toolName(id) ?? toolName(`${method}_${path}`);
  if (name === undefined) throw new Skip('no usable name');

  const parameters: Json = { type: 'object', properties };
  if (required.length > 0) parameters.required = required;
  const size = Buffer.byteLength(JSON.stringify(parameters));
  if (size > OPENAPI_MAX_TOOL_PARAMETERS_BYTES) {
    throw new Skip(
      `its parameters are ${size} bytes as JSON, over the limit of ${OPENAPI_MAX_TOOL_PARAMETERS_BYTES} bytes per tool`,
    );
  }
  return {
    name,
    description,
    parameters,
    method: method.toUpperCase(),
    url,
    ...(bodyTemplate !== undefined ? { body: bodyTemplate } : {}),
  };
}

/** An OpenAPI document from its text, JSON or YAML; BAD_REQUEST when it is neither. */
export function parseOpenApiText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // YAML is a superset of JSON: a document that is not JSON gets its second chance here.
  }
  try {
    // JSON_SCHEMA: no YAML-only types (dates, binary), so the result is what the JSON would be.
    return load(text, { schema: JSON_SCHEMA, maxAliases: OPENAPI_MAX_YAML_ALIASES });
  } catch (e) {
    if (e instanceof Error && e.message.includes('exceeded maxAliases')) {
      throw new KbqaError(
        'BAD_REQUEST',
        `the OpenAPI document exceeds the YAML alias limit: more than ${OPENAPI_MAX_YAML_ALIASES} aliases`,
      );
    }
    // Not the parser's message: it quotes the text.
    throw new KbqaError('BAD_REQUEST', 'the OpenAPI document is neither valid JSON nor valid YAML');
  }
}

/**
 * Turns each operation of an OpenAPI 3 document into an HTTP tool definition (docs/api.md, "Tools",
 * "Import from OpenAPI"). Pure: no I/O. Throws BAD_REQUEST when the input is not an OpenAPI 3
 * document or its schemas expand past a whole-import limit (openapi-limits.ts); an operation that
 * cannot become a tool is returned in `skipped` with the reason.
 */
export function toolsFromOpenApi(
  input: unknown,
  options: OpenApiImportOptions = {},
): { tools: ImportedTool[]; skipped: SkippedOperation[] } {
  if (!isObject(input))
    throw new KbqaError('BAD_REQUEST', 'the OpenAPI document must be an object (JSON or YAML)');
  if (typeof input.openapi !== 'string' || !input.openapi.startsWith('3.')) {
    throw new KbqaError(
      'BAD_REQUEST',
      typeof input.swagger === 'string'
        ? 'Swagger 2 documents are not supported; convert to OpenAPI 3 first'
        : 'not an OpenAPI 3 document (no "openapi": "3.x" field)',
    );
  }
  if (!isObject(input.paths)) throw new KbqaError('BAD_REQUEST', 'the OpenAPI document has no paths');

  const wanted = options.operations === undefined ? undefined : new Set(options.operations);
  const found = new Set<string>();
  const tools: ImportedTool[] = [];
  const skipped: SkippedOperation[] = [];
  const names = new Set<string>();
  const budget = new SchemaBudget();
  for (const [path, rawItem] of Object.entries(input.paths)) {
    let pathItem: unknown;
    try {
      pathItem = deref(input, rawItem);
    } catch (e) {
      skipped.push({ operation: path, reason: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (!isObject(pathItem)) continue;
    for (const method of [...METHODS, ...UNSUPPORTED_METHODS]) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const id = typeof operation.operationId === 'string' ? operation.operationId : undefined;
      const label = id ?? `${method.toUpperCase()} ${path}`;
      if (wanted !== undefined) {
        if (id === undefined || !wanted.has(id)) continue;
        found.add(id);
      }
      if (!(METHODS as readonly string[]).includes(method)) {
        skipped.push({ operation: label, reason: `method ${method.toUpperCase()} is not supported` });
        continue;
      }
      try {
        const definition = convertOperation(
          input,
          path,
          method as (typeof METHODS)[number],
          pathItem,
          operation,
          options,
          budget,
        );
        if (names.has(definition.name)) {
          skipped.push({
            operation: label,
            name: definition.name,
            reason: 'another operation of the document has the same name',
          });
          continue;
        }
        names.add(definition.name);
        tools.push({ operation: label, definition });
      } catch (e) {
        if (!(e instanceof Skip)) throw e;
        skipped.push({ operation: label, reason: e.message });
      }
    }
  }
  for (const id of wanted ?? []) {
    if (!found.has(id)) skipped.push({ operation: id, reason: 'no operation with this operationId' });
  }
  return { tools, skipped };
}

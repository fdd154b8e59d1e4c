import { createHash } from 'node:crypto';
import {
  KbqaError,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SourceLoader,
  type WebFetcher,
  throwIfAborted,
} from '@kbqa/core';
import { parse as parseYaml } from 'yaml';
import {
  describeSchema,
  exampleBlock,
  isObject,
  RefResolver,
  SchemaRenderer,
  type Json,
  type JsonObject,
} from './render';

export interface OpenApiLoaderOptions {
  /** The API passes @kbqa/fetcher's SafeFetcher; address policy, robots.txt and timeouts apply through it. */
  fetcher: WebFetcher;
  /** Body cap of the document in bytes. Default 10 MB. */
  maxBytes?: number;
  /** Operations ingested; those beyond are reported skipped with LIMIT. Default 1,000 (the crawler's page cap). */
  maxOperations?: number;
  /** Characters of one operation's text; longer ones are cut with a note. Default 40,000. */
  maxOperationChars?: number;
  /** Schema nesting rendered. Default 8. */
  maxSchemaDepth?: number;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_OPERATIONS = 1000;
const DEFAULT_MAX_OPERATION_CHARS = 40_000;
const DEFAULT_MAX_SCHEMA_DEPTH = 8;
const MAX_EXAMPLE_CHARS = 2000;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SPEC_ACCEPT = 'application/json, application/yaml, application/x-yaml, text/yaml;q=0.9, */*;q=0.5';

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  op: JsonObject;
  pathParameters: Json[];
}

/** What kind of document it is, and what every operation shares. */
interface SpecInfo {
  version: 'openapi3' | 'swagger2';
  title: string;
  /** Base URLs (OpenAPI `servers`, Swagger `host` + `basePath`). */
  servers: string[];
  /** Swagger 2 `consumes` / `produces` defaults. */
  consumes: string[];
  produces: string[];
}

/**
 * Ingests an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML) at a URL: one source per
 * operation, known by the document's URL with the operation as fragment (its operationId, or
 * `get-/pets/{id}`), holding its method and path, summary, description, parameters, request
 * body, responses with their schemas as nested lists, and examples. Local `$ref`s are resolved;
 * a cycle is cut with "(circular: Name)".
 */
export class OpenApiLoader implements SourceLoader {
  readonly type = 'openapi' as const;
  private readonly fetcher: WebFetcher;
  private readonly maxBytes: number;
  private readonly maxOperations: number;
  private readonly maxOperationChars: number;
  private readonly maxSchemaDepth: number;

  constructor(options: OpenApiLoaderOptions) {
    this.fetcher = options.fetcher;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxOperations = Math.max(1, Math.floor(options.maxOperations ?? DEFAULT_MAX_OPERATIONS));
    this.maxOperationChars = options.maxOperationChars ?? DEFAULT_MAX_OPERATION_CHARS;
    this.maxSchemaDepth = options.maxSchemaDepth ?? DEFAULT_MAX_SCHEMA_DEPTH;
  }

  validate(request: LoadRequest): void {
    parseSpecUrl(request.url);
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    const url = parseSpecUrl(request.url);
    url.hash = '';
    const { signal } = context;
    throwIfAborted(signal);
    context.progress({ step: 'SCRAPING', current: 0, total: 1, message: url.href });
    const res = await this.fetcher.fetch(url.href, { signal, accept: SPEC_ACCEPT, maxBytes: this.maxBytes });
    if (res.status < 200 || res.status >= 300) {
      throw new KbqaError('FETCH_FAILED', `the OpenAPI document ${url.href} answered HTTP ${res.status}`);
    }
    const spec = parseSpec(res.body.toString('utf8'), url.href);
    const info = specInfo(spec);
    const refs = new RefResolver(spec);
    const schemas = new SchemaRenderer(refs, {
      maxDepth: this.maxSchemaDepth,
      maxExampleChars: MAX_EXAMPLE_CHARS,
    });
    const operations = listOperations(spec, refs);
    if (operations.length === 0) {
      throw new KbqaError(
        'NO_CONTENT',
        `the OpenAPI document ${url.href} describes no operation (its paths are empty)`,
      );
    }
    const bodyHash = createHash('sha256').update(res.body).digest('hex');
    const total = Math.min(operations.length, this.maxOperations);
    const used = new Set<string>();
    for (const [i, operation] of operations.entries()) {
      const fragment = uniqueFragment(operationFragment(operation), used);
      const source = `${url.href}#${fragment}`;
      if (i >= this.maxOperations) {
        context.skipped?.({
          url: source,
          code: 'LIMIT',
          reason: `operation limit of ${this.maxOperations} reached`,
        });
        continue;
      }
      throwIfAborted(signal);
      let content = renderOperation(operation, info, refs, schemas, spec);
      if (content.length > this.maxOperationChars) {
        content = `${content.slice(0, this.maxOperationChars)}\n\n… (cut at ${this.maxOperationChars} characters)`;
      }
      const summary = typeof operation.op.summary === 'string' ? operation.op.summary.trim() : '';
      const heading = `${operation.method.toUpperCase()} ${operation.path}`;
      yield {
        source,
        link: source,
        title: summary ? `${heading}: ${summary}` : heading,
        content,
        version: { url: source, bodyHash },
      };
      context.progress({ step: 'SCRAPING', current: i + 1, total, message: heading });
    }
    throwIfAborted(signal);
  }
}

function parseSpecUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new KbqaError('BAD_REQUEST', `not a valid OpenAPI document URL: ${value.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KbqaError(
      'BAD_REQUEST',
      `only http and https OpenAPI documents can be loaded, got ${url.protocol}`,
    );
  }
  if (url.username || url.password)
    throw new KbqaError('BAD_REQUEST', 'URLs with credentials cannot be loaded');
  return url;
}

/** JSON or YAML; YAML aliases are bounded so a small document cannot expand without limit. */
function parseSpec(text: string, url: string): JsonObject {
  let value: unknown;
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  try {
    value = trimmed.startsWith('{') ? JSON.parse(trimmed) : parseYaml(trimmed, { maxAliasCount: 100 });
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new KbqaError('UNSUPPORTED', `${url} is neither JSON nor YAML: ${why}`);
  }
  if (
    !isObject(value) ||
    (typeof value.openapi !== 'string' && value.swagger !== '2.0' && value.swagger !== 2)
  ) {
    throw new KbqaError(
      'UNSUPPORTED',
      `${url} is not an OpenAPI 3.x or Swagger 2.0 document (no "openapi" or "swagger: 2.0" field)`,
    );
  }
  if (typeof value.openapi === 'string' && !value.openapi.startsWith('3.')) {
    throw new KbqaError('UNSUPPORTED', `${url} is OpenAPI ${value.openapi}; kbqa reads 3.x and Swagger 2.0`);
  }
  return value;
}

function strings(value: Json | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function specInfo(spec: JsonObject): SpecInfo {
  const info = isObject(spec.info) ? spec.info : {};
  const title = [info.title, info.version]
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .join(' ');
  if (typeof spec.openapi === 'string') {
    const servers = (Array.isArray(spec.servers) ? spec.servers : [])
      .map((s) => (isObject(s) && typeof s.url === 'string' ? s.url : undefined))
      .filter((s): s is string => s !== undefined);
    return { version: 'openapi3', title, servers, consumes: [], produces: [] };
  }
  const host = typeof spec.host === 'string' ? spec.host : '';
  const basePath = typeof spec.basePath === 'string' ? spec.basePath : '';
  const schemes = strings(spec.schemes);
  const servers = host ? (schemes.length ? schemes : ['https']).map((s) => `${s}://${host}${basePath}`) : [];
  return {
    version: 'swagger2',
    title,
    servers,
    consumes: strings(spec.consumes),
    produces: strings(spec.produces),
  };
}

function listOperations(spec: JsonObject, refs: RefResolver): Operation[] {
  const operations: Operation[] = [];
  if (!isObject(spec.paths)) return operations;
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = refs.deref(rawItem);
    if (!item) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op)) operations.push({ method, path, op, pathParameters });
    }
  }
  return operations;
}

/** The operationId when there is one (it is unique and stable), else `get-/pets/{id}`. */
function operationFragment(operation: Operation): string {
  const id = operation.op.operationId;
  if (typeof id === 'string' && /^[\w.~:-]{1,200}$/.test(id)) return id;
  return `${operation.method}-${operation.path}`.replace(/[\s#]/g, (c) => encodeURIComponent(c));
}

function uniqueFragment(fragment: string, used: Set<string>): string {
  let candidate = fragment;
  for (let n = 2; used.has(candidate); n++) candidate = `${fragment}-${n}`;
  used.add(candidate);
  return candidate;
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema?: Json;
  raw: JsonObject;
}

/** The operation's parameters, path-level ones first unless the operation overrides them. */
function parameters(operation: Operation, refs: RefResolver): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const raw of [
    ...operation.pathParameters,
    ...(Array.isArray(operation.op.parameters) ? operation.op.parameters : []),
  ]) {
    const p = refs.deref(raw);
    if (!p || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in,
      required: p.required === true || p.in === 'path',
      description: typeof p.description === 'string' ? p.description.trim() : undefined,
      // Swagger 2 puts the type on the parameter itself; OpenAPI 3 in `schema`.
      schema: isObject(p.schema) ? p.schema : p,
      raw: p,
    });
  }
  return [...byKey.values()];
}

function renderOperation(
  operation: Operation,
  info: SpecInfo,
  refs: RefResolver,
  schemas: SchemaRenderer,
  spec: JsonObject,
): string {
  const { op, method, path } = operation;
  const heading = `${method.toUpperCase()} ${path}`;
  const out: string[] = [`# ${heading}`, ''];
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  if (summary) out.push(summary, '');
  if (typeof op.description === 'string' && op.description.trim()) out.push(op.description.trim(), '');
  const facts: string[] = [];
  if (info.title) facts.push(`API: ${info.title}`);
  if (typeof op.operationId === 'string') facts.push(`Operation id: \`${op.operationId}\``);
  const tags = strings(op.tags);
  if (tags.length) facts.push(`Tags: ${tags.join(', ')}`);
  if (op.deprecated === true) facts.push('Deprecated: yes');
  if (info.servers.length) facts.push(`Base URL: ${info.servers.join(', ')}`);
  const security = securityNames(op, spec);
  if (security.length) facts.push(`Authentication: ${security.join(' or ')}`);
  for (const f of facts) out.push(`- ${f}`);
  if (facts.length) out.push('');

  const params = parameters(operation, refs);
  const plain = params.filter((p) => p.in !== 'body');
  if (plain.length > 0) {
    out.push('## Parameters', '');
    for (const p of plain) {
      const facts = [`in ${p.in}`, schemas.typeOf(p.schema)];
      if (p.required) facts.push('required');
      let line = `- \`${p.name}\` (${facts.join(', ')})`;
      // The parameter's own description first, then what its schema says (without repeating it).
      const schemaFacts = isObject(p.schema)
        ? describeSchema({ ...p.schema, description: null, title: null })
        : '';
      const details = [p.description, schemaFacts]
        .filter((d): d is string => typeof d === 'string' && d.length > 0)
        .join('; ');
      if (details) line += `: ${details.replace(/\s*\n\s*/g, ' ')}`;
      out.push(line);
      out.push(...schemas.render(p.schema, 1));
    }
    out.push('');
  }

  const body = requestBody(operation, params, info, refs);
  if (body) {
    out.push('## Request body', '');
    if (body.description) out.push(body.description, '');
    if (body.required) out.push('Required.', '');
    for (const media of body.media) {
      out.push(`Content type \`${media.type}\`: ${schemas.typeOf(media.schema)}`, '');
      out.push(...schemas.render(media.schema));
      out.push('');
      for (const ex of media.examples) out.push(...exampleBlock(ex.value, MAX_EXAMPLE_CHARS, ex.label));
    }
  }

  const responses = isObject(op.responses) ? op.responses : {};
  if (Object.keys(responses).length > 0) {
    out.push('## Responses', '');
    for (const [status, raw] of Object.entries(responses)) {
      const r = refs.deref(raw);
      if (!r) continue;
      const description = typeof r.description === 'string' ? r.description.trim() : '';
      out.push(`### ${status}${description ? `: ${description.split('\n')[0]}` : ''}`, '');
      if (description.includes('\n')) out.push(description, '');
      for (const media of responseMedia(r, op, info, refs)) {
        out.push(`Content type \`${media.type}\`: ${schemas.typeOf(media.schema)}`, '');
        const lines = schemas.render(media.schema);
        if (lines.length) out.push(...lines, '');
        for (const ex of media.examples) out.push(...exampleBlock(ex.value, MAX_EXAMPLE_CHARS, ex.label));
      }
    }
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Media {
  type: string;
  schema?: Json;
  examples: Array<{ label?: string; value: Json }>;
}

function mediaExamples(media: JsonObject, refs: RefResolver): Array<{ label?: string; value: Json }> {
  const examples: Array<{ label?: string; value: Json }> = [];
  if (media.example !== undefined) examples.push({ value: media.example });
  if (isObject(media.examples)) {
    for (const [name, raw] of Object.entries(media.examples)) {
      const ex = refs.deref(raw);
      if (ex && ex.value !== undefined) examples.push({ label: `"${name}"`, value: ex.value });
    }
  }
  return examples;
}

function contentMedia(content: Json | undefined, refs: RefResolver): Media[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([type, raw]) => {
    const media = isObject(raw) ? raw : {};
    return { type, schema: media.schema, examples: mediaExamples(media, refs) };
  });
}

function requestBody(
  operation: Operation,
  params: Parameter[],
  info: SpecInfo,
  refs: RefResolver,
): { description?: string; required: boolean; media: Media[] } | undefined {
  if (info.version === 'openapi3') {
    const body = refs.deref(operation.op.requestBody);
    if (!body) return undefined;
    return {
      description: typeof body.description === 'string' ? body.description.trim() : undefined,
      required: body.required === true,
      media: contentMedia(body.content, refs),
    };
  }
  // Swagger 2 form fields are listed with the parameters; only a `body` parameter is a body.
  const bodyParam = params.find((p) => p.in === 'body');
  if (!bodyParam) return undefined;
  const consumes = strings(operation.op.consumes);
  const types = consumes.length ? consumes : info.consumes.length ? info.consumes : ['application/json'];
  const example = bodyParam.raw['x-example'];
  return {
    description: bodyParam.description,
    required: bodyParam.required,
    media: [
      {
        type: types.join(', '),
        schema: bodyParam.raw.schema,
        examples: example !== undefined ? [{ value: example }] : [],
      },
    ],
  };
}

function responseMedia(response: JsonObject, op: JsonObject, info: SpecInfo, refs: RefResolver): Media[] {
  if (info.version === 'openapi3') return contentMedia(response.content, refs);
  if (response.schema === undefined && !isObject(response.examples)) return [];
  const produces = strings(op.produces).length ? strings(op.produces) : info.produces;
  const examples = isObject(response.examples)
    ? Object.entries(response.examples).map(([type, value]) => ({ label: `(${type})`, value }))
    : [];
  return [{ type: produces.join(', ') || 'application/json', schema: response.schema, examples }];
}

/** Names of the security schemes an operation (or the whole API) asks for, with their kind. */
function securityNames(op: JsonObject, spec: JsonObject): string[] {
  const requirements = Array.isArray(op.security)
    ? op.security
    : Array.isArray(spec.security)
      ? spec.security
      : [];
  const components = isObject(spec.components) ? spec.components : {};
  const schemes = isObject(components.securitySchemes)
    ? components.securitySchemes
    : isObject(spec.securityDefinitions)
      ? spec.securityDefinitions
      : {};
  const names: string[] = [];
  for (const req of requirements) {
    if (!isObject(req)) continue;
    const all = Object.keys(req).map((name) => {
      const scheme = schemes[name];
      if (!isObject(scheme)) return name;
      const kind = [scheme.type, scheme.scheme, scheme.in, scheme.name]
        .filter((v) => typeof v === 'string')
        .join(' ');
      return kind ? `${name} (${kind})` : name;
    });
    if (all.length) names.push(all.join(' and '));
  }
  return names;
}

import { KbqaError } from '@kbqa/core';
import { z } from 'zod';

/** What every API, CLI output and log line shows in place of a stored header value. */
export const SECRET_MASK = '••••';

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ToolMethod = (typeof TOOL_METHODS)[number];

/** OpenAI's function-name rule, so a definition can be handed to a model as is. */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const PLACEHOLDER = /\{([a-zA-Z0-9_-]+)\}/g;
const EXACT_PLACEHOLDER = /^\{([a-zA-Z0-9_-]+)\}$/;
/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const DESCRIPTION_MAX = 2000;
const URL_MAX = 2048;
const HEADERS_MAX = 32;
/** Shorter header values are not searched for in outputs: redacting `1` or `yes` would garble them. */
const REDACT_MIN_LENGTH = 4;

/** A validated HTTP tool definition (docs/api.md, "Tools"). */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments, `type: 'object'`. */
  parameters: Record<string, unknown>;
  method: ToolMethod;
  /** http(s) URL whose `{param}` placeholders are filled, URL-encoded, from the arguments. */
  url: string;
  /** Header name to value; the values are secrets. */
  headers: Record<string, string>;
  /** JSON body template; undefined for none. */
  body: unknown;
  /** Whether anon-key chats may use the tool. */
  public: boolean;
}

function bad(message: string): KbqaError {
  return new KbqaError('BAD_REQUEST', message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `{param}` names of a template string, in order of appearance. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Every placeholder name in the string leaves of a body template. */
function bodyPlaceholders(template: unknown): string[] {
  if (typeof template === 'string') return placeholders(template);
  if (Array.isArray(template)) return template.flatMap(bodyPlaceholders);
  if (isPlainObject(template)) return Object.values(template).flatMap(bodyPlaceholders);
  return [];
}

/** The zod validator of a `parameters` schema; BAD_REQUEST naming what zod could not read. */
function argumentsValidator(parameters: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(parameters);
  } catch (e) {
    throw bad(`parameters is not a usable JSON Schema: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Checks a header map (name to secret value) and returns it; throws BAD_REQUEST naming the header,
 * never its value. Undefined is no headers.
 */
export function parseHeaders(headers: unknown): Record<string, string> {
  const headerMap: Record<string, string> = {};
  if (headers === undefined) return headerMap;
  if (!isPlainObject(headers)) throw bad('headers must be an object of header name to string value');
  const entries = Object.entries(headers);
  if (entries.length > HEADERS_MAX) throw bad(`at most ${HEADERS_MAX} headers`);
  for (const [h, v] of entries) {
    if (!HEADER_NAME.test(h)) throw bad(`"${h}" is not a valid header name`);
    // The value is never echoed: it may be the secret itself.
    if (typeof v !== 'string') throw bad(`the value of header ${h} must be a string`);
    if (/[\r\n\0]/.test(v)) throw bad(`the value of header ${h} must not contain line breaks`);
    headerMap[h] = v;
  }
  return headerMap;
}

/**
 * Checks an operator's tool definition and returns it normalized (method upper-cased, headers
 * defaulted); throws BAD_REQUEST naming the first problem. Pure: no I/O.
 */
export function parseToolDefinition(input: unknown): ToolDefinition {
  if (!isPlainObject(input)) throw bad('a tool definition must be a JSON object');
  const { name, description, parameters, method, url, headers, body, public: isPublic } = input;
  const known = new Set(['name', 'description', 'parameters', 'method', 'url', 'headers', 'body', 'public']);
  const unknown = Object.keys(input).filter((k) => !known.has(k));
  if (unknown.length > 0) throw bad(`unknown field(s) in the tool definition: ${unknown.join(', ')}`);

  if (typeof name !== 'string' || !NAME.test(name)) {
    throw bad('name must be 1 to 64 letters, digits, "_" or "-"');
  }
  if (typeof description !== 'string' || description.trim() === '') throw bad('description is required');
  if (description.length > DESCRIPTION_MAX) {
    throw bad(`description must be at most ${DESCRIPTION_MAX} characters`);
  }
  if (!isPlainObject(parameters) || parameters.type !== 'object') {
    throw bad("parameters must be a JSON Schema object with type 'object'");
  }
  if (parameters.properties !== undefined && !isPlainObject(parameters.properties)) {
    throw bad('parameters.properties must be an object');
  }
  argumentsValidator(parameters);
  const declared = new Set(Object.keys(parameters.properties ?? {}));

  const verb = typeof method === 'string' ? method.toUpperCase() : method;
  if (!TOOL_METHODS.includes(verb as ToolMethod))
    throw bad(`method must be one of ${TOOL_METHODS.join(', ')}`);

  if (typeof url !== 'string' || url.length > URL_MAX) {
    throw bad(`url must be an http(s) URL of at most ${URL_MAX} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.replace(PLACEHOLDER, 'x'));
  } catch {
    throw bad('url must be an http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw bad('url must be an http(s) URL');
  if (parsed.username || parsed.password) throw bad('url must not hold credentials; put them in headers');
  for (const p of placeholders(url)) {
    if (!declared.has(p)) throw bad(`url placeholder {${p}} is not declared in parameters.properties`);
  }

  const headerMap = parseHeaders(headers);

  if (body !== undefined && verb === 'GET') throw bad('a GET tool cannot have a body');
  for (const p of bodyPlaceholders(body)) {
    if (!declared.has(p)) throw bad(`body placeholder {${p}} is not declared in parameters.properties`);
  }
  if (isPublic !== undefined && typeof isPublic !== 'boolean') throw bad('public must be a boolean');

  return {
    name,
    description,
    parameters,
    method: verb as ToolMethod,
    url,
    headers: headerMap,
    body,
    public: isPublic ?? false,
  };
}

/**
 * Checks arguments against the tool's `parameters`; undefined when they fit, else a message
 * naming each failing field.
 */
export function argumentsError(parameters: Record<string, unknown>, args: unknown): string | undefined {
  if (!isPlainObject(args)) return 'arguments must be a JSON object';
  const result = argumentsValidator(parameters).safeParse(args);
  if (result.success) return undefined;
  return result.error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(arguments)'}: ${i.message}`)
    .join('; ');
}

/** The text of an argument inside a string: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The argument named `name`, never an inherited property (`constructor`, `__proto__`). */
function arg(args: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(args, name) ? args[name] : undefined;
}

/** The URL with each `{param}` replaced by the URL-encoded argument (empty when absent). */
export function fillUrl(template: string, args: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_m, p: string) => encodeURIComponent(asText(arg(args, p))));
}

/**
 * The body from its template: a string leaf that is exactly one `{param}` becomes the argument's
 * JSON value (null when absent), any other string leaf gets the arguments interpolated as text.
 */
export function fillBody(template: unknown, args: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const exact = EXACT_PLACEHOLDER.exec(template);
    if (exact) return arg(args, exact[1] as string) ?? null;
    return template.replace(PLACEHOLDER, (_m, p: string) => asText(arg(args, p)));
  }
  if (Array.isArray(template)) return template.map((t) => fillBody(t, args));
  if (isPlainObject(template)) {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillBody(v, args)]));
  }
  return template;
}

/** Replaces every occurrence of a secret (a stored header value) in text by the mask. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const found = secrets.filter((s) => s.length >= REDACT_MIN_LENGTH).sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of found) out = out.split(s).join(SECRET_MASK);
  return out;
}

/** Headers as the API shows them: every value masked. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((h) => [h, SECRET_MASK]));
}

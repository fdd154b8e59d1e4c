/**
 * What one OpenAPI import may cost (docs/security.md, "OpenAPI and YAML bombs"). An import that would
 * go past a whole-import limit is refused with a 400 naming the limit; the others cut or skip and say
 * so. A document is untrusted: inlining `$ref`s or YAML aliases can grow it exponentially.
 */

/** Bytes of a document fetched by URL: it is read whole. */
export const OPENAPI_MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** YAML aliases (`*name`) per document; each may stand for a whole subtree. */
export const OPENAPI_MAX_YAML_ALIASES = 1000;

/**
 * Levels of one rendered schema, `$ref` hops included. Deeper parts are replaced by a schema that
 * says they were cut: a model cannot use a schema that deep anyway.
 */
export const OPENAPI_MAX_SCHEMA_DEPTH = 64;

/** Schema nodes (objects, arrays, values) the whole import may produce once `$ref`s are inlined. */
export const OPENAPI_MAX_SCHEMA_NODES = 100_000;

/** Bytes of rendered schemas (as JSON, roughly) the whole import may produce. */
export const OPENAPI_MAX_SCHEMA_BYTES = 4 * 1024 * 1024;

/** Bytes of one tool's `parameters` as JSON: a bigger tool is skipped, it would crowd a chat's context. */
export const OPENAPI_MAX_TOOL_PARAMETERS_BYTES = 256 * 1024;

/** Tools a project may hold after an import: the operations past it are reported as skipped. */
export const OPENAPI_MAX_TOOLS_PER_PROJECT = 500;

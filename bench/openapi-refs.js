// Why the OpenAPI tool import resolves $refs itself (apps/api/src/tools/openapi-import.ts) rather
// than through @apidevtools/swagger-parser's dereference: time to dereference a schema whose two
// properties both refer to the next level, per depth, against kbqa's import of the same document,
// which stops at its node budget. Needs `pnpm build`. Usage: node bench/openapi-refs.js [maxDepth]
'use strict';
const path = require('node:path');
const { ROOT } = require('./lib');

const api = path.join(ROOT, 'apps', 'api');
const SwaggerParser = require(require.resolve('@apidevtools/swagger-parser', { paths: [api] }));
const { toolsFromOpenApi } = require(path.join(api, 'dist', 'tools', 'openapi-import.js'));

const doubling = (depth) => {
  const schemas = {};
  for (let i = 0; i < depth; i++) {
    const next = { $ref: `#/components/schemas/S${i + 1}` };
    schemas[`S${i}`] = { type: 'object', properties: { a: next, b: next } };
  }
  schemas[`S${depth}`] = { type: 'string' };
  return {
    openapi: '3.0.3',
    info: { title: 'doubling', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths: {
      '/x': {
        post: {
          operationId: 'x',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } },
        },
      },
    },
    components: { schemas },
  };
};

const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

async function main() {
  const maxDepth = Number(process.argv[2] ?? 18);
  console.log('| depth | swagger-parser dereference (ms) | kbqa toolsFromOpenApi (ms) | kbqa outcome |');
  console.log('| --- | --- | --- | --- |');
  for (let depth = 10; depth <= maxDepth; depth += 2) {
    let t = process.hrtime.bigint();
    await SwaggerParser.dereference(doubling(depth), {
      resolve: { external: false },
      dereference: { circular: 'ignore' },
    });
    const parser = ms(t);
    t = process.hrtime.bigint();
    let outcome;
    try {
      outcome = `${toolsFromOpenApi(doubling(depth)).tools.length} tool`;
    } catch (e) {
      outcome = e.message.includes('node limit') ? 'refused (node limit)' : e.message;
    }
    console.log(`| ${depth} | ${parser.toFixed(0)} | ${ms(t).toFixed(0)} | ${outcome} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

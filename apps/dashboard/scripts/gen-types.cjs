// `pnpm --filter @kbqa/dashboard gen:types`: writes src/api-types.gen.ts from the operator API's
// OpenAPI document as apps/api builds it (run `pnpm build` first: this reads apps/api/dist).
// `--check` writes nothing and exits 1 when the committed file is stale; apps/api's
// src/admin/openapi.spec.ts checks the same from source on every test run.
'use strict';
const { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { API_TYPES_FILE, renderApiTypes } = require('./api-types.cjs');

const API_DIST = path.join(__dirname, '..', '..', 'api', 'dist');

async function main() {
  if (!existsSync(path.join(API_DIST, 'bootstrap.js'))) {
    throw new Error('apps/api is not built: run `pnpm build` first');
  }
  const { buildAdminOpenApiDocument } = require(path.join(API_DIST, 'bootstrap.js'));
  const { loadConfig } = require(path.join(API_DIST, 'config', 'config.js'));
  // Preview mode opens nothing in it; a fresh folder keeps an operator's environment out of the document.
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-gen-types-'));
  try {
    const document = await buildAdminOpenApiDocument(loadConfig({ KBQA_DATA_DIR: dir }, dir));
    const text = await renderApiTypes(document);
    const rel = path.relative(process.cwd(), API_TYPES_FILE);
    if (process.argv.includes('--check')) {
      const current = existsSync(API_TYPES_FILE) ? readFileSync(API_TYPES_FILE, 'utf8') : '';
      if (current !== text) {
        console.error(`${rel} is stale: run \`pnpm build && pnpm --filter @kbqa/dashboard gen:types\``);
        process.exitCode = 1;
      } else {
        console.log(`${rel} is current`);
      }
      return;
    }
    writeFileSync(API_TYPES_FILE, text);
    console.log(`wrote ${rel}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

// Writes the tiny test GGUF model (random weights, about 0.5 MB) for trying KBQA_LLM=local by
// hand: `node packages/llm-local/scripts/write-tiny-gguf.mjs <folder>`. Needs `pnpm build` first.
// Tests write their own copy in a temporary folder; no model file is ever committed.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { writeTinyGguf } = require('../dist/testing/index.js');

const outDir = path.resolve(process.argv[2] ?? '.');
const architecture = process.argv[3];
const file = await writeTinyGguf(outDir, architecture ? { architecture } : {});
console.log(file);

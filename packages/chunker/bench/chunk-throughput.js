// Chunking throughput on ~2 KB markdown documents cut from the fastify-docs corpus.
// Usage (after `pnpm --filter @kbqa/chunker run build`): node packages/chunker/bench/chunk-throughput.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { MarkdownChunker } = require('../dist');
const { requireSharedCorpus } = require('../../../bench/shared-corpus');

const corpus = requireSharedCorpus();
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.md')) files.push(fs.readFileSync(p, 'utf8'));
  }
})(corpus);

// ~2 KB documents: consecutive line runs of the corpus, so they keep headings, lists and code.
const docs = [];
for (const text of files) {
  let cur = '';
  for (const line of text.split('\n')) {
    cur += line + '\n';
    if (cur.length >= 2048) {
      docs.push({ source: `doc-${docs.length}`, content: cur });
      cur = '';
    }
  }
}
const chunker = new MarkdownChunker();
const rounds = Number(process.argv[2] ?? 20);
for (const d of docs) chunker.chunk(d); // warm-up
let chunks = 0;
const start = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (const d of docs) chunks += chunker.chunk(d).length;
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const n = docs.length * rounds;
console.log(
  `${n} docs (avg ${Math.round(docs.reduce((s, d) => s + d.content.length, 0) / docs.length)} chars), ` +
    `${chunks} chunks in ${seconds.toFixed(2)} s: ${Math.round(n / seconds)} docs/s`,
);

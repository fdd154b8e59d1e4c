// The size of the embeddable widget (packages/widget/dist/widget.js) as a browser downloads it:
// minified, and gzipped at level 9 (what `gzip -9c dist/widget.js | wc -c` prints). Needs `pnpm build`.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { gzipSync, brotliCompressSync, constants } = require('node:zlib');
const { ROOT } = require('./lib');

const file = path.join(ROOT, 'packages', 'widget', 'dist', 'widget.js');
const body = readFileSync(file);
const kb = (n) => (n / 1024).toFixed(1);
const gzip = gzipSync(body, { level: 9 }).length;
const brotli = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
console.log(`## Widget size (issue 13)

\`/widget.js\`: the whole widget in one minified file (marked and DOMPurify bundled).

| minified KB | gzip -9 KB | brotli 11 KB | target |
|---|---|---|---|
| ${kb(body.length)} | ${kb(gzip)} | ${kb(brotli)} | gzip < 20 KB |`);

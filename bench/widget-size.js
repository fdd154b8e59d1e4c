// The size of the embeddable widget (packages/widget/dist) as a browser downloads it: minified, and
// gzipped at level 9 (what `gzip -9c dist/widget.js | wc -c` prints). Needs `pnpm build`.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { gzipSync, brotliCompressSync, constants } = require('node:zlib');
const { ROOT } = require('./lib');

const size = (name) => {
  const body = readFileSync(path.join(ROOT, 'packages', 'widget', 'dist', name));
  return {
    min: body.length,
    gzip: gzipSync(body, { level: 9 }).length,
    brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const kb = (n) => (n / 1024).toFixed(1);
const tag = size('widget.js');
const markdown = size('widget-markdown.js');
const row = (what, s, target) => `| ${what} | ${kb(s.min)} | ${kb(s.gzip)} | ${kb(s.brotli)} | ${target} |`;
console.log(`## Widget size (issue 13)

\`/widget.js\` is what the script tag loads on every page: launcher, panel, streaming, rating, themes, and the
renumbering of citations by page (\`@kbqa/text/citations\`).
\`/widget-markdown.js\` (marked, DOMPurify, and the text fragments of citation links, \`@kbqa/text/text-fragment\`)
is imported when a reader first opens the panel; until it arrives, answers show as plain text.

| file | minified KB | gzip -9 KB | brotli 11 KB | target |
|---|---|---|---|---|
${row('widget.js (every page)', tag, 'gzip < 20 KB')}
${row('widget-markdown.js (first open)', markdown, '')}
${row('both', { min: tag.min + markdown.min, gzip: tag.gzip + markdown.gzip, brotli: tag.brotli + markdown.brotli }, '')}`);

// The benchmark corpus: ../shared/corpora/fastify-docs beside the repository. CI has it; a plain clone
// does not, and the tests never need it (they read fixtures/docs-corpus). A benchmark that needs the
// corpus calls requireSharedCorpus(): when it is missing it says so in one line on stderr and exits
// with SKIPPED, which bench/run.js reports as a skipped benchmark.
'use strict';
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const SHARED_CORPUS = path.join(__dirname, '..', '..', 'shared', 'corpora', 'fastify-docs');
const SKIPPED = 3;

/** Returns `dir` when it exists; otherwise prints why the benchmark cannot run and exits with SKIPPED. */
function requireSharedCorpus(dir = SHARED_CORPUS) {
  if (existsSync(dir)) return dir;
  process.stderr.write(
    `skipped: benchmark corpus ${dir} is missing (it sits beside the repository in CI, not in a clone)\n`,
  );
  process.exit(SKIPPED);
}

/** The Guides and Reference pages of the corpus, in name order: `{ id: 'Guides/X.md', content }`. */
function corpusPages(dir) {
  const pages = [];
  for (const folder of ['Guides', 'Reference']) {
    for (const file of readdirSync(path.join(dir, folder)).sort()) {
      if (file.endsWith('.md'))
        pages.push({ id: `${folder}/${file}`, content: readFileSync(path.join(dir, folder, file), 'utf8') });
    }
  }
  return pages;
}

module.exports = { SHARED_CORPUS, SKIPPED, requireSharedCorpus, corpusPages };

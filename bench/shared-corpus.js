// The benchmark corpora beside the repository: ../shared/corpora/fastify-docs (the one every
// benchmark uses) and ../shared/corpora/vite-docs (the Vite docs, VitePress markdown, for the unseen
// Vite answers set). CI has them; a plain clone does not, and the tests never need them (they read
// fixtures/docs-corpus). A benchmark that needs the fastify corpus calls requireSharedCorpus(): when
// it is missing it says so in one line on stderr and exits with SKIPPED, which bench/run.js reports
// as a skipped benchmark. The vite corpus is optional: viteCorpus() returns undefined without it.
'use strict';
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const SHARED_CORPUS = path.join(__dirname, '..', '..', 'shared', 'corpora', 'fastify-docs');
const VITE_CORPUS = path.join(__dirname, '..', '..', 'shared', 'corpora', 'vite-docs');
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

/** The vite-docs directory when it exists, else undefined (callers skip what needs it). */
function viteCorpus(dir = VITE_CORPUS) {
  return existsSync(dir) ? dir : undefined;
}

/**
 * Every markdown page under the vite corpus, recursively and in path order, except README.md and
 * LICENSE (the corpus's own notes): `{ id: 'guide/features.md', content }`, ids relative to `dir`
 * with forward slashes.
 */
function vitePages(dir) {
  const pages = [];
  const walk = (sub) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md') && !['README.md', 'LICENSE'].includes(entry.name))
        pages.push({ id: rel, content: readFileSync(path.join(dir, rel), 'utf8') });
    }
  };
  walk('');
  return pages;
}

module.exports = {
  SHARED_CORPUS,
  VITE_CORPUS,
  SKIPPED,
  requireSharedCorpus,
  corpusPages,
  viteCorpus,
  vitePages,
};

// Fails when a test, a test helper or the jest preset reads something outside this repository, such as
// ../shared/corpora beside the CI checkout: `pnpm test` must pass in a plain clone with nothing beside
// it. Run first by `pnpm test`; `node scripts/check-tests-self-contained.js [root]` checks another tree.
// Benchmarks (bench/, packages/*/bench) are not tests and may read ../shared.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
const SKIP_DIRS = new Set(['node_modules', 'dist', 'dist-check', 'coverage', '.turbo', 'bench']);

/** Test code: specs, files under a test/ or testing/ folder, the jest preset. */
function isTestCode(rel) {
  if (!/\.(ts|js|mjs|cjs)$/.test(rel)) return false;
  if (/\.(spec|e2e-spec)\.ts$/.test(rel)) return true;
  return rel === 'jest.preset.js' || /(^|\/)(test|testing)\//.test(rel);
}

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (isTestCode(path.relative(ROOT, full).split(path.sep).join('/'))) out.push(full);
  }
  return out;
}

// Names of the corpora and documents that sit beside the repository in CI.
const OUTSIDE_NAMES = [
  /\.\.\/shared\b/,
  /\/work\/shared\b/,
  /['"]shared['"]\s*,\s*['"]corpora['"]/,
  /shared\/corpora/,
];
// path.join/resolve(__dirname, '..', ...) with string literals only: resolved and checked against ROOT.
const DIRNAME_PATH = /\b(?:join|resolve)\(\s*__dirname\s*,((?:\s*(?:'[^']*'|"[^"]*")\s*,?)+)\)/g;

function problems(file) {
  const text = readFileSync(file, 'utf8');
  const found = new Map(); // line number -> what is wrong there, once per line
  text.split('\n').forEach((line, i) => {
    if (OUTSIDE_NAMES.some((re) => re.test(line))) found.set(i + 1, line.trim());
  });
  for (const m of text.matchAll(DIRNAME_PATH)) {
    const parts = [...m[1].matchAll(/'([^']*)'|"([^"]*)"/g)].map((p) => p[1] ?? p[2]);
    const target = path.resolve(path.dirname(file), ...parts);
    if (path.relative(ROOT, target).startsWith('..')) {
      const line = text.slice(0, m.index).split('\n').length;
      found.set(line, `${m[0]} (resolves to ${target}, outside the repository)`);
    }
  }
  return [...found].map(([line, what]) => `${line}: ${what}`);
}

const roots = ['packages', 'apps'].map((d) => path.join(ROOT, d));
const files = [path.join(ROOT, 'jest.preset.js'), ...roots.flatMap((d) => walk(d, []))];
let failed = 0;
for (const file of files) {
  for (const p of problems(file)) {
    console.error(`${path.relative(ROOT, file)}:${p}`);
    failed++;
  }
}
if (failed > 0) {
  console.error(
    `check-tests-self-contained: ${failed} reference(s) to files outside the repository in test code; ` +
      'tests must read fixtures inside it (fixtures/docs-corpus, DOCS_CORPUS_DIR from @kbqa/core/testing).',
  );
  process.exit(1);
}
console.log(`check-tests-self-contained: ${files.length} test files read nothing outside the repository`);

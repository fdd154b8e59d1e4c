// `pnpm bench`: runs every benchmark script in turn (each prints a markdown section) and writes
// docs/benchmarks.md with the machine and the date. `pnpm bench -- --only ingest-documents` runs one.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { machine, ROOT } = require('./lib');
const { SKIPPED } = require('./shared-corpus');

const BENCHMARKS = [
  { name: 'ingest-documents', script: 'bench/ingest-documents.js' },
  { name: 'chat', script: 'bench/chat.js' },
  { name: 'load', script: 'bench/load.js' },
  { name: 'retrieval-quality', script: 'bench/retrieval/quality.js' },
  { name: 'store-lexical', script: 'bench/retrieval/store-lexical.js' },
  { name: 'store-scale', script: 'bench/retrieval/store-scale.js' },
  { name: 'postgres-chat', script: 'bench/postgres-chat.js' },
  { name: 'retrieval-latency', script: 'bench/retrieval/latency.js' },
  { name: 'answers', script: 'bench/answers/quality.js', args: ['--ablate'] },
  { name: 'answers-scorer', script: 'bench/answers/train-scorer.js' },
  { name: 'sentence-choice', script: 'bench/answers/sentence-choice.js' },
  { name: 'context-recall', script: 'bench/answers/context-recall.js', args: ['--steps'] },
  { name: 'embedding', script: 'packages/embedder/bench/throughput.js' },
  { name: 'local-llm', script: 'packages/llm-local/bench/mechanics.js', args: ['--threads', '1'] },
  { name: 'crawl', script: 'packages/loader-website-crawler/bench/crawl.js' },
  { name: 'crawl-service', script: 'bench/crawl-service.js' },
  { name: 'github', script: 'bench/github.js' },
  { name: 'resync', script: 'bench/resync.js' },
  { name: 'backup', script: 'bench/backup.js' },
  { name: 'widget-size', script: 'bench/widget-size.js' },
  { name: 'versions', script: 'bench/versions.js' },
  { name: 'binary-start', script: 'bench/binary-start.js' },
];

const today = new Date().toISOString().slice(0, 10);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set(process.argv[onlyAt + 1].split(',')) : undefined;
const target = path.join(ROOT, 'docs', 'benchmarks.md');
const previous = existsSync(target) ? readFileSync(target, 'utf8') : '';
const sectionRe = (name) => new RegExp(`<!-- ${name} -->[\\s\\S]*?(?=\\n<!-- |$)`);
const sections = [];
const skipped = [];
let ran = 0;
for (const b of BENCHMARKS) {
  if (only && !only.has(b.name)) continue;
  const file = path.join(ROOT, b.script);
  if (!existsSync(file)) {
    console.error(`skip ${b.name}: ${b.script} does not exist`);
    continue;
  }
  console.error(`running ${b.name} (${b.script})`);
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', file, ...(b.args ?? [])], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    sections.push(
      `<!-- ${b.name} -->\n${out.toString().trim()}\n\nMeasured ${today} on ${machine()}. Command: \`node ${[b.script, ...(b.args ?? [])].join(' ')}\``,
    );
    ran++;
    console.error(out.toString());
  } catch (e) {
    if (e.status === SKIPPED) {
      // The script said why on stderr (its corpus is missing); the last measured section stays.
      console.error(`skip ${b.name}: it cannot run here (reason above)`);
      skipped.push(b.name);
      const kept = sectionRe(b.name).exec(previous)?.[0].trimEnd();
      if (kept) sections.push(kept);
      continue;
    }
    sections.push(`<!-- ${b.name} -->\n## ${b.name}\n\nFAILED: ${e.message.split('\n')[0]}`);
    process.exitCode = 1;
  }
}

if (ran === 0 && !process.exitCode) {
  console.error(`nothing was measured; ${path.relative(ROOT, target)} is unchanged`);
  process.exit();
}
const kept = skipped.length
  ? `Not run (corpus missing), kept from an earlier run: ${skipped.join(', ')}.\n`
  : '';
// `--only` rewrites some sections and keeps the others, so each section names its own date and
// machine; the header cannot speak for all of them.
const header =
  `# Benchmarks\n\nWritten by \`pnpm bench\` (\`--only <names>\` for some sections). Each section ends with the ` +
  `date and machine it was measured on; sections without that line were last measured by a full run on an ` +
  `Intel Xeon, 2 cores, 24 GiB, Node 20.\n${kept}`;
if (only && previous) {
  // Replace only the sections that ran, keep the others.
  let text = previous;
  for (const s of sections) {
    const name = /<!-- (.+?) -->/.exec(s)[1];
    const re = sectionRe(name);
    text = re.test(text) ? text.replace(re, s + '\n') : text.trimEnd() + '\n\n' + s + '\n';
  }
  text = text.replace(/^# Benchmarks[\s\S]*?(?=\n<!-- )/, header);
  writeFileSync(target, text);
} else {
  // Sections written by other commands (the single executable's start-up, the registry test's run
  // time) are not measured here: keep them after the ones that ran.
  const known = new Set(BENCHMARKS.map((b) => b.name));
  const others = [...previous.matchAll(/<!-- (.+?) -->/g)]
    .map((m) => m[1])
    .filter((name) => !known.has(name))
    .map((name) => sectionRe(name).exec(previous)?.[0].trimEnd())
    .filter(Boolean);
  writeFileSync(target, `${header}\n${[...sections, ...others].join('\n\n')}\n`);
}
console.error(`wrote ${path.relative(ROOT, target)}`);

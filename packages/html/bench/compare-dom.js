// Compares DOM implementations and extraction strategies on the fastify-docs corpus rendered
// as a docs site (header nav, sidebar, footer). Not a test: run after `pnpm run build`.
//   node bench/compare-dom.js [corpusDir] [rounds]
'use strict';
const { extractContent } = require('../dist');
const { renderDocsSite, readCorpus, CHROME_PHRASES } = require('../dist/testing');
const { requireSharedCorpus, SHARED_CORPUS } = require('../../../bench/shared-corpus');

const corpus = requireSharedCorpus(process.argv[2] ?? SHARED_CORPUS);
const rounds = Number(process.argv[3] ?? 3);
const origin = 'http://127.0.0.1:8080';

function tokens(text) {
  return (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((t) => t.length > 1);
}
function sourceText(md) {
  return md.replace(/\]\([^)]*\)/g, ']').replace(/<[^>]+>/g, ' ');
}
function counts(list) {
  const m = new Map();
  for (const t of list) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
function overlap(src, out) {
  const s = counts(src);
  const o = counts(out);
  let hit = 0;
  for (const [t, n] of s) hit += Math.min(n, o.get(t) ?? 0);
  let inSource = 0;
  for (const [t, n] of o) inSource += Math.min(n, s.get(t) ?? 0);
  return { recall: hit / Math.max(1, src.length), precision: inSource / Math.max(1, out.length) };
}
const fences = (md) => (md.match(/^\s*```/gm) ?? []).length / 2;
const tableSeps = (md) => (md.match(/^\s*\|\s*:?-{2,}/gm) ?? []).length;
const headings = (md) => (md.match(/^#{1,6}\s/gm) ?? []).length;

const configs = [
  { name: 'jsdom + Readability', options: { dom: 'jsdom', strategy: 'readability' } },
  { name: 'linkedom + Readability', options: { dom: 'linkedom', strategy: 'readability' } },
  { name: 'jsdom + semantic', options: { dom: 'jsdom', strategy: 'semantic' } },
  { name: 'linkedom + semantic', options: { dom: 'linkedom', strategy: 'semantic' } },
];

for (const flavor of ['plain', 'docusaurus']) {
  const site = renderDocsSite(corpus, { flavor });
  const pages = readCorpus(corpus);
  const bytes = pages.reduce((n, p) => n + Buffer.byteLength(site.get(p.path)), 0);
  console.log(
    `\n### ${flavor} flavour: ${pages.length} pages, ${(bytes / 1024).toFixed(0)} KiB of HTML, ${rounds} rounds\n`,
  );
  console.log(
    '| DOM + strategy | pages/s | ms/page | word recall | word precision | pages with chrome | code blocks | tables | headings |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const expected = { fences: 0, tables: 0, headings: 0 };
  for (const p of pages) {
    expected.fences += fences(p.markdown);
    expected.tables += tableSeps(p.markdown);
    expected.headings += headings(p.markdown) + (/<h1/i.test(p.markdown) ? 1 : 0);
  }
  const defaults = { name: 'linkedom + Docusaurus detection (default)', options: {}, auto: true };
  for (const config of flavor === 'docusaurus' ? [...configs, defaults] : configs) {
    const options = config.auto ? config.options : { ...config.options, docusaurus: false };
    // warm-up
    for (const p of pages.slice(0, 5)) extractContent(site.get(p.path), origin + p.path, options);
    // The fastest round counts: the container is shared, and slower rounds measure the neighbours.
    let ms = Number.POSITIVE_INFINITY;
    let results = [];
    for (let r = 0; r < rounds; r++) {
      results = [];
      const t0 = process.hrtime.bigint();
      for (const p of pages) results.push(extractContent(site.get(p.path), origin + p.path, options));
      ms = Math.min(ms, Number(process.hrtime.bigint() - t0) / 1e6);
    }
    let recall = 0,
      precision = 0,
      chrome = 0,
      f = 0,
      t = 0,
      h = 0;
    pages.forEach((p, i) => {
      const out = results[i].markdown;
      const o = overlap(tokens(sourceText(p.markdown)), tokens(out));
      recall += o.recall;
      precision += o.precision;
      if (CHROME_PHRASES.some((phrase) => out.includes(phrase))) chrome++;
      f += fences(out);
      t += tableSeps(out);
      h += headings(out);
    });
    const n = pages.length;
    const perPage = ms / n;
    console.log(
      `| ${config.name} | ${(1000 / perPage).toFixed(0)} | ${perPage.toFixed(1)} | ${((100 * recall) / n).toFixed(1)}% | ${((100 * precision) / n).toFixed(1)}% | ${chrome}/${n} | ${f}/${expected.fences} | ${t}/${expected.tables} | ${h}/${expected.headings} |`,
    );
  }
}

// Crawl benchmark (not a test). Run after building html, fetcher and this package:
//   node bench/crawl.js [corpusDir] [generatedPages]
// Each scenario runs in its own crawler process (so peak RSS is its own) against a site
// served from a separate server process (so the server's CPU is not counted).
'use strict';
const { fork } = require('node:child_process');
const { requireSharedCorpus, SHARED_CORPUS } = require('../../../bench/shared-corpus');

const corpus = requireSharedCorpus(process.argv[2] ?? SHARED_CORPUS);
const generatedPages = Number(process.argv[3] ?? 10_000);
const role = process.env.KBQA_BENCH_ROLE;

if (role === 'server') runServer();
else if (role === 'crawler') void runCrawler();
else void main();

async function main() {
  const scenarios = [
    {
      name: `fastify-docs site, cold (first crawl in the process)`,
      site: 'docs',
      concurrency: 8,
      maxPages: 1000,
      rounds: 1,
    },
    {
      name: `fastify-docs site, warm (5th crawl in the process)`,
      site: 'docs',
      concurrency: 8,
      maxPages: 1000,
      rounds: 5,
    },
    {
      name: `generated ${generatedPages.toLocaleString('en')}-page site`,
      site: 'generated',
      concurrency: 8,
      maxPages: generatedPages,
    },
  ];
  console.log(`## Crawl benchmark\n`);
  console.log(
    `node ${process.version}, ${require('node:os').cpus().length} CPUs, concurrency 8, default extraction (linkedom + semantic)\n`,
  );
  console.log(
    '| site | pages | skipped | wall s | pages/s | CPU ms/page | peak RSS MiB | markdown KiB/page |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of scenarios) {
    const server = await start('server', { site: scenario.site, corpus, generatedPages });
    const result = await start('crawler', { ...scenario, origin: server.origin });
    server.child.kill();
    console.log(
      `| ${scenario.name} | ${result.pages} | ${result.skipped} | ${(result.wallMs / 1000).toFixed(1)} | ${(result.pages / (result.wallMs / 1000)).toFixed(0)} | ${(result.cpuMs / result.pages).toFixed(1)} | ${(result.peakRss / 1048576).toFixed(0)} | ${(result.markdownBytes / 1024 / result.pages).toFixed(1)} |`,
    );
  }
}

function start(childRole, config) {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, process.argv.slice(2), {
      env: { ...process.env, KBQA_BENCH_ROLE: childRole, KBQA_BENCH_CONFIG: JSON.stringify(config) },
    });
    child.once('message', (message) => resolve({ ...message, child }));
    child.once('error', reject);
    child.once('exit', (code) => code && reject(new Error(`${childRole} exited with ${code}`)));
  });
}

function runServer() {
  const config = JSON.parse(process.env.KBQA_BENCH_CONFIG);
  const http = require('node:http');
  const { renderDocsSite } = require('@kbqa/html/testing');
  const pages = config.site === 'docs' ? renderDocsSite(config.corpus) : undefined;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    const html = pages ? pages.get(path) : generatedPage(path, config.generatedPages);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? '<!doctype html><title>404</title><h1>Not found</h1>');
  });
  server.listen(0, '127.0.0.1', () => process.send({ origin: `http://127.0.0.1:${server.address().port}` }));
}

const WORDS =
  'server route plugin hook request reply schema validation serializer logger decorator encapsulation lifecycle error handler content type parser stream buffer header status payload timeout cluster worker cache token session query param body json typescript'.split(
    ' ',
  );

/** A 10-ary tree of pages: /p/n links to its ten children, a sidebar of sections, a footer. */
function generatedPage(path, total) {
  const match = /^\/p\/(\d+)$/.exec(path === '/' ? '/p/0' : path);
  const n = match ? Number(match[1]) : -1;
  if (n < 0 || n >= total) return undefined;
  let seed = n + 1;
  const word = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2147483648) % WORDS.length];
  const sentence = (k) => Array.from({ length: k }, word).join(' ');
  const children = Array.from({ length: 10 }, (_, i) => n * 10 + i + 1).filter((c) => c < total);
  const sections = Array.from(
    { length: 20 },
    (_, i) => `<li><a href="/p/${i + 1}">Section ${i + 1}</a></li>`,
  ).join('');
  const paragraphs = Array.from({ length: 8 }, () => `<p>${sentence(40)}.</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><title>Page ${n} | Generated Docs</title>
<link rel="canonical" href="/p/${n}"><script>window.x = 1;</script></head><body>
<header><nav><a href="/">Home</a> <a href="/p/1">Guide</a> <a href="https://github.com/example/docs">GitHub</a></nav></header>
<aside class="sidebar"><ul>${sections}</ul></aside>
<main><article><h1>Page ${n}: ${sentence(3)}</h1>
<h2>Overview</h2>${paragraphs}
<h2>Example</h2><pre><code class="language-js">const ${word()} = require('${word()}');
${word()}.${word()}({ ${word()}: true });</code></pre>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>${word()}</td><td>${word()}</td></tr></tbody></table>
<h2>See also</h2><ul>${children.map((c) => `<li><a href="/p/${c}">Page ${c}</a></li>`).join('')}</ul>
</article></main>
<footer><p>Copyright Generated Docs contributors</p></footer>
</body></html>`;
}

async function runCrawler() {
  const config = JSON.parse(process.env.KBQA_BENCH_CONFIG);
  const { SafeFetcher } = require('@kbqa/fetcher');
  const { WebsiteCrawlerLoader } = require('..');
  const host = new URL(config.origin).host;
  const fetcher = new SafeFetcher({
    allowPrivateHosts: [host],
    retries: 0,
    perHostConcurrency: config.concurrency,
  });
  const loader = new WebsiteCrawlerLoader({
    fetcher,
    concurrency: config.concurrency,
    maxPages: config.maxPages,
    maxDepth: 10,
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  let pages = 0;
  let skipped = 0;
  let markdownBytes = 0;
  let cpu0 = process.cpuUsage();
  let t0 = process.hrtime.bigint();
  const crawl = async () => {
    pages = 0;
    skipped = 0;
    markdownBytes = 0;
    cpu0 = process.cpuUsage();
    t0 = process.hrtime.bigint();
    for await (const doc of loader.load({ url: `${config.origin}/` }, context)) {
      pages += 1;
      markdownBytes += Buffer.byteLength(doc.content);
    }
  };
  const context = {
    signal: new AbortController().signal,
    progress: () => undefined,
    skipped: () => {
      skipped += 1;
    },
  };
  for (let round = 0; round < (config.rounds ?? 1); round++) await crawl();
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  process.send(
    { pages, skipped, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRss, markdownBytes },
    () => process.exit(0),
  );
}

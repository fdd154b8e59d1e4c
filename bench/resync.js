// Issue 12 benchmark: re-sync of an unchanged 1,000-page local site against its first ingestion,
// through the service (in this process, so the embedding calls can be counted), with the tiny
// generated embedding model: pages/s of both, and the chunks the re-sync embedded (must be 0).
// Half the pages send an ETag (a re-sync gets 304s), half do not (a re-sync compares content).
'use strict';
const { createHash } = require('node:crypto');
const http = require('node:http');
const { rmSync } = require('node:fs');
const path = require('node:path');
const { DIST, tempDir, corpusVocabulary, run } = require('./lib');

const PAGES = 999; // plus the home page: 1,000, the crawler's default page limit

function pageHtml(i, words) {
  let seed = i * 7919 + 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const para = () =>
    Array.from(
      { length: 60 },
      () => words[Math.floor(Math.pow(rand(), 2) * Math.min(words.length, 3000))],
    ).join(' ');
  return (
    `<!doctype html><html><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>` +
    `<h2>Overview</h2><p>${para()}</p><h2>Usage</h2><p>${para()}</p><h2>Options</h2><p>${para()}</p>` +
    `<a href="/">home</a></main></body></html>`
  );
}

async function main() {
  const words = corpusVocabulary();
  const pages = new Map();
  pages.set(
    '/',
    `<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1><p>${words.slice(0, 80).join(' ')}</p>${Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">page ${i}</a>`).join(' ')}</main></body></html>`,
  );
  for (let i = 0; i < PAGES; i++) pages.set(`/p/${i}`, pageHtml(i, words));
  let requests = 0;
  let notModified = 0;
  const site = http.createServer((req, res) => {
    requests++;
    const p = new URL(req.url, 'http://x').pathname;
    const html = pages.get(p);
    if (!html) {
      res.writeHead(404).end();
      return;
    }
    const withEtag = p === '/' || Number(p.split('/').pop()) % 2 === 0;
    const etag = `"${createHash('sha1').update(html).digest('hex').slice(0, 16)}"`;
    if (withEtag && req.headers['if-none-match'] === etag) {
      notModified++;
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(withEtag ? { etag } : {}) });
    res.end(html);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', () => r(undefined)));
  const host = `127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (site.address()).port}`;
  const dataDir = tempDir('kbqa-bench-resync-');
  const { makeTinyModel } = require(
    path.join(DIST, '..', '..', '..', 'packages', 'embedder', 'dist', 'testing'),
  );
  const modelDir = await makeTinyModel(path.join(dataDir, 'models'));
  const { loadConfig } = require(path.join(DIST, 'config', 'config'));
  const { createApp } = require(path.join(DIST, 'bootstrap'));
  const { ProjectsService } = require(path.join(DIST, 'projects', 'projects.service'));
  const { EmbeddingService } = require(path.join(DIST, 'retrieval', 'embedding.service'));
  const { IngestionService } = require(path.join(DIST, 'ingestion', 'ingestion.service'));
  const config = loadConfig(
    { KBQA_DATA_DIR: dataDir, KBQA_EMBED_MODEL: modelDir, KBQA_OFFLINE: '1', KBQA_ALLOW_PRIVATE_HOSTS: host },
    dataDir,
  );
  const app = await createApp(config, { logger: false });
  try {
    const embedding = app.get(EmbeddingService);
    if ((await embedding.settled()) !== 'hybrid') throw new Error('the tiny model did not load');
    const project = await app.get(ProjectsService).createProject('bench');
    const ingestion = app.get(IngestionService);
    const run = async () => {
      const embeddedBefore = embedding.embeddedChunks;
      const requestsBefore = requests;
      const notModifiedBefore = notModified;
      const t0 = process.hrtime.bigint();
      const taskId = await ingestion.ingestData(project.id, { url: `http://${host}/` });
      let status;
      for (;;) {
        status = await ingestion.status(taskId, project.id);
        if (status.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 5));
      }
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      if (!status.result.success) throw new Error(status.result.error);
      return {
        seconds,
        result: status.result,
        embedded: embedding.embeddedChunks - embeddedBefore,
        requests: requests - requestsBefore,
        notModified: notModified - notModifiedBefore,
      };
    };
    const first = await run();
    const resync = await run();
    const pagesOf = (r) => r.result.added + r.result.updated + r.result.unchanged;
    console.log('## Re-sync of an unchanged site (issue 12)\n');
    console.log(
      `ingestData twice on the same local site of ${PAGES + 1} pages (website-crawler; half the pages send an ETag, ` +
        'half do not), in-process service with the tiny generated embedding model; request to task completion.\n',
    );
    console.log(
      '| run | pages | seconds | pages/s | added | updated | unchanged | removed | 304 answers | chunks embedded |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const [name, r] of /** @type {const} */ ([
      ['first ingestion', first],
      ['re-sync, nothing changed', resync],
    ])) {
      console.log(
        `| ${name} | ${pagesOf(r)} | ${r.seconds.toFixed(2)} | ${(pagesOf(r) / r.seconds).toFixed(0)} | ${r.result.added} | ` +
          `${r.result.updated} | ${r.result.unchanged} | ${r.result.removed} | ${r.notModified} | ${r.embedded} |`,
      );
    }
    const speedup = first.seconds / resync.seconds;
    console.log(
      `\nRe-sync ${speedup.toFixed(1)}× faster than the first ingestion; it embedded ${resync.embedded} chunks. ` +
        'Targets: at least 10× faster, 0 chunks embedded.',
    );
  } finally {
    await app.close();
    site.close();
    site.closeAllConnections();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

run(main);

// Issue 5 benchmark through the service: ingestData (website-crawler) on the local fastify-docs site
// rendered with navigation, sidebar and footer, from the request to the task's completion (crawl,
// extract, chunk, index). The site is served from this process; the service runs in its own.
'use strict';
const { rmSync } = require('node:fs');
const { renderDocsSite, startSiteServer } = require('../packages/html/dist/testing');
const { tempDir, cli, startServer, post, peakRssMb, waitForTask, run } = require('./lib');
const { requireSharedCorpus } = require('./shared-corpus');

const CORPUS = requireSharedCorpus();

async function main() {
  const site = await startSiteServer({ pages: renderDocsSite(CORPUS) });
  const dataDir = tempDir('kbqa-bench-crawl-');
  const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '', KBQA_ALLOW_PRIVATE_HOSTS: site.host };
  const project = cli(['projects', 'create', 'bench'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  const runs = [];
  try {
    for (let i = 0; i < 3; i++) {
      const t0 = process.hrtime.bigint();
      const res = await post(server.baseUrl, '/v1/ingestData', { api_key: key, url: `${site.origin}/` });
      await waitForTask(server.baseUrl, res.body.task_id, 5);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const pages = (await post(server.baseUrl, '/v1/getSources', { api_key: key })).body.length;
      runs.push({ seconds, pages });
    }
    const rss = peakRssMb(server.pid);
    console.log('## Website crawl through the service (issue 5)\n');
    console.log(
      'ingestData (website-crawler, concurrency 8) on the local fastify-docs site, request to task completion: crawl, extract, chunk and index.\n',
    );
    console.log('| run | pages | seconds | pages/s |');
    console.log('|---|---|---|---|');
    runs.forEach((r, i) =>
      console.log(
        `| ${i === 0 ? 'first (cold process)' : `repeat ${i}`} | ${r.pages} | ${r.seconds.toFixed(2)} | ${(r.pages / r.seconds).toFixed(0)} |`,
      ),
    );
    console.log(`\nService peak RSS: ${rss.toFixed(0)} MB. Target: ≥ 50 pages/s.`);
  } finally {
    await server.stop();
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

run(main);

// Issue 2 benchmark: 10,000 raw documents of about 2 KB through ingestDocuments in batches of 500,
// lexical indexing only. Reports documents/s from the first request to the last task's completion,
// and the server's peak RSS.
'use strict';
const { rmSync } = require('node:fs');
const { tempDir, cli, startServer, post, peakRssMb, waitForTask, run, syntheticDocument } = require('./lib');

async function main() {
  const total = Number(process.env.BENCH_DOCS || 10000);
  const batch = 500;
  const dataDir = tempDir('kbqa-bench-ingest-');
  const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '' };
  const project = cli(['projects', 'create', 'bench'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  try {
    const batches = [];
    for (let b = 0; b < total / batch; b++) {
      batches.push(Array.from({ length: batch }, (_, i) => syntheticDocument(b * batch + i)));
    }
    const started = process.hrtime.bigint();
    const taskIds = [];
    for (const documents of batches) {
      const res = await post(server.baseUrl, '/v1/ingestDocuments', { api_key: key, documents });
      if (res.status !== 200)
        throw new Error(`ingestDocuments answered ${res.status}: ${JSON.stringify(res.body)}`);
      taskIds.push(res.body.task_id);
    }
    for (const id of taskIds) await waitForTask(server.baseUrl, id);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const rss = peakRssMb(server.pid);
    const rate = total / seconds;
    console.log('## Raw-document ingestion (issue 2)\n');
    console.log(
      `${total} documents of ~2 KB via ingestDocuments in batches of ${batch}, lexical only, in-process queue.\n`,
    );
    console.log('| documents/s | total s | peak RSS (MB) | target |');
    console.log('|---|---|---|---|');
    console.log(
      `| ${rate.toFixed(0)} | ${seconds.toFixed(2)} | ${rss.toFixed(0)} | ≥ 1,000 docs/s, ≤ 400 MB |`,
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

run(main);

// Issue 6 benchmark: ingestData type github on a local bare repository holding the fastify-docs
// corpus, served over smart HTTP by `git http-backend`; files/s and seconds from the ingestData
// request to the task's completion, through the whole service (clone, convert, chunk, index).
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { buildRepo, serve } = require('../packages/loader-github/bench/ingest-repo.js');
const { tempDir, cli, startServer, post, waitForTask, run } = require('./lib');

async function main() {
  const root = mkdtempSync(path.join(tmpdir(), 'kbqa-bench-gitrepo-'));
  const git = await serve(buildRepo(root));
  const base = `http://127.0.0.1:${git.address().port}`;
  const dataDir = tempDir('kbqa-bench-github-');
  const env = {
    KBQA_DATA_DIR: dataDir,
    REDIS_URL: '',
    KBQA_GIT_BASE_URLS: base,
    KBQA_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${git.address().port}`,
  };
  const project = cli(['projects', 'create', 'bench'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  const rows = [];
  try {
    for (let run = 0; run < 3; run++) {
      const t0 = process.hrtime.bigint();
      const res = await post(server.baseUrl, '/v1/ingestData', {
        api_key: key,
        url: `${base}/bench/docs`,
        type: 'github',
      });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      await waitForTask(server.baseUrl, res.body.task_id, 5);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const files = (await post(server.baseUrl, '/v1/getSources', { api_key: key })).body.length;
      rows.push({ seconds, files });
    }
    rows.sort((a, b) => a.seconds - b.seconds);
    const median = rows[1];
    console.log('## Repository ingestion (issue 6)\n');
    console.log(
      'ingestData type github on a local bare repository of fastify-docs, served by git http-backend on 127.0.0.1; request to task completion, median of 3.\n',
    );
    console.log('| files | seconds | files/s |');
    console.log('|---|---|---|');
    console.log(
      `| ${median.files} | ${median.seconds.toFixed(3)} | ${(median.files / median.seconds).toFixed(0)} |`,
    );
  } finally {
    await server.stop();
    git.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

run(main);

#!/usr/bin/env node
// Benchmark of GithubLoader (from dist): clones a local bare repository built from a docs corpus
// over smart HTTP (git http-backend on 127.0.0.1) and reads every documentation file.
// Usage: node bench/ingest-repo.js [--corpus DIR] [--runs N] [--copies N]
//   --copies N puts N copies of the corpus in the repository (docs/copy-<i>/...) for a larger load.
// Run `pnpm --filter @kbqa/loader-github run build` first. Measures the loader only: chunking,
// embedding and indexing are measured at the API level.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { cpSync, mkdtempSync, mkdirSync, rmSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { GithubLoader } = require('../dist');
const { requireSharedCorpus, SHARED_CORPUS } = require('../../../bench/shared-corpus');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const corpus = resolve(arg('corpus', SHARED_CORPUS));
const runs = Number(arg('runs', '5'));
const copies = Number(arg('copies', '1'));

const gitEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@kbqa.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@kbqa.invalid',
};
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: gitEnv, stdio: 'ignore' });

function buildRepo(root) {
  requireSharedCorpus(corpus);
  const work = join(root, 'work');
  mkdirSync(work);
  git(work, 'init', '-q', '-b', 'main');
  if (copies === 1) cpSync(corpus, work, { recursive: true });
  else for (let i = 0; i < copies; i++) cpSync(corpus, join(work, 'docs', `copy-${i}`), { recursive: true });
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'corpus');
  const bare = join(root, 'repos', 'bench', 'docs.git');
  mkdirSync(join(root, 'repos', 'bench'), { recursive: true });
  git(root, 'clone', '-q', '--bare', work, bare);
  return join(root, 'repos');
}

function serve(projectRoot) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...gitEnv,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] || '',
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
          : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(/** @type {import('node:stream').Writable} */ (cgi.stdin));
    let head = Buffer.alloc(0);
    let done = false;
    cgi.stdout?.on('data', (chunk) => {
      if (done) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      done = true;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') res.statusCode = parseInt(value, 10);
        else if (name) res.setHeader(name, value);
      }
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'kbqa-bench-git-'));
  const server = await serve(buildRepo(root));
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  const loader = new GithubLoader({
    baseUrls: [base],
    // The local git server: its one address, which the loader pins git to.
    guard: { resolve: async () => [{ address: '127.0.0.1', family: /** @type {const} */ (4) }] },
    path: process.env.PATH,
  });
  const results = [];
  try {
    for (let run = 0; run < runs; run++) {
      let cloneEnd = 0;
      let files = 0;
      let bytes = 0;
      const skipped = [];
      const start = process.hrtime.bigint();
      const context = {
        signal: new AbortController().signal,
        progress: (p) => {
          if (p.step === 'CLONING' && p.current === 1)
            cloneEnd = Number(process.hrtime.bigint() - start) / 1e9;
        },
        skipped: (item) => skipped.push(item),
      };
      for await (const doc of loader.load({ url: `${base}/bench/docs` }, context)) {
        files += 1;
        bytes += Buffer.byteLength(doc.content);
      }
      const total = Number(process.hrtime.bigint() - start) / 1e9;
      results.push({ total, clone: cloneEnd, files, bytes, skipped: skipped.length });
    }
  } finally {
    server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const sorted = [...results].sort((a, b) => a.total - b.total);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    JSON.stringify(
      {
        corpus,
        copies,
        runs,
        files: median.files,
        skipped: median.skipped,
        markdownBytes: median.bytes,
        medianTotalSeconds: Number(median.total.toFixed(3)),
        medianCloneSeconds: Number(median.clone.toFixed(3)),
        filesPerSecond: Number((median.files / median.total).toFixed(1)),
        allTotalSeconds: results.map((r) => Number(r.total.toFixed(3))),
        node: process.version,
      },
      null,
      2,
    ),
  );
}

module.exports = { buildRepo, serve };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

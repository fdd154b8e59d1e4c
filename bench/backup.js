// Issue 38 benchmark: `kbqa backup` and `kbqa restore` of a SQLite deployment of BENCH_DOCS raw
// documents of about 2 KB (default 10,000; lexical only): time and file size, backup taken while
// the service runs and answers chats, then restored into an empty directory.
'use strict';
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { rmSync, statSync } = require('node:fs');
const path = require('node:path');
const { tempDir, cli, startServer, post, waitForTask, DIST, run, syntheticDocument } = require('./lib');

async function timed(args, env) {
  const started = process.hrtime.bigint();
  await promisify(execFile)(process.execPath, [path.join(DIST, 'cli.js'), ...args], {
    env: { ...process.env, ...env },
  });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function main() {
  const total = Number(process.env.BENCH_DOCS || 10000);
  const root = tempDir('kbqa-bench-backup-');
  const env = { KBQA_DATA_DIR: path.join(root, 'data'), REDIS_URL: '' };
  const project = cli(['projects', 'create', 'bench'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  let chats = 0;
  try {
    for (let b = 0; b < total / 500; b++) {
      const documents = Array.from({ length: 500 }, (_, i) =>
        syntheticDocument(b * 500 + i, { sections: false }),
      );
      const res = await post(server.baseUrl, '/v1/ingestDocuments', { api_key: key, documents });
      await waitForTask(server.baseUrl, res.body.task_id);
    }
    const dbBytes = statSync(path.join(root, 'data', 'kbqa.sqlite')).size;
    const file = path.join(root, 'kbqa.backup');
    let chatting = true;
    const load = (async () => {
      while (chatting) {
        await post(server.baseUrl, '/v1/serviceChat', {
          api_key: key,
          question: 'How does a hook see the reply?',
        });
        chats++;
      }
    })();
    const backupS = await timed(['backup', file], env);
    chatting = false;
    await load;
    const backupBytes = statSync(file).size;
    const restoreS = await timed(['restore', file], { ...env, KBQA_DATA_DIR: path.join(root, 'restored') });
    // The command line's own start (loading the application), which both times above include.
    const startS = await timed(['backup', '--help'], env);
    console.log('## Backup and restore (issue 38)\n');
    console.log(
      `${total} raw documents of ~2 KB (lexical only); \`kbqa backup\` while the service runs, then \`kbqa restore\` into an empty directory. Times include the CLI's start.\n`,
    );
    console.log(
      '| database MB | backup MB | backup s | restore s | CLI start alone s | chats answered during the backup |',
    );
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| ${(dbBytes / 1e6).toFixed(1)} | ${(backupBytes / 1e6).toFixed(1)} | ${backupS.toFixed(2)} | ${restoreS.toFixed(2)} | ${startS.toFixed(2)} | ${chats} |`,
    );
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

run(main);

// Issue 39 benchmark: versioned documentation. The repository's Tidepool fixture served in three
// versions (3.x, the default, at /docs/…; 2.x and 1.x under /docs/2.x/ and /docs/1.x/), each copy
// marked with its version in one line, as most pages barely change between versions. Twelve
// questions about the fixture, each with the page that answers it, are asked with no version and
// with version 1.x, against the same corpus ingested without version metadata (as kbqa did before)
// and with it (as the loaders now stamp it). Reported: hit@1 and hit@5 of the expected page in the
// expected version, and the share of answers whose sources hold one page in two versions.
'use strict';
const { readFileSync, readdirSync, rmSync, statSync } = require('node:fs');
const path = require('node:path');
const { tempDir, cli, startServer, post, waitForTask, run: runMain } = require('./lib');

const CORPUS = path.join(__dirname, '..', 'fixtures', 'docs-corpus');
const SITE = 'https://docs.tidepool.example/docs/';
const VERSIONS = [
  { name: '3.x', prefix: '', isDefault: true },
  { name: '2.x', prefix: '2.x/', isDefault: false },
  { name: '1.x', prefix: '1.x/', isDefault: false },
];
const QUESTIONS = [
  { q: 'How do I add a decorator to the app?', page: 'reference/decorators' },
  { q: 'When does the onRequest hook run?', page: 'reference/hooks' },
  { q: 'How do I configure the logger?', page: 'reference/logging' },
  { q: 'How do I test a route with app.inject()?', page: 'guides/testing' },
  { q: 'How are plugin options passed to a plugin?', page: 'reference/plugins' },
  { q: 'How do I set the status code of a reply?', page: 'reference/reply' },
  { q: 'What replaces Express middleware?', page: 'reference/middleware' },
  { q: 'How do I run the app in a container?', page: 'guides/deployment/containers' },
  { q: 'How do I connect to a database?', page: 'guides/database' },
  { q: 'What changed when migrating to v3?', page: 'guides/migrating-to-v3' },
  { q: 'How do I validate the request body with a schema?', page: 'reference/validation' },
  { q: 'How do I declare a route with its full options?', page: 'reference/routes' },
];

function pages(dir = CORPUS) {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return pages(file);
    return name.endsWith('.md') ? [path.relative(CORPUS, file).replace(/\.md$/, '')] : [];
  });
}

function documents(withVersions) {
  return pages().flatMap((page) =>
    VERSIONS.map((v) => ({
      source: `${SITE}${v.prefix}${page}`,
      content: `${readFileSync(path.join(CORPUS, `${page}.md`), 'utf8')}\n\n> This page documents Tidepool ${v.name}.\n`,
      ...(withVersions ? { metadata: { version: v.name, version_default: v.isDefault ? 1 : 0 } } : {}),
    })),
  );
}

/** The page and version of a source link. */
function pageOf(link) {
  const rest = link.slice(SITE.length);
  const v = VERSIONS.find((x) => x.prefix && rest.startsWith(x.prefix)) ?? VERSIONS[0];
  return { version: v.name, page: rest.slice(v.prefix.length) };
}

async function run(withVersions) {
  const dataDir = tempDir('kbqa-bench-versions-');
  const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '', KBQA_EMBED_MODEL: 'none' };
  const project = cli(['projects', 'create', 'bench'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  try {
    const res = await post(server.baseUrl, '/v1/ingestDocuments', {
      api_key: key,
      documents: documents(withVersions),
    });
    if (res.status !== 200) throw new Error(`ingestDocuments answered ${res.status}`);
    await waitForTask(server.baseUrl, res.body.task_id);
    const rows = [];
    for (const asked of [undefined, '1.x']) {
      const expectedVersion = asked ?? '3.x';
      let hit1 = 0;
      let hit5 = 0;
      let duplicated = 0;
      for (const { q, page } of QUESTIONS) {
        const reply = await post(server.baseUrl, '/v1/serviceChat', {
          api_key: key,
          question: q,
          shouldStream: false,
          ...(asked ? { version: asked } : {}),
        });
        if (reply.status !== 200) throw new Error(`serviceChat answered ${reply.status}`);
        const found = reply.body.sources.slice(0, 5).map((s) => pageOf(s.link));
        const right = (f) => f.page === page && f.version === expectedVersion;
        if (found[0] && right(found[0])) hit1++;
        if (found.some(right)) hit5++;
        // Several passages of one page are fine; one page in two versions is the duplicate.
        const versionsOf = new Map();
        for (const f of found)
          versionsOf.set(f.page, new Set([...(versionsOf.get(f.page) ?? []), f.version]));
        if ([...versionsOf.values()].some((v) => v.size > 1)) duplicated++;
      }
      rows.push({ asked: asked ?? 'none (default 3.x)', hit1, hit5, duplicated });
    }
    return rows;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const n = QUESTIONS.length;
  console.log('## Versioned documentation (issue 39)\n');
  console.log(
    `The docs fixture (${pages().length} pages) in three versions, ${n} questions, lexical retrieval. ` +
      '"Without" ingests the same pages with no version metadata (kbqa before versions); "with" stamps ' +
      'each copy as the loaders now do. hit@k: the expected page in the expected version among the first k ' +
      'sources; duplicates: answers whose first 5 sources hold one page in two versions (target 0).\n',
  );
  console.log('| version handling | version asked | hit@1 | hit@5 | answers with duplicate pages |');
  console.log('|---|---|---|---|---|');
  for (const withVersions of [false, true]) {
    for (const r of await run(withVersions)) {
      console.log(
        `| ${withVersions ? 'with' : 'without'} | ${r.asked} | ${(r.hit1 / n).toFixed(2)} | ${(r.hit5 / n).toFixed(2)} | ${(r.duplicated / n).toFixed(2)} |`,
      );
    }
  }
}

runMain(main);

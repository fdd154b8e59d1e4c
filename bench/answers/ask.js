// Diagnostic for issue 14: ingests fastify-docs as bench/answers/quality.js does, then asks the
// questions given and prints, for each, the sources (link, relevance_score, first words) and the
// whole answer. A question of the form "first => follow" is asked as a two-turn pair: the follow-up
// with history holding the first turn and its actual answer, as the quality benchmark sends it.
//
// ASK_DUMP=/tmp/asked.json also writes each question's history and full sources there.
// ASK_CORPUS=vite asks about vite-docs instead (the development Vite set's corpus; never ask the
// unseen sets' questions with it).
//
// Usage: node bench/answers/ask.js "What is a decorator?" "How do I enable logging? => and in dev?"
'use strict';
const { writeFileSync } = require('node:fs');
const { tempDir, cli, startServer, post, waitForTask } = require('../lib');
const { requireSharedCorpus, corpusPages, viteCorpus, vitePages } = require('../shared-corpus');

const VITE = process.env.ASK_CORPUS === 'vite';
const PAGES = VITE ? vitePages(viteCorpus()) : corpusPages(requireSharedCorpus());

async function main() {
  const questions = process.argv.slice(2);
  if (questions.length === 0)
    throw new Error('usage: node bench/answers/ask.js "question" ["first => follow"]');
  const env = { KBQA_DATA_DIR: tempDir('kbqa-bench-ask-'), REDIS_URL: '', KBQA_EMBED_MODEL: 'none' };
  const project = cli(['projects', 'create', 'ask'], env);
  const key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  const server = await startServer(env);
  try {
    const res = await post(server.baseUrl, '/v1/ingestDocuments', {
      api_key: key,
      documents: PAGES.map((p) => ({ source: p.id, content: p.content })),
    });
    await waitForTask(server.baseUrl, res.body.task_id, 20);
    const ask = async (question, history) => {
      const chat = await post(server.baseUrl, '/v1/serviceChat', {
        api_key: key,
        question,
        history,
        shouldStream: false,
      });
      if (chat.status !== 200) throw new Error(`serviceChat ${chat.status}: ${JSON.stringify(chat.body)}`);
      return chat.body;
    };
    const dumped = [];
    for (const line of questions) {
      const [first, follow] = line.split('=>').map((s) => s.trim());
      let history = [];
      if (follow) {
        const reply = await ask(first, []);
        history = [{ prompt: first, response: reply.answer?.text ?? '' }];
      }
      const body = await ask(follow ?? first, history);
      console.log(`\n## ${line}`);
      for (const s of body.sources ?? []) {
        const words = String(s.content ?? '')
          .replace(/\s+/g, ' ')
          .slice(0, 90);
        console.log(`  ${s.relevance_score.toFixed(2)} ${s.link} | ${words}`);
      }
      console.log(`\n${body.answer?.text ?? ''}`);
      dumped.push({ question: follow ?? first, history, sources: body.sources ?? [] });
    }
    // ASK_DUMP=file.json keeps each question's history and full sources, to replay composition offline.
    if (process.env.ASK_DUMP) writeFileSync(process.env.ASK_DUMP, JSON.stringify(dumped, null, 1));
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

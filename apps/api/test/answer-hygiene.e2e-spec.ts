import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { lintAnswer } from '@kbqa/answer';
import { DOCS_CORPUS_DIR, readDocsCorpusFile } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';

/** Every page of the repository's docs corpus, as `reference/hooks.md`. */
function corpusPages(dir = DOCS_CORPUS_DIR): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return corpusPages(path);
    return name.endsWith('.md') ? [relative(DOCS_CORPUS_DIR, path).split('\\').join('/')] : [];
  });
}

/**
 * Questions made from the corpus's own section headings in the ways readers ask (what is, how do
 * I, is there a default), so the check covers every page rather than a hand-picked few.
 */
function questionsFrom(pages: string[]): string[] {
  const out: string[] = [];
  for (const page of pages) {
    const headings = [...readDocsCorpusFile(page).matchAll(/^#{2,3}\s+(.+)$/gm)].map((m) =>
      (m[1] ?? '').replace(/[`*]/g, '').trim(),
    );
    headings.forEach((h, i) => {
      const forms = [`What is ${h}?`, `How do I use ${h}?`, `What is the default for ${h}?`];
      out.push(forms[i % forms.length] as string);
    });
  }
  return out;
}

/**
 * Pages written to trip the extractive answer: sentences that announce a block the chunk does not
 * carry, list introductions whose items are names only, the same sentence on two pages.
 */
const TRAPS = [
  {
    source: 'traps/workers.md',
    content: [
      '# Worker pools',
      '',
      'Worker pools restart crashed workers automatically. A worker pool is declared using the following construction:',
      '',
      '## Worker pool sizing',
      '',
      'The worker pool size defaults to the number of cores. Worker pools make it possible to:',
      '',
      '- `drain`',
      '- `resize`',
      '',
      'Worker pools shut down gracefully on SIGTERM.',
    ].join('\n'),
  },
  {
    source: 'traps/queues.md',
    content: [
      '# Queues',
      '',
      'Worker pools shut down gracefully on SIGTERM. Queues hold jobs for worker pools as shown below.',
      '',
      'Queue retries back off exponentially.',
    ].join('\n'),
  },
];

describe('Answer hygiene over the fixture corpus (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  let traps: TestProject;
  const pages = corpusPages();

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('hygiene');
    const documents = pages.map((page) => ({ source: page, content: readDocsCorpusFile(page) }));
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
    await t.waitForTask(res.body.task_id);
    traps = await t.createProject('hygiene-traps');
    const trapped = await t
      .post('/v1/ingestDocuments', { api_key: traps.serverKey, documents: TRAPS })
      .expect(200);
    await t.waitForTask(trapped.body.task_id);
  });
  afterAll(() => t.close());

  let trapAnswers = 0;
  const lint = async (project: TestProject, question: string): Promise<string[]> => {
    const res = await t
      .post('/v1/serviceChat', { api_key: project.serverKey, question, history: [], shouldStream: false })
      .expect(200);
    if (!(res.body.answer.text as string).startsWith("I couldn't find")) trapAnswers++;
    const citable = new Set((res.body.sources as unknown[]).map((_, i) => i + 1));
    return lintAnswer(res.body.answer.text as string, citable).map(
      (v) => `${question} -> ${v.rule}: ${v.text}`,
    );
  };

  it('keeps announcing, cut and repeated sentences out of answers about pages full of them', async () => {
    const questions = [
      'How do I declare a worker pool?',
      'What do worker pools make possible?',
      'How do worker pools shut down?',
      'What is the worker pool size?',
      'How do queues work with worker pools?',
    ];
    const violations: string[] = [];
    for (const question of questions) violations.push(...(await lint(traps, question)));
    expect(violations).toEqual([]);
    // The guard drops sentences, not whole answers: only a question whose one matching sentence
    // announced what the page does not show ("declare a worker pool") may end up not covered.
    expect(trapAnswers).toBeGreaterThanOrEqual(questions.length - 1);
  });

  it('answers every heading question without a hygiene violation', async () => {
    const questions = questionsFrom(pages);
    expect(questions.length).toBeGreaterThan(60);
    const violations: string[] = [];
    let answered = 0;
    for (const question of questions) {
      const res = await t
        .post('/v1/serviceChat', { api_key: p.serverKey, question, history: [], shouldStream: false })
        .expect(200);
      const text: string = res.body.answer.text;
      const sources: unknown[] = res.body.sources;
      if (!text.startsWith("I couldn't find")) answered++;
      const citable = new Set(sources.map((_, i) => i + 1));
      for (const v of lintAnswer(text, citable)) violations.push(`${question} -> ${v.rule}: ${v.text}`);
    }
    // Most heading questions are answerable: an empty answer would pass the linter trivially.
    expect(answered).toBeGreaterThan(questions.length / 2);
    expect(violations).toEqual([]);
  });
});

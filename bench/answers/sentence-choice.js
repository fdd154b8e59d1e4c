// Sentence choice of the extractive answer (issue 14): given the passages retrieval found for a
// question, is the unit (sentence or code block) stating its key fact among the first units of an
// ordering? Compares the generator's own score, from which its rules pick, with other orderings
// of the same units:
// - a logistic regression over the generator's unit features (score, relevance, source rank,
//   place in the section, heading overlap, inline code, question type ...), trained on the
//   development sets only: for each development set without that set, for the unseen sets on
//   all of them;
// - with --embed <model>: the cosine of the question's and the unit's vectors from that embedding
//   model, and its mean with the generator's score (both scaled to the question's best unit);
// - with --rerank <model>: a cross-encoder's score of (question, unit), and its mean with the
//   generator's score.
// A question counts when one of the first k units holds one of its key facts (as quality.js
// compares them). "Any unit" is the ceiling: a fact in some unit of the passages at all.
//
// The passages are the ones the service gives the generator: quality.js asks every set's questions
// of a service started with KBQA_ANSWER_TRACE and the trace is read here (--trace FILE reuses one).
// The unseen sets (held-out, dev5, and vite when the vite corpus is there) are reported as figures
// only.
//
// Usage: pnpm turbo run build && node bench/answers/sentence-choice.js [--trace FILE]
//          [--embed <model>] [--rerank <model>] [--models-dir <dir>] [--offline]
//   <model>: a hub id (downloaded into --models-dir, default ./data/models) or a local model folder.
'use strict';
const path = require('node:path');
const { ANSWER_SETS, UNSEEN_SETS, readTrace: readTraceOf, setNames } = require('./replay');

const ROOT = path.join(__dirname, '..', '..');
const { ExtractiveAnswerGenerator, analyzeQuestion } = require(path.join(ROOT, 'packages/answer/dist'));

// The sets present here (vite only with its corpus: quality.js cannot ask it otherwise).
const SETS = Object.fromEntries(setNames().map((set) => [set, ANSWER_SETS[set]]));
const UNSEEN = UNSEEN_SETS;
const KS = [1, 2, 3, 4, 6];
const TYPES = ['definition', 'how-to', 'comparison', 'option', 'troubleshooting', 'yes-no', 'other'];
/** "X is …", "X lets you …": a sentence stating what something is or does. */
const STATES = /^[^.]{0,80}\b(?:is|are|lets|allows|enables|provides|returns|sets|defines)\b/i;

function flag(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const norm = (s) => String(s).toLowerCase().replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

/** The generator inputs of every question, from a trace file or a fresh quality.js run (replay.js). */
function readTrace() {
  return readTraceOf(flag('trace'));
}

/** The features the logistic ordering reads of one unit (the first is the intercept). */
function features(u, best, type) {
  const code = u.kind === 'code' ? 1 : 0;
  const spans = Math.min((u.text.match(/`[^`]+`/g) ?? []).length, 5) / 5;
  const t = TYPES.indexOf(type);
  return [
    1,
    u.score / Math.max(best, 1e-9),
    u.score,
    u.relevance,
    u.sourceIndex / 5,
    u.sourceIndex === 0 ? 1 : 0,
    Math.min(u.sectionIndex, 10) / 10,
    u.sectionIndex === 0 ? 1 : 0,
    code,
    u.headingOverlap,
    u.namesAskedId ? 1 : 0,
    spans,
    Math.min(u.text.length, 1500) / 1500,
    STATES.test(u.text) ? 1 : 0,
    u.bodyMatched ? 1 : 0,
    u.ownMatched ? 1 : 0,
    u.sourceScore,
    u.position / 30,
    ...TYPES.map((_, i) => (i === t ? 1 : 0)),
    ...TYPES.flatMap((_, i) => (i === t ? [code, spans, u.relevance] : [0, 0, 0])),
  ];
}

/** One entry per answerable single question of every set. */
function questions() {
  const byQuestion = new Map();
  for (const [set, file] of Object.entries(SETS)) {
    for (const item of require(path.join(__dirname, file))) {
      if (item.type !== 'not-covered') byQuestion.set(item.q, { ...item, set });
    }
  }
  const generator = new ExtractiveAnswerGenerator();
  const out = [];
  const seen = new Set();
  for (const line of readTrace().trim().split('\n')) {
    const input = JSON.parse(line);
    const item = byQuestion.get(input.question);
    if (!item || input.context || seen.has(item.q)) continue;
    seen.add(item.q);
    const units = generator.scoredUnits(input.question, input.sources, input.context, input.unknownWords);
    const best = units.reduce((m, u) => Math.max(m, u.score), 0);
    const type = analyzeQuestion(input.question).type;
    const facts = item.facts.map(norm);
    out.push({
      set: item.set,
      question: input.question,
      units: units.map((u) => ({
        text: u.text,
        x: features(u, best, type),
        score: u.score / Math.max(best, 1e-9),
        y: facts.some((f) => norm(u.text).includes(f)) ? 1 : 0,
      })),
    });
  }
  const missing = [...byQuestion.keys()].filter((q) => !seen.has(q));
  if (missing.length > 0) throw new Error(`no trace for ${missing.length} questions, e.g. "${missing[0]}"`);
  return out;
}

/** Class-balanced logistic regression: 300 full-batch steps of 0.5, L2 1e-3, from zero weights. */
function train(data) {
  const rows = data.flatMap((q) => q.units);
  const dim = rows[0].x.length;
  const positives = rows.filter((r) => r.y).length;
  const balance = (y) => rows.length / (2 * (y ? positives : rows.length - positives));
  const w = new Array(dim).fill(0);
  for (let step = 0; step < 300; step++) {
    const grad = new Array(dim).fill(0);
    for (const r of rows) {
      let z = 0;
      for (let i = 0; i < dim; i++) z += r.x[i] * w[i];
      const g = balance(r.y) * (1 / (1 + Math.exp(-z)) - r.y);
      for (let i = 0; i < dim; i++) grad[i] += g * r.x[i];
    }
    for (let i = 0; i < dim; i++) w[i] -= 0.5 * (grad[i] / rows.length + 1e-3 * w[i]);
  }
  return (u) => u.x.reduce((s, v, i) => s + v * w[i], 0);
}

function recall(data, order, k) {
  const hits = data.filter((q) =>
    [...q.units]
      .sort((a, b) => order(b, q) - order(a, q))
      .slice(0, k)
      .some((u) => u.y),
  ).length;
  return hits / data.length;
}

/** Scales a question's model scores to [0, 1] by its best unit (so they mix with the generator's). */
function scaled(values) {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return values.map((v) => (max > min ? (v - min) / (max - min) : 0));
}

async function modelScores(data) {
  const embed = flag('embed');
  const rerank = flag('rerank');
  if (!embed && !rerank) return [];
  const { TransformersEmbedder } = require(path.join(ROOT, 'packages/embedder/dist'));
  const modelsDir = path.resolve(flag('models-dir') ?? path.join('data', 'models'));
  const offline = process.argv.includes('--offline');
  const orderings = [];
  // Code fences and their language tags say nothing a model reads as meaning.
  const plain = (u) => u.text.replace(/^[`~]{3,}[^\n]*\n?|[`~]{3,}\s*$/gm, '').slice(0, 1000);
  if (embed) {
    const embedder = await TransformersEmbedder.load({ model: embed, modelsDir, offline });
    try {
      for (const q of data) {
        const [query] = await embedder.embed([q.question], 'query');
        const vectors = await embedder.embed(q.units.map(plain), 'passage');
        const cos = vectors.map((v) => v.reduce((s, x, i) => s + x * query[i], 0));
        scaled(cos).forEach((c, i) => (q.units[i].embed = c));
      }
    } finally {
      await embedder.close();
    }
    orderings.push(
      [`cosine, ${embed}`, (u) => u.embed],
      [`mean of the cosine and the generator score`, (u) => (u.embed + u.score) / 2],
    );
  }
  if (rerank) {
    const reranker = await TransformersEmbedder.load({
      model: rerank,
      rerankModel: rerank,
      rerankOnly: true,
      modelsDir,
      offline,
    });
    try {
      const status = await reranker.rerankerReady();
      if (status.status !== 'ready') throw new Error(`reranker ${rerank}: ${JSON.stringify(status)}`);
      for (const q of data) {
        const scores = await reranker.rerank(q.question, q.units.map(plain));
        scaled(scores).forEach((s, i) => (q.units[i].rerank = s));
      }
    } finally {
      await reranker.close();
    }
    orderings.push(
      [`cross-encoder, ${rerank}`, (u) => u.rerank],
      [`mean of the cross-encoder and the generator score`, (u) => (u.rerank + u.score) / 2],
    );
  }
  return orderings;
}

async function main() {
  const data = questions().filter((q) => q.units.length > 0);
  const tuned = data.filter((q) => !UNSEEN.has(q.set));
  const unseen = data.filter((q) => UNSEEN.has(q.set));
  // Each development set is ordered by a regression trained without it; the unseen sets by one
  // trained on every development set.
  const learned = new Map();
  for (const set of new Set(tuned.map((q) => q.set)))
    learned.set(set, train(tuned.filter((q) => q.set !== set)));
  const all = train(tuned);
  const orderings = [
    ['generator score (the learned unit scorer, what the rules pick from)', (u) => u.score],
    ['logistic regression over its features', (u, q) => (learned.get(q.set) ?? all)(u)],
    ...(await modelScores(data)),
  ];
  const header = KS.map((k) => `@${k}`).join(' / ');
  console.log('## Sentence choice of the extractive answer (issue 14)\n');
  console.log(
    `Fact-holding unit among the first k units (${header}); ${tuned.length} development and ${unseen.length} unseen questions.\n`,
  );
  console.log('| ordering | development sets | unseen sets |');
  console.log('|---|---|---|');
  for (const [name, order] of orderings) {
    const row = (group) => KS.map((k) => recall(group, order, k).toFixed(2)).join(' / ');
    console.log(`| ${name} | ${row(tuned)} | ${row(unseen)} |`);
  }
  const ceiling = (group) => (group.filter((q) => q.units.some((u) => u.y)).length / group.length).toFixed(2);
  console.log(`| any unit (ceiling) | ${ceiling(tuned)} | ${ceiling(unseen)} |`);
  console.log(
    `\nThe unseen sets are ${[...UNSEEN].filter((set) => set in SETS).join(', ')}. ` +
      'What the orderings are, the rows of a small pretrained sentence ' +
      'encoder and the command for real models (--embed, --rerank): docs/retrieval-experiments.md, "eighth answers session".',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Trains the extractive generator's learned unit scorer (issue 33) and judges it against the hand
// score, on the generator inputs a traced quality.js run recorded (replay.js).
//
// Data: every answerable question of the development sets (main, dev, dev2, dev3, dev4, dev6);
// its units (sentences and code blocks of the passages retrieval gave) with their named features
// (ScoredUnit.features of @kbqa/answer) turned into the scorer's inputs (unitScorerInputs); a unit
// is a positive when it holds one of the question's key facts. The unseen sets (held-out, dev5,
// vite) are never trained on and never looked into: only their figures are printed.
//
// Model: a linear score over the inputs, trained listwise: for each question, a softmax over its
// units, maximising the probability of its fact-holding ones (the generator picks within a
// question, so units are only ever compared with their own question's), with L2 regularisation,
// by full-batch gradient descent from zero weights. Small, deterministic, and its weights are
// readable next to the input names.
//
// Judgement, end to end: key fact of the generator's answers, replayed, with the hand score and
// with the learned one. Each development set is answered by a scorer trained without it
// (leave-one-set-out); the unseen sets by one trained on every development set, the one shipped.
//
// Usage: pnpm turbo run build && node bench/answers/train-scorer.js [--trace FILE] [--write] [--ablate-features]
//   --ablate-features  also trains the scorer without each feature in turn and prints the key-fact change
//   --write   stores the scorer trained on every development set in
//             packages/answer/src/extractive/unit-scorer.weights.json (rebuild the package after).
'use strict';
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { UNSEEN_SETS, norm, readTrace, tracedQuestions, scoreReplay } = require('./replay');

const ROOT = path.join(__dirname, '..', '..');
const answer = require(path.join(ROOT, 'packages/answer/dist'));
const WEIGHTS_FILE = path.join(ROOT, 'packages/answer/src/extractive/unit-scorer.weights.json');
const STEPS = Number(process.env.STEPS || 400);
const RATE = Number(process.env.RATE || 0.5);
const L2 = Number(process.env.L2 || 1e-3);

function flag(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The training rows of one question: each unit's inputs and whether it holds a key fact. */
function rowsOf({ item, input }, generator) {
  const units = generator.scoredUnits(input.question, input.sources, input.context, input.unknownWords);
  const type = answer.analyzeQuestion(input.question).type;
  const facts = (item.facts || []).map(norm);
  return units.map((u) => ({
    x: answer.unitScorerInputs(u.features, type, u.kind),
    y: facts.some((f) => norm(u.text).includes(f)) ? 1 : 0,
  }));
}

/** Listwise softmax regression over the questions' units; returns the weights. Inputs in `off` stay at 0. */
function train(questions, off = new Set()) {
  const groups = questions.filter((q) => q.rows.length > 1 && q.rows.some((r) => r.y));
  const dim = answer.UNIT_SCORER_INPUTS.length;
  const w = new Array(dim).fill(0);
  for (let step = 0; step < STEPS; step++) {
    const grad = new Array(dim).fill(0);
    for (const { rows } of groups) {
      const z = rows.map((r) => r.x.reduce((s, v, i) => s + v * w[i], 0));
      const top = Math.max(...z);
      const e = z.map((v) => Math.exp(v - top));
      const all = e.reduce((a, b) => a + b, 0);
      const pos = rows.reduce((a, r, i) => a + (r.y ? e[i] : 0), 0);
      rows.forEach((r, i) => {
        const g = e[i] / all - (r.y ? e[i] / pos : 0);
        for (let d = 0; d < dim; d++) grad[d] += g * r.x[d];
      });
    }
    for (let d = 0; d < dim; d++) if (!off.has(d)) w[d] -= RATE * (grad[d] / groups.length + L2 * w[d]);
  }
  return { inputs: [...answer.UNIT_SCORER_INPUTS], weights: w.map((v) => Math.round(v * 1e4) / 1e4) };
}

function main() {
  const entries = tracedQuestions(readTrace(flag('trace')));
  const dev = entries.filter((e) => !UNSEEN_SETS.has(e.set) && e.item.type !== 'not-covered');
  // The features do not depend on the scorer; one generator reads every question's units.
  const reader = new answer.ExtractiveAnswerGenerator({ scorer: 'hand' });
  for (const e of dev) e.rows = rowsOf(e, reader);
  const devSets = [...new Set(dev.map((e) => e.set))];
  const shipped = train(dev);
  const compose = (options) => {
    const generator = new answer.ExtractiveAnswerGenerator(options);
    return (i) => generator.compose(i.question, i.sources, i.context, i.unknownWords).join('');
  };
  const hand = scoreReplay(entries, compose({ scorer: 'hand' }));
  const learned = {};
  for (const set of devSets) {
    const own = entries.filter((e) => e.set === set);
    const model = train(dev.filter((e) => e.set !== set));
    Object.assign(learned, scoreReplay(own, compose({ scorer: 'learned', unitScorer: model })));
  }
  const unseen = entries.filter((e) => UNSEEN_SETS.has(e.set));
  Object.assign(learned, scoreReplay(unseen, compose({ scorer: 'learned', unitScorer: shipped })));

  const sets = Object.keys(hand);
  const pooled = (result, group) =>
    group.reduce((a, s) => a + result[s].fact, 0) / group.reduce((a, s) => a + result[s].n, 0);
  const seenSets = sets.filter((s) => !UNSEEN_SETS.has(s));
  const unseenSets = sets.filter((s) => UNSEEN_SETS.has(s));
  console.log('## Learned unit scorer of the extractive answer\n');
  console.log(
    `Key fact of the replayed answers with the hand score and with the learned scorer (listwise ` +
      `softmax regression over ${answer.UNIT_SCORER_INPUTS.length} inputs, trained on the ` +
      `${dev.length} answerable development questions; each development set answered by a scorer ` +
      `trained without it, the unseen sets by the one trained on all of them).\n`,
  );
  console.log(
    `| scorer | ${sets.join(' | ')} | development, pooled | unseen, pooled | not covered answered |`,
  );
  console.log(`|---|${sets.map(() => '---|').join('')}---|---|---|`);
  for (const [name, r] of [
    ['hand', hand],
    ['learned', learned],
  ]) {
    const invented = sets.reduce((a, s) => a + r[s].invented, 0);
    console.log(
      `| ${name} | ${sets.map((s) => r[s].keyFact.toFixed(2)).join(' | ')} | ${pooled(r, seenSets).toFixed(2)} | ${pooled(r, unseenSets).toFixed(2)} | ${invented} |`,
    );
  }
  console.log('\nWeights of the scorer trained on every development set:\n');
  console.log('| input | weight |\n|---|---|');
  shipped.inputs.forEach((name, i) => console.log(`| ${name} | ${shipped.weights[i]} |`));
  if (process.argv.includes('--ablate-features')) ablateFeatures(entries, dev, devSets, compose, hand);
  if (process.argv.includes('--write')) {
    const file = {
      about:
        'Weights of the extractive generator\u2019s learned unit scorer, written by bench/answers/train-scorer.js',
      trainedOn: devSets,
      questions: dev.length,
      ...shipped,
    };
    writeFileSync(WEIGHTS_FILE, JSON.stringify(file, null, 2) + '\n');
    console.error(`wrote ${path.relative(process.cwd(), WEIGHTS_FILE)}`);
  }
}

/**
 * Each feature left out of training (its input and the interactions built on it held at 0), the
 * scorer trained again as above, and the key-fact change against the scorer with every input.
 */
function ablateFeatures(entries, dev, devSets, compose, hand) {
  const evaluate = (off) => {
    const out = {};
    for (const set of devSets) {
      const model = train(
        dev.filter((e) => e.set !== set),
        off,
      );
      Object.assign(
        out,
        scoreReplay(
          entries.filter((e) => e.set === set),
          compose({ unitScorer: model }),
        ),
      );
    }
    const unseen = entries.filter((e) => UNSEEN_SETS.has(e.set));
    Object.assign(out, scoreReplay(unseen, compose({ unitScorer: train(dev, off) })));
    return out;
  };
  const pooled = (result, group) =>
    group.reduce((a, s) => a + result[s].fact, 0) / group.reduce((a, s) => a + result[s].n, 0);
  const sets = Object.keys(hand);
  const seen = sets.filter((s) => !UNSEEN_SETS.has(s));
  const unseen = sets.filter((s) => UNSEEN_SETS.has(s));
  const full = evaluate(new Set());
  const delta = (x, y) => {
    const d = Math.round((x - y) * 100) / 100;
    return d === 0 ? '0' : `${d > 0 ? '+' : ''}${d.toFixed(2)}`;
  };
  console.log('\n### Features left out of the learned scorer\n');
  console.log(
    'Key fact with the scorer trained without one feature (its input and the interactions built on it), minus ' +
      'key fact with every input; development sets leave-one-set-out, unseen sets by the scorer trained on all.\n',
  );
  console.log(`| left out | ${sets.join(' | ')} | development, pooled | unseen, pooled |`);
  console.log(`|---|${sets.map(() => '---|').join('')}---|---|`);
  console.log(
    `| nothing (key fact) | ${sets.map((s) => full[s].keyFact.toFixed(2)).join(' | ')} | ${pooled(full, seen).toFixed(2)} | ${pooled(full, unseen).toFixed(2)} |`,
  );
  for (const name of answer.FEATURE_NAMES) {
    const off = new Set(
      answer.UNIT_SCORER_INPUTS.map((input, i) => (input.split('×').includes(name) ? i : -1)).filter(
        (i) => i >= 0,
      ),
    );
    const r = evaluate(off);
    console.log(
      `| ${name} | ${sets.map((s) => delta(r[s].keyFact, full[s].keyFact)).join(' | ')} | ${delta(pooled(r, seen), pooled(full, seen))} | ${delta(pooled(r, unseen), pooled(full, unseen))} |`,
    );
  }
}

main();

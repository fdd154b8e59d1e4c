// The ablation of the extractive generator (quality.js --ablate, or on its own with --trace FILE):
// for every post-pass, strategy and score feature the generator names, the key-fact change on each
// set when that one alone is switched off (ExtractiveAnswerGeneratorOptions.disabled), replayed on
// the generator inputs a traced quality.js run recorded (replay.js). A rule earns its place when
// switching it off costs on the sets it was not tuned on; docs/answers.md keeps the table.
'use strict';
const path = require('node:path');
const { UNSEEN_SETS, readTrace, tracedQuestions, scoreReplay } = require('./replay');

const ROOT = path.join(__dirname, '..', '..');

/** The names the generator can switch off, by kind. */
function ablatable(answer) {
  return [
    ...(answer.PASS_NAMES ?? []).map((name) => ['pass', name]),
    ...(answer.STRATEGY_NAMES ?? []).map((name) => ['strategy', name]),
    ...(answer.FEATURE_NAMES ?? []).map((name) => ['feature', name]),
  ];
}

/** Prints the ablation table for the trace's questions; returns its rows. */
function printAblation(traceText) {
  const answer = require(path.join(ROOT, 'packages/answer/dist'));
  const entries = tracedQuestions(traceText);
  const replay = (options) => {
    const generator = new answer.ExtractiveAnswerGenerator(options);
    return scoreReplay(entries, (i) =>
      generator.compose(i.question, i.sources, i.context, i.unknownWords).join(''),
    );
  };
  const full = replay({});
  const sets = Object.keys(full);
  const seen = sets.filter((s) => !UNSEEN_SETS.has(s));
  const unseen = sets.filter((s) => UNSEEN_SETS.has(s));
  const pooled = (result, group) => {
    const n = group.reduce((a, s) => a + result[s].n, 0);
    return group.reduce((a, s) => a + result[s].fact, 0) / n;
  };
  const delta = (x, y) => {
    const d = Math.round((x - y) * 100) / 100;
    return d === 0 ? '0' : `${d > 0 ? '+' : ''}${d.toFixed(2)}`;
  };
  console.log('\n### Ablation\n');
  console.log(
    'Key fact with one rule switched off, minus key fact with every rule on, per set (replayed on the ' +
      'traced generator inputs; answerable questions; a not-covered question answered counts in the last ' +
      'column). Pooled columns weigh sets by their question count.\n',
  );
  console.log(
    `| kind | switched off | ${sets.join(' | ')} | development, pooled | unseen, pooled | not covered answered |`,
  );
  console.log(`|---|---|${sets.map(() => '---|').join('')}---|---|---|`);
  const fmt = (x) => x.toFixed(2);
  console.log(
    `| – | nothing (key fact) | ${sets.map((s) => fmt(full[s].keyFact)).join(' | ')} | ${fmt(pooled(full, seen))} | ${fmt(pooled(full, unseen))} | ${sets.reduce((a, s) => a + full[s].invented, 0)} |`,
  );
  const rows = [];
  for (const [kind, name] of ablatable(answer)) {
    const off = replay({ disabled: [name] });
    const row = {
      kind,
      name,
      sets: Object.fromEntries(sets.map((s) => [s, off[s].keyFact - full[s].keyFact])),
      seen: pooled(off, seen) - pooled(full, seen),
      unseen: pooled(off, unseen) - pooled(full, unseen),
      invented: sets.reduce((a, s) => a + off[s].invented, 0),
    };
    rows.push(row);
    console.log(
      `| ${kind} | ${name} | ${sets.map((s) => delta(off[s].keyFact, full[s].keyFact)).join(' | ')} | ${delta(pooled(off, seen), pooled(full, seen))} | ${delta(pooled(off, unseen), pooled(full, unseen))} | ${row.invented} |`,
    );
  }
  return rows;
}

module.exports = { printAblation };

if (require.main === module) {
  const i = process.argv.indexOf('--trace');
  printAblation(readTrace(i >= 0 ? process.argv[i + 1] : undefined));
}

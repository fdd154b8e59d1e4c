// Context recall (issue 35 item 4): of the answerable questions of every answers set, the share
// whose key facts (all of them, or one for `any`, as quality.js scores an answer) are inside the
// context a language model would be given (buildModelContext of @kbqa/answer) at each token budget.
// No model runs: the contexts are built from the generator inputs a traced quality.js run recorded
// (replay.js), follow-ups' second turns included. Beside the budgets, the same share for the whole
// retrieved chunks (the ceiling: what the context is cut from), for every unit of them (no budget:
// what reading the chunks into units keeps), and for the extractive answer itself.
//
// The unseen sets (held-out, dev5, vite2, the held-out and vite2 follow-ups) are report-only: their
// misses are never printed and no choice is tuned on them.
//
// Usage: node bench/answers/context-recall.js [--trace FILE] [--budgets 250,500,1000,2000]
//          [--verbose] [--steps]
//   --trace    a trace of `quality.js` with KBQA_ANSWER_TRACE over every set and follow-up set;
//              without it, such a run is made first (a few minutes)
//   --budgets  the budgets measured (the default budget, DEFAULT_MODEL_CONTEXT_TOKENS, always is)
//   --verbose  development questions whose facts are in the chunks but not in the context at the
//              default budget (stderr); never for the unseen sets
//   --steps    also the pooled recall with each step of the builder (MODEL_CONTEXT_STEPS) switched off
'use strict';
const path = require('node:path');
const {
  UNSEEN_SETS,
  FOLLOW_UP_UNSEEN,
  NOT_COVERED,
  statesFacts,
  readTrace,
  tracedQuestions,
  tracedFollowUps,
} = require('./replay');

const answer = require(path.join(__dirname, '..', '..', 'packages/answer/dist'));
const arg = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const DEFAULT = answer.DEFAULT_MODEL_CONTEXT_TOKENS;
// The issue's budgets and the default, whatever it is.
const BUDGETS = [
  ...new Set([...(arg('--budgets') ?? '250,500,1000,2000').split(',').map(Number), DEFAULT]),
].sort((a, b) => a - b);
const verbose = process.argv.includes('--verbose');
const unseen = (set) => UNSEEN_SETS.has(set) || FOLLOW_UP_UNSEEN.has(set);
const fmt = (x) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(2));

function main() {
  const trace = readTrace(arg('--trace'), { followUps: true });
  const entries = [...tracedQuestions(trace), ...tracedFollowUps(trace)].filter(
    ({ item }) => item.type !== 'not-covered',
  );
  const extractive = new answer.ExtractiveAnswerGenerator();
  const contextText = (context) => context.passages.map((p) => p.text).join('\n\n');
  const measure = (build) => {
    const rows = {};
    for (const entry of entries) {
      const row = (rows[entry.set] ??= { n: 0, hit: 0, tokens: 0 });
      const { text, tokens } = build(entry.input);
      row.n++;
      row.tokens += tokens;
      if (statesFacts(entry.item, text)) row.hit++;
      else if (build.label !== undefined) entry.misses.push(build.label);
    }
    return rows;
  };
  const atBudget = (budgetTokens, disabled = []) => {
    const build = (input) => {
      const context = answer.buildModelContext(input, { budgetTokens, extractive, disabled });
      return { text: contextText(context), tokens: context.tokens };
    };
    // Only the builder as shipped records its misses (for --verbose).
    if (disabled.length === 0) build.label = budgetTokens;
    return build;
  };
  const chunks = (input) => {
    const text = input.sources.map((s) => `${answer.sourceHeader(s)}\n${s.content}`).join('\n\n');
    return { text, tokens: answer.estimateTokens(text) };
  };
  const extracted = (input) => {
    const text = extractive
      .compose(input.question, input.sources, input.context, input.unknownWords)
      .join('');
    return { text, tokens: answer.estimateTokens(text), notCovered: text.startsWith(NOT_COVERED) };
  };
  for (const entry of entries) entry.misses = [];
  const columns = [
    ['chunks (ceiling)', measure(chunks)],
    ['all units', measure(atBudget(Infinity))],
    ['extractive answer', measure(extracted)],
    ...BUDGETS.map((b) => [`${b} tokens${b === DEFAULT ? ' (default)' : ''}`, measure(atBudget(b))]),
  ];
  const sets = [...new Set(entries.map((e) => e.set))];
  const groups = [
    ['development, pooled', sets.filter((s) => !unseen(s))],
    ['unseen, pooled', sets.filter(unseen)],
  ];
  const pool = (rows, group) => {
    const n = group.reduce((a, s) => a + rows[s].n, 0);
    return {
      n,
      hit: group.reduce((a, s) => a + rows[s].hit, 0),
      tokens: group.reduce((a, s) => a + rows[s].tokens, 0),
    };
  };

  console.log('## Context recall (issue 35)\n');
  console.log(
    'Share of the answerable questions of each answers set whose key facts (all, or one for `any`, as ' +
      '`quality.js` scores an answer) are in the text: the whole retrieved chunks (the ceiling), every unit ' +
      'read from them (no budget), the extractive answer, and the context `buildModelContext` of @kbqa/answer ' +
      'builds at each budget (tokens estimated as characters / 4, `[n] title — link` lines included). Replayed ' +
      "from a traced `quality.js` run, follow-ups' second turns included; no model runs. Unseen sets report only. " +
      'Last row: mean tokens of the text given.\n',
  );
  console.log(`| set | n | ${columns.map(([name]) => name).join(' | ')} |`);
  console.log(`|---|---|${columns.map(() => '---|').join('')}`);
  const line = (label, pick) => {
    const cells = columns.map(([, rows]) => pick(rows));
    const { n } = cells[0];
    console.log(`| ${label} | ${n} | ${cells.map((c) => fmt(c.n ? c.hit / c.n : null)).join(' | ')} |`);
  };
  for (const set of sets) line(unseen(set) ? `${set} (unseen)` : set, (rows) => rows[set]);
  for (const [label, group] of groups) line(`**${label}**`, (rows) => pool(rows, group));
  const all = pool(columns[0][1], sets);
  console.log(
    `| mean tokens | ${all.n} | ${columns
      .map(([, rows]) => {
        const p = pool(rows, sets);
        return Math.round(p.tokens / p.n);
      })
      .join(' | ')} |`,
  );

  if (process.argv.includes('--steps')) {
    console.log('\n### Each step of the builder switched off (pooled recall)\n');
    console.log(`| step off | ${BUDGETS.map((b) => `${b}: development / unseen`).join(' | ')} |`);
    console.log(`|---|${BUDGETS.map(() => '---|').join('')}`);
    for (const step of ['(none)', ...answer.MODEL_CONTEXT_STEPS]) {
      const cells = BUDGETS.map((b) => {
        const rows = measure(atBudget(b, step === '(none)' ? [] : [step]));
        return groups
          .map(([, group]) => {
            const p = pool(rows, group);
            return fmt(p.hit / p.n);
          })
          .join(' / ');
      });
      console.log(`| ${step} | ${cells.join(' | ')} |`);
    }
  }

  if (verbose) {
    const budget = DEFAULT;
    for (const { set, item, input, misses } of entries) {
      if (unseen(set) || !misses.includes(budget) || !statesFacts(item, chunks(input).text)) continue;
      console.error(
        `- [${set}] ${item.q ?? `${item.first} → ${item.follow}`}: ${JSON.stringify(item.facts)}`,
      );
    }
  }
}

main();

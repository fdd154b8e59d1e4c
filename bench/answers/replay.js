// Replaying the answers sets without a service: quality.js, run with KBQA_ANSWER_TRACE, records what
// the answer generator was given for every question (the question, the conversation topic, the
// words no page has, the sources); this module reads that trace back and scores any compose
// function on it, in-process, in about a second. The ablation (quality.js --ablate) and the unit
// scorer's training (train-scorer.js) are built on it. Follow-ups are left out: their second turn
// depends on the first turn's answer, which a replay would change.
'use strict';
const { execFileSync } = require('node:child_process');
const { readFileSync, rmSync } = require('node:fs');
const path = require('node:path');
const { tempDir } = require('../lib');
const { SKIPPED, viteCorpus } = require('../shared-corpus');

/** Every single-question set, its file, and whether it is unseen (never tuned on). */
const ANSWER_SETS = {
  main: 'questions.json',
  dev: 'questions-dev.json',
  dev2: 'questions-dev2.json',
  dev3: 'questions-dev3.json',
  dev4: 'questions-dev4.json',
  dev6: 'questions-dev6.json',
  'held-out': 'questions-holdout.json',
  dev5: 'questions-dev5.json',
  vite: 'questions-vite.json',
  vite2: 'questions-vite2.json',
};
const UNSEEN_SETS = new Set(['held-out', 'dev5', 'vite2']);
const NOT_COVERED = "I couldn't find this in the documentation.";

const norm = (s) => String(s).toLowerCase().replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

/** Whether an answer states the item's key facts (all of them, or one for `any`), as quality.js scores. */
function statesFacts(item, text) {
  const t = norm(text);
  const missing = (item.facts || []).filter((f) => !t.includes(norm(f)));
  return item.any ? missing.length < (item.facts || []).length : missing.length === 0;
}

/** The set names present here: the vite sets only with their corpus (quality.js cannot ask it otherwise). */
function setNames() {
  return Object.keys(ANSWER_SETS).filter((s) => !s.startsWith('vite') || viteCorpus());
}

/**
 * The trace of a quality.js run over every single-question set (and the follow-up sets with
 * `{ followUps: true }`): the file given, or a fresh run's (a service started with
 * KBQA_ANSWER_TRACE). Exits with SKIPPED when the corpus is missing.
 */
function readTrace(given, { followUps = false } = {}) {
  if (given) return readFileSync(given, 'utf8');
  const sets = setNames();
  if (followUps) sets.push('follow-ups', ...(viteCorpus() ? ['vite-follow-ups', 'vite2-follow-ups'] : []));
  const dir = tempDir('kbqa-answers-trace-');
  const file = path.join(dir, 'trace.jsonl');
  try {
    try {
      execFileSync(process.execPath, [path.join(__dirname, 'quality.js'), '--sets', sets.join(',')], {
        env: { ...process.env, KBQA_ANSWER_TRACE: file },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    } catch (error) {
      if (error.status === SKIPPED) process.exit(SKIPPED);
      throw error;
    }
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A question of a set with the generator input the trace holds for it; the scripts that replay
 * them add what they compute per entry (`misses`, `rows`).
 * @typedef {{ set: string, item: any, input: any, misses?: string[], rows?: any[] }} TracedEntry
 */

/**
 * One entry per question of every set present, with the generator input the trace holds for it:
 * `{ set, item, input }`. A question asked in two sets has one input, used by both.
 */
function tracedQuestions(traceText) {
  const inputs = new Map();
  for (const line of traceText.trim().split('\n')) {
    if (!line) continue;
    const input = JSON.parse(line);
    // A follow-up's second turn carries the conversation's topic; single questions do not.
    if (input.context || inputs.has(input.question)) continue;
    inputs.set(input.question, input);
  }
  /** @type {TracedEntry[]} */
  const out = [];
  for (const set of setNames()) {
    for (const item of require(path.join(__dirname, ANSWER_SETS[set]))) {
      const input = inputs.get(item.q);
      if (!input) throw new Error(`the trace has no input for "${item.q}" (${set})`);
      out.push({ set, item, input });
    }
  }
  return out;
}

/** The follow-up sets: file, and whether a pair marked `heldout` goes to an unseen set of its own. */
const FOLLOW_UP_SETS = [
  { set: 'follow-ups', heldout: 'follow-ups held-out', file: 'followups.json', after: 'fastify' },
  { set: 'vite follow-ups', heldout: 'vite follow-ups', file: 'followups-vite.json', after: 'vite' },
  { set: 'vite2 follow-ups', heldout: 'vite2 follow-ups', file: 'followups-vite2.json', after: 'vite2' },
];
const FOLLOW_UP_UNSEEN = new Set(['follow-ups held-out', 'vite2 follow-ups']);

/**
 * The follow-up pairs with key facts, with the generator input the trace holds for their second
 * turn: `{ set, item, input }`. A follow-up's words ("and the preview server?") are no key to its
 * input, so the trace is read in the order quality.js asks: the fastify single sets, the fastify
 * pairs (first turn, follow-up), then each vite set and its pairs. It must come from a run of every
 * set with follow-ups (readTrace with `{ followUps: true }`); a trace of fewer sets throws.
 */
function tracedFollowUps(traceText) {
  const lines = traceText
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const single = (names) =>
    names.reduce((n, set) => n + require(path.join(__dirname, ANSWER_SETS[set])).length, 0);
  const fastify = Object.keys(ANSWER_SETS).filter((s) => !s.startsWith('vite'));
  /** @type {TracedEntry[]} */
  const out = [];
  let at = single(fastify);
  for (const { set, heldout, file, after } of FOLLOW_UP_SETS) {
    if (after !== 'fastify') {
      if (!setNames().includes(after)) break;
      at += single([after]);
    }
    for (const pair of require(path.join(__dirname, file))) {
      const first = lines[at];
      const follow = lines[at + 1];
      if (first?.question !== pair.first.trim() || !follow)
        throw new Error(`the trace is not of a run of every set with follow-ups (at "${pair.first}")`);
      at += 2;
      if (pair.facts?.length) out.push({ set: pair.heldout ? heldout : set, item: pair, input: follow });
    }
  }
  return out;
}

/**
 * Scores `compose(input) -> answer text` on every set: key fact over the answerable questions,
 * and not-covered questions answered "not covered" / invented. `{ [set]: { n, keyFact, nc, invented } }`.
 */
function scoreReplay(entries, compose) {
  const out = {};
  for (const { set, item, input } of entries) {
    const row = (out[set] ??= { n: 0, fact: 0, ncN: 0, nc: 0, invented: 0 });
    const text = compose(input);
    if (item.type === 'not-covered') {
      row.ncN++;
      if (text.trim().startsWith(NOT_COVERED)) row.nc++;
      else row.invented++;
      continue;
    }
    row.n++;
    if (statesFacts(item, text)) row.fact++;
  }
  for (const row of Object.values(out)) row.keyFact = row.n ? row.fact / row.n : null;
  return out;
}

module.exports = {
  ANSWER_SETS,
  UNSEEN_SETS,
  NOT_COVERED,
  norm,
  statesFacts,
  setNames,
  readTrace,
  tracedQuestions,
  tracedFollowUps,
  FOLLOW_UP_UNSEEN,
  scoreReplay,
};

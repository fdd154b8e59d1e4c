// KBQA_LLM=local mechanics (issue 35): load time, time to first token, tokens a second and memory
// of a model through LocalLlm, and the same prompt again to show what the cached system prompt
// saves. Without --model it measures the generated tiny model (random weights: the figures are
// the runtime's overhead, not a real model's speed); `--model <file.gguf>` measures a real one.
// Then an estimate of the time to first token of the default model from published CPU figures.
// Prints a markdown section. Run after `pnpm build`.
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const path = require('node:path');
const { LocalLlm, DEFAULT_LOCAL_MODEL, localModelProfile } = require('../dist');
const { writeTinyGguf } = require('../dist/testing');

const modelAt = process.argv.indexOf('--model');
const threadsAt = process.argv.indexOf('--threads');
const MAX_TOKENS = 128;

// Prompt evaluation on a CPU as issue 35 summarizes llama.cpp's published figures: a 1.1B model
// reads about 170-340 prompt tokens a second on an 8-core desktop, roughly 40-80 on two cores, and
// a 0.5B model about twice that. Estimates, to be replaced by `--model` runs on real hardware.
const PROMPT_TOKENS_PER_SECOND = {
  '1.1B': { 2: [40, 80], 8: [170, 340] },
  '0.5B': { 2: [80, 160], 8: [340, 680] },
};

const SYSTEM = [
  'You are a documentation assistant. Answer the question using only the numbered documentation sources below.',
  'Cite the source of every statement with its number in square brackets, like [1] or [2][3].',
  'If the sources do not contain the answer, say plainly that the documentation does not cover it.',
].join('\n');
const SOURCES = Array.from(
  { length: 5 },
  (_, i) =>
    `[${i + 1}] Install guide, part ${i + 1}\n` +
    'To install the server, download the package, run the installer and set the port in the configuration file. '.repeat(
      3,
    ),
).join('\n\n');

async function measure(llm, question) {
  const messages = [
    { role: 'system', content: `${SYSTEM}\n\n${SOURCES}` },
    { role: 'user', content: question },
  ];
  const before = llm.usage;
  const started = performance.now();
  let first;
  let pieces = 0;
  for await (const _piece of llm.generate(messages, { maxTokens: MAX_TOKENS })) {
    first ??= performance.now() - started;
    pieces++;
  }
  const total = performance.now() - started;
  const after = llm.usage;
  const output = after.outputTokens - before.outputTokens;
  return {
    promptTokens: after.inputTokens - before.inputTokens,
    ttftMs: first ?? total,
    tokensPerSecond: output / ((total - (first ?? 0)) / 1000 || 1),
    output,
    pieces,
  };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-llm-bench-'));
  try {
    const file = modelAt >= 0 ? path.resolve(process.argv[modelAt + 1]) : await writeTinyGguf(dir);
    const threads = threadsAt >= 0 ? Number(process.argv[threadsAt + 1]) : undefined;
    const rssBefore = process.memoryUsage().rss;
    const loadStarted = performance.now();
    const llm = await LocalLlm.load({ modelPath: file, contextTokens: 4096, threads });
    const loadMs = performance.now() - loadStarted;
    const rssLoaded = process.memoryUsage().rss;
    try {
      const cold = await measure(llm, 'How do I install the server?');
      const warm = await measure(llm, 'Which port does the server use?');
      const rssAfter = process.memoryUsage().rss;
      const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;
      const row = (name, m) =>
        `| ${name} | ${m.promptTokens} | ${m.ttftMs.toFixed(0)} ms | ${m.tokensPerSecond.toFixed(0)} | ${m.output} |`;
      const profile = localModelProfile(DEFAULT_LOCAL_MODEL);
      // A real model's tokenizer reads English prose at about 4 characters a token.
      const systemTokens = Math.round(SYSTEM.length / 4);
      const perQuestionTokens = Math.round((SOURCES.length + 'How do I install the server?'.length) / 4);
      // Prompt reading is compute-bound: a model with more parameters reads proportionally slower.
      const scale = profile ? 0.5 / profile.parametersB : 1;
      const estimate = (cores) => {
        const [low, high] = PROMPT_TOKENS_PER_SECOND['0.5B'][cores].map((r) => Math.round(r * scale));
        const range = (n) => `${(n / high).toFixed(1)}–${(n / low).toFixed(1)} s`;
        return `| ${cores} | ${low}–${high} | ${range(systemTokens + perQuestionTokens)} | ${range(perQuestionTokens)} |`;
      };
      const lines = [
        '## local-llm',
        '',
        `Model: ${modelAt >= 0 ? path.basename(file) : 'the generated tiny llama model (2 layers, width 64, random weights)'}` +
          `, ${llm.info.architecture}, threads ${threads ?? `node-llama-cpp's default (${cpus().length} cores here)`}. ` +
          `Loaded in ${loadMs.toFixed(0)} ms; resident memory ${mb(rssBefore)} before, ${mb(rssLoaded)} loaded, ${mb(rssAfter)} after two answers.`,
        '',
        '| answer | prompt tokens read | time to first token | tokens/s | tokens |',
        '| --- | --- | --- | --- | --- |',
        row('first (cold cache)', cold),
        row('second (system prompt and sources cached, new question)', warm),
        '',
        `Estimated time to first token of the default model (${profile ? profile.source : DEFAULT_LOCAL_MODEL}, ` +
          `Q4_K_M) for this prompt (about ${systemTokens} tokens of system prompt and ${perQuestionTokens} of sources ` +
          'and question at 4 characters a token), from prompt-reading rates of 0.5B models on a CPU (issue 35’s ' +
          `summary of llama.cpp's published figures, scaled to ${profile ? profile.parametersB : 0.5}B parameters; ` +
          'not measured here). Later answers read only their sources ' +
          'and question: the system prompt stays cached.',
        '',
        '| cores | prompt tokens/s | first answer | later answers |',
        '| --- | --- | --- | --- |',
        estimate(2),
        estimate(8),
        '',
        'Prompt token counts of the table above are the tiny model’s tokenizer (bytes for most words); a real',
        'model’s tokenizer reads the same text in fewer tokens. Run with `--model <file.gguf>` to measure one.',
      ];
      console.log(lines.join('\n'));
    } finally {
      await llm.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

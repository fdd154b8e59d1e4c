// Embedding throughput (issue 3): the generated tiny model through the real worker-thread path,
// on real chunks of ../shared/corpora/fastify-docs, plus an estimate for the default model
// (all-MiniLM-L6-v2, about 24 MFLOP per token) from the matrix-multiply rate onnxruntime reaches
// on this machine. Prints a markdown section. Run after `pnpm build`.
'use strict';
const { mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { onnx } = require('onnx-proto');
const { TransformersEmbedder } = require('../dist');
const { makeTinyModel, TINY_MODEL_NAME } = require('../dist/testing');
const { MarkdownChunker, embeddingText } = require('@kbqa/chunker');
const { requireSharedCorpus } = require('../../../bench/shared-corpus');

const CORPUS = requireSharedCorpus();
const MINILM_FLOP_PER_TOKEN = 24e6;
const CHARS_PER_TOKEN = 4; // WordPiece on English technical prose; code runs a little denser

function corpusChunks() {
  const chunker = new MarkdownChunker();
  const texts = [];
  for (const folder of ['Guides', 'Reference']) {
    for (const file of readdirSync(path.join(CORPUS, folder)).sort()) {
      if (!file.endsWith('.md')) continue;
      const content = readFileSync(path.join(CORPUS, folder, file), 'utf8');
      for (const c of chunker.chunk({ source: `${folder}/${file}`, content, link: file }))
        texts.push(embeddingText(c));
    }
  }
  return texts;
}

/** A one-node ONNX graph: [rows, k] x [k, n] MatMul, the shape of a MiniLM feed-forward layer. */
function matmulModel(k, n) {
  const weights = new Float32Array(k * n).map((_, i) => ((i * 2654435761) % 1000) / 1000 - 0.5);
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 13 }],
      graph: {
        name: 'matmul',
        node: [{ opType: 'MatMul', input: ['x', 'w'], output: ['y'] }],
        initializer: [
          {
            name: 'w',
            dataType: onnx.TensorProto.DataType.FLOAT,
            dims: [k, n],
            rawData: new Uint8Array(weights.buffer),
          },
        ],
        input: [
          {
            name: 'x',
            type: { tensorType: { elemType: 1, shape: { dim: [{ dimParam: 'rows' }, { dimValue: k }] } } },
          },
        ],
        output: [
          {
            name: 'y',
            type: { tensorType: { elemType: 1, shape: { dim: [{ dimParam: 'rows' }, { dimValue: n }] } } },
          },
        ],
      },
    }),
  ).finish();
}

async function matmulGflops() {
  const ortPath = require.resolve('onnxruntime-node', {
    paths: [path.dirname(require.resolve('@huggingface/transformers'))],
  });
  const ort = require(ortPath);
  const k = 384;
  const n = 1536;
  const rows = 32 * 256; // a batch of 32 chunks of 256 tokens
  const session = await ort.InferenceSession.create(Buffer.from(matmulModel(k, n)));
  const x = new ort.Tensor('float32', new Float32Array(rows * k).fill(0.01), [rows, k]);
  await session.run({ x });
  const runs = 10;
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await session.run({ x });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return (2 * rows * k * n * runs) / seconds / 1e9;
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-bench-embed-'));
  try {
    await makeTinyModel(dir);
    const texts = corpusChunks();
    const chars = texts.reduce((s, t) => s + t.length, 0);
    const embedder = await TransformersEmbedder.load({
      model: TINY_MODEL_NAME,
      modelsDir: dir,
      offline: true,
      batchSize: 32,
    });
    await embedder.embed(texts.slice(0, 64), 'passage');
    const start = process.hrtime.bigint();
    await embedder.embed(texts, 'passage');
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const q = [];
    for (let i = 0; i < 50; i++) {
      const t0 = process.hrtime.bigint();
      await embedder.embed([`how do I configure ${i} hooks for the request lifecycle`], 'query');
      q.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    await embedder.close();
    q.sort((a, b) => a - b);
    const gflops = await matmulGflops();
    const tokensPerChunk = chars / texts.length / CHARS_PER_TOKEN;
    const miniLmChunksPerSecond = (gflops * 1e9) / (MINILM_FLOP_PER_TOKEN * tokensPerChunk);
    const out = [
      '## Embedding throughput',
      '',
      `Corpus: the ${texts.length} chunks of fastify-docs (Guides + Reference, ${(chars / texts.length).toFixed(0)} characters per chunk on average), embedded in batches of 32 through the worker thread.`,
      '',
      '| model | chunks/s | query embedding p50 / p99 |',
      '|---|---|---|',
      `| tiny generated model (64 dims, one Gather node) | ${(texts.length / seconds).toFixed(0)} | ${q[24].toFixed(1)} / ${q[48].toFixed(1)} ms |`,
      `| all-MiniLM-L6-v2 (expected, not measured: no weights here) | about ${miniLmChunksPerSecond.toFixed(0)} | |`,
      '',
      `The tiny model's figure measures the pipeline around the model (tokenizer, worker messages, pooling,` +
        ` storage-ready copies), not inference. The MiniLM estimate: onnxruntime reached ${gflops.toFixed(1)} GFLOP/s on a` +
        ` 384x1536 fp32 MatMul (a MiniLM feed-forward shape) here; at about 24 MFLOP per token and` +
        ` ${tokensPerChunk.toFixed(0)} tokens per chunk (${CHARS_PER_TOKEN} characters per token), that is` +
        ` ${((MINILM_FLOP_PER_TOKEN * tokensPerChunk) / 1e9).toFixed(1)} GFLOP per chunk, so about ${miniLmChunksPerSecond.toFixed(0)} chunks/s` +
        ` as an upper bound (attention, layer norms and the int8 kernels of the quantized model move it either way).`,
    ];
    console.log(out.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});

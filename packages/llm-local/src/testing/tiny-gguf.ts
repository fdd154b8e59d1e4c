import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeGguf, GgufValueType, type GgufEntry, type GgufTensorData } from '../gguf.format';

/** File name of the generated model inside the output directory. */
export const TINY_GGUF_NAME = 'kbqa-tiny-llama.gguf';

export interface TinyGgufOptions {
  /** `general.architecture` (default `llama`); another value makes a wrong-architecture file. */
  architecture?: string;
  /** Default 512. */
  contextLength?: number;
  /** Seeds the weights: the same seed writes the same bytes. */
  seed?: number;
}

const EMBEDDING = 64;
const HEADS = 4;
const LAYERS = 2;
const FEED_FORWARD = 128;

// ChatML, as small Qwen and SmolLM2 instruct models ship it.
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const WORDS = (
  'the be to of and a in that have it for not on with he as you do at this but his by from they we say her she or an ' +
  'will my one all would there their what so up out if about who get which go me when make can like time no just him know ' +
  'take people into year your good some could them see other than then now look only come its over think also back after ' +
  'use two how our work first well way even new want because any these give day most us answer question source document ' +
  'page install configure server model token context file data index search query result error option value default ' +
  'setting key project chat message stream api request response version update build test run start stop local cite ' +
  'section guide reference example code command line path folder network port host cache memory disk help support'
).split(' ');

/** Token types of the `tokenizer.ggml.token_type` array. */
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
}

/**
 * A SentencePiece-style vocabulary: the special tokens, the 256 byte-fallback tokens (so every
 * text tokenizes), single letters and whole words with the `▁` word-start mark.
 */
function tinyVocabulary(): Vocabulary {
  const tokens: string[] = [];
  const types: number[] = [];
  const add = (token: string, type: number): void => {
    tokens.push(token);
    types.push(type);
  };
  add('<unk>', UNKNOWN);
  add('<s>', CONTROL);
  add('</s>', CONTROL);
  add('<|im_start|>', CONTROL);
  add('<|im_end|>', CONTROL);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, BYTE);
  add('▁', NORMAL);
  for (const c of 'abcdefghijklmnopqrstuvwxyz0123456789.,:;!?()[]-') add(c, NORMAL);
  for (const c of 'abcdefghijklmnopqrstuvwxyz') add(`▁${c}`, NORMAL);
  const seen = new Set(tokens);
  for (const word of WORDS) {
    const token = `▁${word}`;
    if (!seen.has(token)) {
      seen.add(token);
      add(token, NORMAL);
    }
  }
  // SentencePiece merges the pair whose result scores highest: longer pieces first.
  const scores = tokens.map((t, i) => (types[i] === NORMAL ? t.length - i / 10_000 : 0));
  return { tokens, scores, types };
}

/** mulberry32: a small seeded generator, so that a test's model is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The bytes of a tiny llama-architecture GGUF model (2 layers, width 64, 4 heads, F32, about
 * 0.5 MB) with random weights. It is not a language model, only something llama.cpp loads and
 * runs: tests need tokens, not sense. Dimension 0 of every token embedding is large, which
 * keeps it dominant after the final norm; the output weights give word tokens a positive
 * weight there and every other token (end of turn, bytes, control tokens) a strongly negative
 * one, so that generation yields readable words and stops only at its token limit.
 */
export function tinyGgufBytes(options: TinyGgufOptions = {}): Buffer {
  const rand = random(options.seed ?? 42);
  const normal = (scale: number): number => {
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand()) * scale;
  };
  const matrix = (cols: number, rows: number, scale: number): Float32Array =>
    Float32Array.from({ length: cols * rows }, () => normal(scale));
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1);

  const vocab = tinyVocabulary();
  const nVocab = vocab.tokens.length;
  const embeddings = matrix(EMBEDDING, nVocab, 0.1);
  const output = matrix(EMBEDDING, nVocab, 1);
  for (let t = 0; t < nVocab; t++) {
    embeddings[t * EMBEDDING] = 4;
    output[t * EMBEDDING] = vocab.types[t] === NORMAL && vocab.tokens[t] !== '▁' ? 1 + rand() : -6;
  }

  const tensors: GgufTensorData[] = [
    { name: 'token_embd.weight', dims: [EMBEDDING, nVocab], data: embeddings },
    { name: 'output_norm.weight', dims: [EMBEDDING], data: ones(EMBEDDING) },
    { name: 'output.weight', dims: [EMBEDDING, nVocab], data: output },
  ];
  for (let layer = 0; layer < LAYERS; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [EMBEDDING], data: ones(EMBEDDING) },
      { name: `${blk}.attn_q.weight`, dims: [EMBEDDING, EMBEDDING], data: matrix(EMBEDDING, EMBEDDING, 0.1) },
      { name: `${blk}.attn_k.weight`, dims: [EMBEDDING, EMBEDDING], data: matrix(EMBEDDING, EMBEDDING, 0.1) },
      {
        name: `${blk}.attn_v.weight`,
        dims: [EMBEDDING, EMBEDDING],
        data: matrix(EMBEDDING, EMBEDDING, 0.02),
      },
      {
        name: `${blk}.attn_output.weight`,
        dims: [EMBEDDING, EMBEDDING],
        data: matrix(EMBEDDING, EMBEDDING, 0.02),
      },
      { name: `${blk}.ffn_norm.weight`, dims: [EMBEDDING], data: ones(EMBEDDING) },
      {
        name: `${blk}.ffn_gate.weight`,
        dims: [EMBEDDING, FEED_FORWARD],
        data: matrix(EMBEDDING, FEED_FORWARD, 0.1),
      },
      {
        name: `${blk}.ffn_up.weight`,
        dims: [EMBEDDING, FEED_FORWARD],
        data: matrix(EMBEDDING, FEED_FORWARD, 0.1),
      },
      {
        name: `${blk}.ffn_down.weight`,
        dims: [FEED_FORWARD, EMBEDDING],
        data: matrix(FEED_FORWARD, EMBEDDING, 0.02),
      },
    );
  }

  const architecture = options.architecture ?? 'llama';
  const u32 = (value: number): GgufEntry => ({ type: GgufValueType.UINT32, value });
  const metadata: Array<[string, GgufEntry]> = [
    ['general.architecture', { type: GgufValueType.STRING, value: architecture }],
    ['general.name', { type: GgufValueType.STRING, value: 'kbqa tiny llama (random weights, tests only)' }],
    ['general.license', { type: GgufValueType.STRING, value: 'MIT' }],
    [`${architecture}.context_length`, u32(options.contextLength ?? 512)],
    [`${architecture}.embedding_length`, u32(EMBEDDING)],
    [`${architecture}.block_count`, u32(LAYERS)],
    [`${architecture}.feed_forward_length`, u32(FEED_FORWARD)],
    [`${architecture}.attention.head_count`, u32(HEADS)],
    [`${architecture}.attention.head_count_kv`, u32(HEADS)],
    [`${architecture}.rope.dimension_count`, u32(EMBEDDING / HEADS)],
    [`${architecture}.attention.layer_norm_rms_epsilon`, { type: GgufValueType.FLOAT32, value: 1e-5 }],
    [`${architecture}.vocab_size`, u32(nVocab)],
    ['tokenizer.ggml.model', { type: GgufValueType.STRING, value: 'llama' }],
    [
      'tokenizer.ggml.tokens',
      { type: GgufValueType.ARRAY, itemType: GgufValueType.STRING, value: vocab.tokens },
    ],
    [
      'tokenizer.ggml.scores',
      { type: GgufValueType.ARRAY, itemType: GgufValueType.FLOAT32, value: vocab.scores },
    ],
    [
      'tokenizer.ggml.token_type',
      { type: GgufValueType.ARRAY, itemType: GgufValueType.INT32, value: vocab.types },
    ],
    ['tokenizer.ggml.bos_token_id', u32(1)],
    ['tokenizer.ggml.eos_token_id', u32(4)],
    ['tokenizer.ggml.unknown_token_id', u32(0)],
    ['tokenizer.ggml.padding_token_id', u32(2)],
    ['tokenizer.ggml.add_bos_token', { type: GgufValueType.BOOL, value: true }],
    ['tokenizer.ggml.add_eos_token', { type: GgufValueType.BOOL, value: false }],
    ['tokenizer.chat_template', { type: GgufValueType.STRING, value: CHAT_TEMPLATE }],
  ];
  return encodeGguf(metadata, tensors);
}

/** Writes the tiny model as `<outDir>/<name>` and returns its path. */
export async function writeTinyGguf(
  outDir: string,
  options: TinyGgufOptions & { name?: string } = {},
): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, options.name ?? TINY_GGUF_NAME);
  await writeFile(file, tinyGgufBytes(options));
  return file;
}

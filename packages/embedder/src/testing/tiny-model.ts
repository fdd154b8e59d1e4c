import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onnx } from 'onnx-proto';
import { TINY_WORDS } from './tiny-words';

/** Folder name of the generated model inside the output directory. */
export const TINY_MODEL_NAME = 'kbqa-tiny-bert';
/** Vector length of the tiny model. */
export const TINY_MODEL_DIMENSION = 64;

const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
// Zero vectors: [CLS] and [SEP] are in every text and would pull all vectors together; [PAD] and
// [MASK] never carry meaning. [UNK] keeps a vector so a text of unknown symbols still has a norm.
const SILENT_TOKENS = new Set<string>(['[PAD]', '[CLS]', '[SEP]', '[MASK]']);
const SUFFIXES = [
  's',
  'es',
  'ed',
  'd',
  'ing',
  'er',
  'ers',
  'ly',
  'ion',
  'ions',
  'tion',
  'ation',
  'able',
  'ment',
  'ness',
  'al',
  'ic',
  'ize',
  'ized',
  'ise',
  'ful',
  'less',
  'est',
  'ity',
  'ive',
  'ous',
  'ent',
  'ant',
  'y',
  'ies',
];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
// Printable ASCII punctuation; the BERT pre-tokenizer splits each into its own token.
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split('');

/**
 * The token list of the tiny model, in id order: special tokens, single characters (so every
 * ASCII word tokenizes), `##` continuations, whole words.
 */
export function tinyVocabulary(): string[] {
  const candidates = [
    ...SPECIAL_TOKENS,
    ...PUNCTUATION,
    ...LETTERS,
    ...LETTERS.map((c) => `##${c}`),
    ...SUFFIXES.map((s) => `##${s}`),
    ...TINY_WORDS,
  ];
  return [...new Set(candidates)];
}

/**
 * Writes a tiny BERT-shaped model (WordPiece tokenizer plus a one-node ONNX graph that looks up
 * each token's vector) to `<outDir>/kbqa-tiny-bert` and returns that folder. Each token's vector
 * is seeded by the token itself, so after mean pooling texts that share words score closer than
 * texts that do not. No download; the bytes are identical on every run.
 */
export async function makeTinyModel(outDir: string): Promise<string> {
  const dir = path.join(outDir, TINY_MODEL_NAME);
  const vocab = tinyVocabulary();
  const graph = Buffer.from(tinyOnnxGraph(vocab, TINY_MODEL_DIMENSION));
  const files: [string, string | Buffer][] = [
    ['config.json', json(tinyConfig(vocab.length))],
    ['tokenizer.json', json(tinyTokenizer(vocab))],
    ['tokenizer_config.json', json(TOKENIZER_CONFIG)],
    ['special_tokens_map.json', json(SPECIAL_TOKENS_MAP)],
    ['onnx/model.onnx', graph],
    ['onnx/model_quantized.onnx', graph],
  ];
  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  for (const [name, content] of files) await writeFile(path.join(dir, name), content);
  return dir;
}

/** Folder name of the generated cross-encoder inside the output directory. */
export const TINY_RERANKER_NAME = 'kbqa-tiny-cross-encoder';

/**
 * Token weights of the tiny cross-encoder; every other token weighs 0. Its score for a (query,
 * passage) pair is the sum of its tokens' weights, so a test can predict the order: a passage
 * with `best` outranks one with `better`, which outranks one with `good`, which outranks one
 * with none of them.
 */
export const TINY_RERANKER_WEIGHTS: Readonly<Record<string, number>> = { best: 3, better: 2, good: 1 };

/**
 * Writes a tiny BERT-shaped cross-encoder to `<outDir>/kbqa-tiny-cross-encoder` and returns that
 * folder: the tiny model's tokenizer, a sequence-classification config with one label, and an
 * ONNX graph `logits = ReduceSum(Gather(weights, input_ids), axis 1)` of shape [batch, 1], which
 * transformers.js loads as `AutoModelForSequenceClassification` like a real MS MARCO
 * cross-encoder. Padding weighs 0, so batching does not change scores.
 */
export async function makeTinyReranker(outDir: string): Promise<string> {
  const dir = path.join(outDir, TINY_RERANKER_NAME);
  const vocab = tinyVocabulary();
  const graph = Buffer.from(tinyRerankerGraph(vocab));
  const config = {
    ...tinyConfig(vocab.length),
    _name_or_path: TINY_RERANKER_NAME,
    architectures: ['BertForSequenceClassification'],
    id2label: { 0: 'LABEL_0' },
    label2id: { LABEL_0: 0 },
  };
  const files: [string, string | Buffer][] = [
    ['config.json', json(config)],
    ['tokenizer.json', json(tinyTokenizer(vocab))],
    ['tokenizer_config.json', json(TOKENIZER_CONFIG)],
    ['special_tokens_map.json', json(SPECIAL_TOKENS_MAP)],
    ['onnx/model.onnx', graph],
    ['onnx/model_quantized.onnx', graph],
  ];
  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  for (const [name, content] of files) await writeFile(path.join(dir, name), content);
  return dir;
}

function tinyRerankerGraph(vocab: string[]): Uint8Array {
  const weights = new Float32Array(vocab.length);
  vocab.forEach((token, id) => (weights[id] = TINY_RERANKER_WEIGHTS[token] ?? 0));
  const axes = new Uint8Array(new BigInt64Array([1n]).buffer);
  const dims = (...names: (string | number)[]): onnx.ITensorShapeProto => ({
    dim: names.map((n) => (typeof n === 'number' ? { dimValue: n } : { dimParam: n })),
  });
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'kbqa-make-tiny-model',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: TINY_RERANKER_NAME,
      node: [
        {
          name: 'token_weights',
          opType: 'Gather',
          input: ['weights', 'input_ids'],
          output: ['token_scores'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
        {
          name: 'sum_over_sequence',
          opType: 'ReduceSum',
          input: ['token_scores', 'sequence_axis'],
          output: ['logits'],
          attribute: [{ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      initializer: [
        {
          name: 'weights',
          dataType: onnx.TensorProto.DataType.FLOAT,
          dims: [vocab.length, 1],
          rawData: new Uint8Array(weights.buffer),
        },
        { name: 'sequence_axis', dataType: onnx.TensorProto.DataType.INT64, dims: [1], rawData: axes },
      ],
      input: [
        {
          name: 'input_ids',
          type: {
            tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: dims('batch', 'sequence') },
          },
        },
      ],
      output: [
        {
          name: 'logits',
          type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: dims('batch', 1) } },
        },
      ],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function tinyConfig(vocabSize: number): Record<string, unknown> {
  return {
    _name_or_path: TINY_MODEL_NAME,
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: TINY_MODEL_DIMENSION,
    num_attention_heads: 1,
    num_hidden_layers: 0,
    intermediate_size: TINY_MODEL_DIMENSION,
    max_position_embeddings: 512,
    type_vocab_size: 2,
    vocab_size: vocabSize,
    pad_token_id: 0,
  };
}

const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  clean_up_tokenization_spaces: true,
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  mask_token: '[MASK]',
};

const SPECIAL_TOKENS_MAP = {
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  mask_token: '[MASK]',
};

function tinyTokenizer(vocab: string[]): Record<string, unknown> {
  const ids: Record<string, number> = {};
  vocab.forEach((token, id) => (ids[token] = id));
  const special = (token: string): Record<string, unknown> => ({
    id: token,
    ids: [ids[token]],
    tokens: [token],
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: ids[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
}

/** ONNX model: `last_hidden_state = Gather(embeddings, input_ids)`. */
function tinyOnnxGraph(vocab: string[], dimension: number): Uint8Array {
  const table = new Float32Array(vocab.length * dimension);
  vocab.forEach((token, id) => {
    if (SILENT_TOKENS.has(token)) return;
    const next = mulberry32(fnv1a(token));
    for (let d = 0; d < dimension; d++) table[id * dimension + d] = next() * 2 - 1;
  });
  const raw = new Uint8Array(table.length * 4);
  const view = new DataView(raw.buffer);
  table.forEach((x, i) => view.setFloat32(i * 4, x, true));

  const dims = (...names: (string | number)[]): onnx.ITensorShapeProto => ({
    dim: names.map((n) => (typeof n === 'number' ? { dimValue: n } : { dimParam: n })),
  });
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'kbqa-make-tiny-model',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: TINY_MODEL_NAME,
      node: [
        {
          name: 'embeddings_lookup',
          opType: 'Gather',
          input: ['embeddings', 'input_ids'],
          output: ['last_hidden_state'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      initializer: [
        {
          name: 'embeddings',
          dataType: onnx.TensorProto.DataType.FLOAT,
          dims: [vocab.length, dimension],
          rawData: raw,
        },
      ],
      input: [
        {
          name: 'input_ids',
          type: {
            tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: dims('batch', 'sequence') },
          },
        },
      ],
      output: [
        {
          name: 'last_hidden_state',
          type: {
            tensorType: {
              elemType: onnx.TensorProto.DataType.FLOAT,
              shape: dims('batch', 'sequence', dimension),
            },
          },
        },
      ],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}

function fnv1a(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Small seeded PRNG; integer arithmetic only, so the table is identical on every platform. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

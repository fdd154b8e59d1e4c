import { availableParallelism, freemem } from 'node:os';
import { KbqaError } from '@kbqa/core';
import type * as NodeLlamaCpp from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { describe, inspectModelFile, LocalModelError, type LocalModelFileInfo } from './model-file';
import { chooseSequenceCount, KV_BYTES_PER_TOKEN_UPPER_BOUND, type SequenceCount } from './sequence-count';
import { SequenceSlots } from './sequence-slots';

/** One chat message, the same shape as the OpenAI-compatible path sends. */
export interface LocalChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LocalLlmOptions {
  /** A GGUF file. */
  modelPath: string;
  /** Tokens of one sequence's context: prompt and answer together (default 2048). */
  contextTokens?: number;
  /**
   * Answers generated at once, each in its own sequence of one context. Absent: chosen from the
   * host's cores and free memory ({@link chooseSequenceCount}).
   */
  sequences?: number;
  /** Requests that may wait for a sequence (default 8); past it {@link LocalLlm.generate} throws. */
  maxQueue?: number;
  /**
   * CPU threads for evaluation; node-llama-cpp's default (all cores) when absent. On a host
   * other processes also use, fewer threads wait less for each other.
   */
  threads?: number;
  /** llama.cpp's warnings and errors; dropped when absent. */
  log?: (level: 'error' | 'warn', message: string) => void;
}

export interface LocalGenerateOptions {
  signal?: AbortSignal;
  /** Longest answer in tokens (default 512). */
  maxTokens?: number;
  /** 0 picks the most likely token every time (the default). */
  temperature?: number;
  seed?: number;
  /**
   * Holds the reply to this JSON schema with a grammar (node-llama-cpp's GBNF JSON schema subset:
   * types, properties, items, enum, const, oneOf; what it does not know it leaves unconstrained).
   */
  jsonSchema?: Record<string, unknown>;
}

const DEFAULT_CONTEXT_TOKENS = 2048;
const DEFAULT_MAX_TOKENS = 512;
const DEFAULT_MAX_QUEUE = 8;

type NodeLlamaCppModule = typeof NodeLlamaCpp;

/**
 * node-llama-cpp is an ES module with top-level await: a CommonJS package reaches it only through
 * a real dynamic import, made here and only when a model is loaded, so that nothing else (the
 * extractive path, the CLI) ever loads it. The single executable replaces this import with one of
 * the copy it extracts (apps/api/sea/llama.js).
 */
async function importNodeLlamaCpp(): Promise<NodeLlamaCppModule> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    throw new LocalModelError(
      'runtime-unavailable',
      `The local model runtime (node-llama-cpp) cannot be loaded: ${describe(error)}. It is an optional ` +
        'peer of @kbqa/llm-local: install node-llama-cpp@3.21.1 beside kbqa (the single executable carries its own)',
      { cause: error },
    );
  }
}

/**
 * A GGUF chat model loaded in this process through node-llama-cpp, on the CPU with its prebuilt
 * binary (never a build, never a download). One context holds `sequences` sequences; each
 * {@link generate} call takes one for its answer and frees it when the answer ends, is aborted
 * or its reader stops.
 *
 * A freed sequence keeps its KV cache and goes back to a pool: the next answer on it reads only
 * the part of its prompt that differs from what the sequence already holds (node-llama-cpp keeps
 * the common prefix), so the fixed system prompt is not read again on every question.
 */
export class LocalLlm {
  private disposed = false;
  /** Sequences that are not answering, most recently used last. */
  private readonly idle: NodeLlamaCpp.LlamaContextSequence[] = [];
  private inputTokens = 0;
  private outputTokens = 0;

  private constructor(
    readonly info: LocalModelFileInfo,
    private readonly runtime: NodeLlamaCppModule,
    private readonly llama: NodeLlamaCpp.Llama,
    private readonly model: NodeLlamaCpp.LlamaModel,
    private readonly context: NodeLlamaCpp.LlamaContext,
    private readonly slots: SequenceSlots,
    /** How the number of sequences was chosen; undefined when the caller set it. */
    readonly sequenceChoice: SequenceCount | undefined,
  ) {}

  /**
   * Checks the file ({@link inspectModelFile}), then loads it. Throws {@link LocalModelError}:
   * `missing`, `not-gguf`, `truncated`, `unsupported-architecture` (also for an architecture
   * llama.cpp does not know), `runtime-unavailable` or `load-failed`.
   */
  static async load(options: LocalLlmOptions): Promise<LocalLlm> {
    const info = await inspectModelFile(options.modelPath);
    const runtime = await importNodeLlamaCpp();
    // The architectures node-llama-cpp lists are the ones its llama.cpp build knows.
    const known = Object.values(
      (runtime as unknown as { GgufArchitectureType: Record<string, string> }).GgufArchitectureType,
    );
    if (!known.includes(info.architecture)) {
      throw unsupportedArchitecture(options.modelPath, info.architecture);
    }
    // llama.cpp says why a load failed in its log; the thrown error only says that it failed.
    const loadErrors: string[] = [];
    let loading = true;
    let llama: NodeLlamaCpp.Llama;
    try {
      llama = await runtime.getLlama({
        gpu: false,
        build: 'never',
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        logLevel: runtime.LlamaLogLevel.warn,
        logger: (level, message) => {
          const text = message.trim();
          const isError = level === runtime.LlamaLogLevel.error || level === runtime.LlamaLogLevel.fatal;
          if (isError && loading) loadErrors.push(text);
          if (isError) options.log?.('error', text);
          else if (level === runtime.LlamaLogLevel.warn) options.log?.('warn', text);
        },
      });
    } catch (error) {
      throw new LocalModelError(
        'runtime-unavailable',
        `The prebuilt llama.cpp binary for ${process.platform}-${process.arch} cannot be loaded: ${describe(error)}`,
        { cause: error },
      );
    }
    try {
      const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
      const contextTokens = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
      const choice =
        options.sequences === undefined
          ? chooseSequenceCount({
              cores: availableParallelism(),
              freeMemoryBytes: freemem(),
              modelBytes: info.sizeBytes,
              perSequenceBytes: contextTokens * (info.kvBytesPerToken ?? KV_BYTES_PER_TOKEN_UPPER_BOUND),
            })
          : undefined;
      const sequences = Math.max(1, options.sequences ?? choice?.sequences ?? 1);
      try {
        const context = await model.createContext({
          contextSize: contextTokens,
          sequences,
          threads: options.threads,
        });
        loading = false;
        return new LocalLlm(
          info,
          runtime,
          llama,
          model,
          context,
          new SequenceSlots(sequences, options.maxQueue ?? DEFAULT_MAX_QUEUE),
          choice,
        );
      } catch (error) {
        await model.dispose();
        throw error;
      }
    } catch (error) {
      loading = false;
      await llama.dispose().catch(() => undefined);
      const logged = loadErrors.find((line) => /error loading model|unknown model architecture/i.test(line));
      const message = logged ? `${describe(error)} (${logged.replace(/^[\w:]*:\s*/, '')})` : describe(error);
      if (/unknown model architecture/i.test(message)) {
        throw unsupportedArchitecture(options.modelPath, info.architecture, error);
      }
      throw new LocalModelError(
        'load-failed',
        `Model file ${options.modelPath} cannot be loaded: ${message}`,
        {
          cause: error,
        },
      );
    }
  }

  /** Tokens of one sequence's context. */
  get contextTokens(): number {
    return this.context.contextSize;
  }

  /** Answers running and answers waiting for a sequence. */
  get load(): { running: number; waiting: number; sequences: number; maxQueue: number } {
    return this.slots.state;
  }

  /** Throws LocalLlmBusyError when a {@link generate} call now would be refused. */
  throwIfBusy(): void {
    this.slots.throwIfFull();
  }

  /** Prompt tokens evaluated and tokens generated so far, over all answers. */
  get usage(): { inputTokens: number; outputTokens: number } {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
  }

  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  /**
   * Streams the model's reply to `messages` (the last one the user's) as text pieces, as they
   * are generated. Waits for a free sequence first; throws LocalLlmBusyError at once
   * when the wait queue is full. When `signal` aborts, generation stops, the sequence is freed
   * and the iterator throws KbqaError('ABORTED'); a reader that stops early frees it too.
   * Other failures are KbqaError('LLM_ERROR').
   */
  async *generate(
    messages: LocalChatMessage[],
    options: LocalGenerateOptions = {},
  ): AsyncGenerator<string, void, undefined> {
    if (this.disposed) throw new KbqaError('MODEL_UNAVAILABLE', 'The local model was unloaded');
    const signal = options.signal;
    if (signal?.aborted) throw aborted();
    const release = await this.slots.acquire(signal);
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let sequence: NodeLlamaCpp.LlamaContextSequence | undefined;
    let chat: NodeLlamaCpp.LlamaChat | undefined;
    let generation: Promise<unknown> | undefined;
    let failed = false;
    let meterBefore = { input: 0, output: 0 };
    try {
      sequence = this.idle.pop() ?? this.context.getSequence();
      meterBefore = {
        input: sequence.tokenMeter.usedInputTokens,
        output: sequence.tokenMeter.usedOutputTokens,
      };
      chat = new this.runtime.LlamaChat({ contextSequence: sequence, autoDisposeSequence: false });
      const grammar = options.jsonSchema
        ? await this.llama.createGrammarForJsonSchema(options.jsonSchema as never)
        : undefined;
      const pieces = new PieceQueue();
      generation = chat
        .generateResponse(toHistory(messages), {
          signal: stop.signal,
          stopOnAbortSignal: true,
          maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
          temperature: options.temperature ?? 0,
          seed: options.seed,
          grammar,
          // Models that reason before answering (Qwen3) would spend seconds of CPU on thoughts
          // the answer does not show; a budget of 0 closes a thought as soon as it opens.
          budgets: { thoughtTokens: 0 },
          onTextChunk: (text) => pieces.push(text),
        })
        .then(
          () => pieces.end(),
          (error: unknown) => pieces.fail(error),
        );
      for (;;) {
        const next = await pieces.next();
        if (signal?.aborted) throw aborted();
        if (next === undefined) break;
        yield next;
      }
    } catch (error) {
      if (signal?.aborted) throw aborted();
      failed = true;
      if (error instanceof KbqaError) throw error;
      throw new KbqaError('LLM_ERROR', `The local model failed during the answer: ${describe(error)}`, {
        cause: error,
      });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Stop generating (a no-op when it finished), wait until it has, then free the sequence:
      // back to the pool with its cache, or disposed after a failure that may have left it odd.
      stop.abort();
      await generation?.catch(() => undefined);
      chat?.dispose({ disposeSequence: false });
      if (sequence) {
        this.inputTokens += sequence.tokenMeter.usedInputTokens - meterBefore.input;
        this.outputTokens += sequence.tokenMeter.usedOutputTokens - meterBefore.output;
        if (failed || this.disposed) await sequence.dispose();
        else this.idle.push(sequence);
      }
      release();
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const sequence of this.idle.splice(0)) await sequence.dispose();
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}

function unsupportedArchitecture(path: string, architecture: string, cause?: unknown): LocalModelError {
  return new LocalModelError(
    'unsupported-architecture',
    `Model file ${path} has architecture "${architecture}", which this llama.cpp build does not support`,
    { cause },
  );
}

function aborted(): KbqaError {
  return new KbqaError('ABORTED', 'Answer generation was aborted by the caller');
}

function toHistory(messages: LocalChatMessage[]): NodeLlamaCpp.ChatHistoryItem[] {
  const history: NodeLlamaCpp.ChatHistoryItem[] = messages.map((m) => {
    switch (m.role) {
      case 'system':
        return { type: 'system', text: m.content };
      case 'user':
        return { type: 'user', text: m.content };
      case 'assistant':
        return { type: 'model', response: [m.content] };
    }
  });
  history.push({ type: 'model', response: [] });
  return history;
}

/** Text pieces handed from node-llama-cpp's callback to the async iterator, in order. */
class PieceQueue {
  private readonly pieces: string[] = [];
  private done = false;
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;

  push(text: string): void {
    if (text === '') return;
    this.pieces.push(text);
    this.notify();
  }

  end(): void {
    this.done = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.failed = true;
    this.error = error;
    this.notify();
  }

  /** The next piece; undefined at the end. */
  async next(): Promise<string | undefined> {
    for (;;) {
      const piece = this.pieces.shift();
      if (piece !== undefined) return piece;
      if (this.failed) throw this.error;
      if (this.done) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

import { randomUUID } from 'node:crypto';
import {
  throwIfAborted,
  KbqaError,
  type AnswerGenerator,
  type AnswerRequest,
  type AnswerTool,
  type AnswerToolResult,
  type HistoryTurn,
} from '@kbqa/core';
import { filterCitations } from './citation-filter.transform';
import { parseToolChoice, toolChoicePrompt, toolChoiceSchema } from './local-tool-choice';
import { buildModelContext, contextSources, DEFAULT_MODEL_CONTEXT_TOKENS } from './model-context.builder';
import { runToolCall, toolMessage, TOOLS_PROMPT } from './openai-answer.generator';
import { buildAnswerMessages, buildSummarizeMessages, type ChatMessage } from './openai.prompts';

/**
 * A chat model run in this process (`@kbqa/llm-local`'s LocalLlm). Declared here so that this
 * package does not depend on the runtime: the service passes a loader in, tests pass fakes.
 */
export interface LocalChatModel {
  /** With `jsonSchema`, the reply is held to that schema by a grammar (tool calls). */
  generate(
    messages: ChatMessage[],
    options: {
      signal?: AbortSignal;
      maxTokens?: number;
      temperature?: number;
      jsonSchema?: Record<string, unknown>;
    },
  ): AsyncIterable<string>;
  /** Answers running and waiting, and how many may run at once, for `/health`. */
  readonly load?: { running: number; waiting: number; sequences?: number };
  /** Throws KbqaError('MODEL_BUSY') when an answer now would be refused. */
  throwIfBusy?(): void;
  dispose(): Promise<void>;
}

export type LocalModelState = 'not-loaded' | 'loading' | 'ready' | 'unavailable';

/** What `/health` shows of the local model. */
export interface LocalModelStatus {
  model: string;
  state: LocalModelState;
  /** Why the model is unavailable. */
  detail?: string;
  running?: number;
  waiting?: number;
  /** Answers the model writes at once (KBQA_LLM_SEQUENCES, or chosen from cores and memory). */
  sequences?: number;
}

export interface LocalAnswerGeneratorOptions {
  /** Shown in the generator's id and in `/health`. */
  modelName: string;
  /** Loads the model; called once, on {@link LocalAnswerGenerator.warm} or the first answer. */
  loadModel: () => Promise<LocalChatModel>;
  /**
   * Answers while the model cannot be loaded (missing, corrupt or unsupported file), and
   * rewrites follow-ups: the extractive generator.
   */
  fallback: AnswerGenerator;
  /** Told once when loading fails; the answers go to the fallback from then on. */
  onLoadError?: (error: unknown) => void;
  /**
   * Token budget of the sources' text given to the model (default
   * {@link DEFAULT_MODEL_CONTEXT_TOKENS}): the units the extractive ranking picks
   * ({@link buildModelContext}), since reading the prompt dominates the wait on a CPU.
   */
  contextTokens?: number;
  /** Longest answer in tokens (default 512). */
  maxTokens?: number;
  /** Earlier turns sent with a question (default 4: each costs prompt tokens). */
  maxHistoryTurns?: number;
  /**
   * Whether the project's tools are offered (default true): grammar-constrained steps pick a tool
   * and its arguments, or none, before the answer.
   */
  toolCalls?: boolean;
  /**
   * Most tool calls one answer may make (default 3, as KBQA_TOOL_MAX_ROUNDS): after each call the
   * model chooses again, seeing the results so far, until it picks no tool.
   */
  maxToolRounds?: number;
}

const DEFAULT_MAX_TOKENS = 512;
const DEFAULT_MAX_HISTORY_TURNS = 4;
const DEFAULT_MAX_TOOL_ROUNDS = 3;

/** Ends the last tool result while the model may still call another tool. */
const NEXT_TOOL_PROMPT =
  'If the results so far do not yet hold what my question needs, call one more tool; otherwise reply {"tool": null}.';

/**
 * Answers with a local GGUF model under the same contract as the OpenAI-compatible generator:
 * the same prompt ({@link buildAnswerMessages}: system or project prompt, numbered sources, "not
 * covered" when they do not answer) over the context {@link buildModelContext} picks, text streamed as it is generated, `[n]` kept only for the
 * sources given ({@link filterCitations}), KbqaError('ABORTED') when the signal aborts (which
 * stops generation and frees the model's sequence).
 *
 * The model loads on first use. When it cannot, the error is reported once through
 * `onLoadError`, {@link status} says why, and every answer comes from the fallback.
 */
export class LocalAnswerGenerator implements AnswerGenerator {
  readonly id: string;
  readonly supportsTools: boolean;
  readonly usesSystemPrompt = true;
  /** The fallback reads them. */
  readonly usesUnknownWords: boolean;
  private loading: Promise<LocalChatModel | undefined> | undefined;
  private model: LocalChatModel | undefined;
  private state: LocalModelState = 'not-loaded';
  private detail: string | undefined;

  constructor(private readonly options: LocalAnswerGeneratorOptions) {
    this.id = `local:${options.modelName}`;
    this.usesUnknownWords = options.fallback.usesUnknownWords ?? false;
    this.supportsTools = options.toolCalls ?? true;
  }

  status(): LocalModelStatus {
    const load = this.model?.load;
    return {
      model: this.options.modelName,
      state: this.state,
      ...(this.detail ? { detail: this.detail } : {}),
      ...(load ? { running: load.running, waiting: load.waiting } : {}),
      ...(load?.sequences !== undefined ? { sequences: load.sequences } : {}),
    };
  }

  /** Starts loading the model (once); resolves with it, or undefined when it cannot be loaded. */
  warm(): Promise<LocalChatModel | undefined> {
    this.loading ??= this.load();
    return this.loading;
  }

  generate(request: AnswerRequest): AsyncIterable<string> {
    return this.answer(request);
  }

  throwIfBusy(): void {
    this.model?.throwIfBusy?.();
  }

  condenseQuestion(question: string, history: HistoryTurn[], signal: AbortSignal): Promise<string> {
    return this.options.fallback.condenseQuestion(question, history, signal);
  }

  async summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string> {
    const model = await this.warm();
    if (!model) return this.options.fallback.summarize(text, maxChars, signal);
    throwIfAborted(signal);
    let out = '';
    for await (const piece of model.generate(buildSummarizeMessages(text, maxChars), {
      signal,
      maxTokens: Math.max(64, Math.ceil(maxChars / 2)),
      temperature: 0,
    })) {
      out += piece;
    }
    return out.trim();
  }

  async dispose(): Promise<void> {
    const model = await this.loading;
    this.loading = Promise.resolve(undefined);
    this.model = undefined;
    this.state = 'not-loaded';
    await model?.dispose();
  }

  private async *answer(request: AnswerRequest): AsyncGenerator<string, void, undefined> {
    const model = await this.warm();
    if (!model) {
      yield* this.options.fallback.generate(request);
      return;
    }
    throwIfAborted(request.signal);
    const budgetTokens = this.options.contextTokens ?? DEFAULT_MODEL_CONTEXT_TOKENS;
    const sources = contextSources(request.sources, buildModelContext(request, { budgetTokens }));
    let messages = buildAnswerMessages(
      { ...request, sources },
      this.options.maxHistoryTurns ?? DEFAULT_MAX_HISTORY_TURNS,
    );
    const tools = this.supportsTools ? (request.tools ?? []) : [];
    if (tools.length > 0) messages = await this.toolStep(model, messages, tools, request);
    const pieces = model.generate(messages, {
      signal: request.signal,
      maxTokens: this.options.maxTokens ?? DEFAULT_MAX_TOKENS,
      temperature: request.temperature,
    });
    yield* filterCitations(
      pieces,
      sources.map((s) => s.n),
    );
  }

  /**
   * Grammar-constrained replies each choosing a tool (and its arguments) or none, up to
   * `maxToolRounds`: after each call the model sees the results so far and chooses again. A
   * chosen tool is run through {@link AnswerTool.run} only (a name that was not offered runs
   * nothing), reported through `onToolEvent`, and its result added to the conversation as data for
   * the answer. The calls end when the model picks no tool, repeats a call it already made (a
   * small model would only loop), the rounds run out, or a step fails (a schema the grammar cannot
   * hold, a reply cut short); the answer then goes on with the results gathered.
   */
  private async toolStep(
    model: LocalChatModel,
    messages: ChatMessage[],
    tools: AnswerTool[],
    request: AnswerRequest,
  ): Promise<ChatMessage[]> {
    const withPrompt = (extra: string): ChatMessage[] =>
      messages.map((m, i) =>
        i === 0 && m.role === 'system' ? { ...m, content: `${m.content}\n\n${extra}` } : m,
      );
    const calls: Array<{ reply: string; name: string; result: AnswerToolResult }> = [];
    // The calls so far as turns of the conversation; `last` ends the latest result.
    const transcript = (last: string): ChatMessage[] =>
      calls.flatMap((call, i): ChatMessage[] => [
        { role: 'assistant', content: call.reply },
        {
          role: 'user',
          content:
            `Result of the tool ${call.name}:\n${toolMessage(call.result)}` +
            (i === calls.length - 1 ? `\n\n${last}` : ''),
        },
      ]);
    const offered = new Map(tools.map((t) => [t.name, t]));
    const made = new Set<string>();
    const rounds = Math.max(1, this.options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS);
    for (let round = 0; round < rounds; round++) {
      let reply = '';
      try {
        const choosing = [
          ...withPrompt(`${TOOLS_PROMPT}\n${toolChoicePrompt(tools)}`),
          ...transcript(NEXT_TOOL_PROMPT),
        ];
        for await (const piece of model.generate(choosing, {
          signal: request.signal,
          maxTokens: 256,
          temperature: 0,
          jsonSchema: toolChoiceSchema(tools),
        })) {
          reply += piece;
        }
      } catch (error) {
        if (error instanceof KbqaError && error.code === 'ABORTED') throw error;
        break;
      }
      const choice = parseToolChoice(reply);
      if (!choice) break;
      const key = `${choice.name}\n${choice.arguments}`;
      if (made.has(key)) break;
      made.add(key);
      const callId = `call_${randomUUID()}`;
      request.onToolEvent?.({ type: 'called', callId, name: choice.name });
      const result = await runToolCall(offered, {
        id: callId,
        name: choice.name,
        arguments: choice.arguments,
      });
      throwIfAborted(request.signal);
      request.onToolEvent?.({ type: 'result', callId, name: choice.name, result });
      calls.push({ reply, name: choice.name, result });
    }
    if (calls.length === 0) return messages;
    return [...withPrompt(TOOLS_PROMPT), ...transcript(`Now answer my question: ${request.question}`)];
  }

  private async load(): Promise<LocalChatModel | undefined> {
    this.state = 'loading';
    try {
      this.model = await this.options.loadModel();
      this.state = 'ready';
      return this.model;
    } catch (error) {
      this.state = 'unavailable';
      this.detail = error instanceof Error ? error.message : String(error);
      this.options.onLoadError?.(error);
      return undefined;
    }
  }
}

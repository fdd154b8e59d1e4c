/** A retrieved passage as an answer generator sees it; `n` is its citation number ([n]). */
export interface AnswerSource {
  n: number;
  content: string;
  title: string;
  link: string;
  score: number;
  /**
   * Headings above the passage in its page, outermost first (SearchHit.headingPath). A passage cut
   * from the middle of a section does not repeat its heading, so this is the only place that says
   * which section (an option's name, a method's) its first sentences belong to.
   */
  headingPath?: string[];
  /**
   * The operator's curated answer (a taught question/answer pair) to a question worded like this
   * one: `content` is the answer, `title` the taught question. It comes first when present, and
   * generators answer with it first.
   */
  curated?: boolean;
}

export interface HistoryTurn {
  prompt: string;
  response: string;
}

/** What a tool call gave back: always a result, never a throw (a failing tool is an error text). */
export interface AnswerToolResult {
  /** The tool's answer as text (secrets already redacted by the tool). */
  output: string;
  has_error: boolean;
  error?: string;
}

/**
 * A tool the model may call while answering (an HTTP tool or an MCP server's tool). Its output
 * is data for the model, never an instruction to the service.
 */
export interface AnswerTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** Never throws. */
  run(args: unknown): Promise<AnswerToolResult>;
}

/** A step of tool use, reported while the answer is produced (before its text). */
export type AnswerToolEvent =
  | { type: 'called'; callId: string; name: string }
  | { type: 'result'; callId: string; name: string; result: AnswerToolResult };

export interface AnswerRequest {
  question: string;
  /**
   * For a follow-up answered without a rewrite by a model: words of the conversation to weigh
   * below the question's own (the topic of earlier prompts). The question is the follow-up read
   * as a question of its own ("how much memory does Acme need?" for "and how much memory does it
   * need?" after "How do I install Acme?"), so it is answered about memory, on the installed
   * thing, not with the install step again.
   */
  context?: string;
  /**
   * The question's own words that no passage of the project uses at all, as its lexical index
   * reads them (ChunkStore.absentWords); absent when not looked up. A product or a name
   * the documentation never mentions ("PM2", "NestJS") says the question is about something
   * else, however many of its other words ("run", "app") the passages share.
   */
  unknownWords?: string[];
  /** Already filtered by the relevance threshold, in citation order. */
  sources: AnswerSource[];
  history: HistoryTurn[];
  additionalContext?: string;
  /** 0 to 1. */
  temperature?: number;
  /** Per-project system prompt, when the operator set one. */
  systemPrompt?: string;
  /** Aborted when the client disconnects; generation stops and the partial answer is kept. */
  signal: AbortSignal;
  /**
   * Tools the model may call before it answers. Only generators with `supportsTools` use them;
   * absent or empty, the request is the same as without tools.
   */
  tools?: AnswerTool[];
  /** Told of each tool call and its result, in order, before the answer's text. */
  onToolEvent?: (event: AnswerToolEvent) => void;
}

/**
 * Produces an answer as a stream of text pieces. Implementations: extractive (no model) and
 * any OpenAI-compatible chat endpoint.
 */
export interface AnswerGenerator {
  readonly id: string;
  /** Whether {@link AnswerRequest.tools} are offered to the model (the extractive generator calls none). */
  readonly supportsTools?: boolean;
  /**
   * Whether {@link AnswerRequest.systemPrompt} is read (a model's prompt; the extractive generator
   * has none). Without it the service does not look the project's prompt up on every chat.
   */
  readonly usesSystemPrompt?: boolean;
  /**
   * Whether {@link AnswerRequest.unknownWords} is read (the extractive generator's test of
   * questions about what the documentation never names). Without it the service does not look
   * the question's words up in the index.
   */
  readonly usesUnknownWords?: boolean;
  generate(request: AnswerRequest): AsyncIterable<string>;
  /**
   * Throws KbqaError('MODEL_BUSY') carrying `retryAfterSeconds` when an answer started now would
   * be refused (a local model's sequences and wait queue all taken), so that the service answers
   * 503 before it writes anything. Absent: never busy.
   */
  throwIfBusy?(): void;
  /** Rewrites a follow-up into a standalone question using history; identity when unsupported. */
  condenseQuestion(question: string, history: HistoryTurn[], signal: AbortSignal): Promise<string>;
  /** Summarizes a document within about `maxChars` characters (best effort). */
  summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string>;
}

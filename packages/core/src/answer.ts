/** A retrieved passage as an answer generator sees it; `n` is its citation number ([n]). */
export interface AnswerSource {
  n: number;
  content: string;
  title: string;
  link: string;
  score: number;
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

export interface AnswerRequest {
  question: string;
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
}

/**
 * Produces an answer as a stream of text pieces. Implementations: extractive (no model) and
 * any OpenAI-compatible chat endpoint.
 */
export interface AnswerGenerator {
  readonly id: string;
  generate(request: AnswerRequest): AsyncIterable<string>;
  /** Rewrites a follow-up into a standalone question using history; identity when unsupported. */
  condenseQuestion(question: string, history: HistoryTurn[], signal: AbortSignal): Promise<string>;
  /** Summarizes a document within about `maxChars` characters (best effort). */
  summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string>;
}

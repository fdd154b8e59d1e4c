import type { AnswerRequest, AnswerSource, HistoryTurn } from '@kbqa/core';

/** One message of an OpenAI-compatible chat completion request. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Used when the project has no system prompt of its own. */
export const DEFAULT_SYSTEM_PROMPT = [
  'You are a documentation assistant. Answer the question using only the numbered documentation sources below.',
  'Cite the source of every statement with its number in square brackets, like [1] or [2][3], right after the statement; use only the numbers of the sources given.',
  'If the sources do not contain the answer, say plainly that the documentation does not cover it; do not guess and do not use outside knowledge.',
  'Keep code identifiers, option names and code exactly as written in the sources; format code as Markdown code blocks.',
  'Be concise and answer in the language of the question.',
].join('\n');

/**
 * The chat messages of an answer. One system message (some chat templates accept only one,
 * and only first) holds: the project's system prompt or {@link DEFAULT_SYSTEM_PROMPT}; the
 * sources as `[n] title — link` followed by their content, with the citation rule repeated so
 * that it holds under a custom system prompt too; then the additional context, marked as not
 * citable. A curated source (a taught answer, first when present) is marked as the operator's
 * curated answer to the question, to be answered with first. Earlier turns follow as user/assistant messages (the last `maxHistoryTurns`), then
 * the question as the last user message.
 */
export function buildAnswerMessages(
  request: Pick<AnswerRequest, 'question' | 'sources' | 'history' | 'additionalContext' | 'systemPrompt'>,
  maxHistoryTurns = 10,
): ChatMessage[] {
  const parts = [request.systemPrompt?.trim() || DEFAULT_SYSTEM_PROMPT];
  if (request.sources.length === 0) {
    parts.push(
      'Documentation sources: none matched this question. Say that the documentation does not cover it.',
    );
  } else {
    const numbers = request.sources.map((s) => `[${s.n}]`).join(', ');
    parts.push(
      `Documentation sources (cite them as ${numbers}; no other numbers exist; if they do not answer the question, say that the documentation does not cover it):`,
    );
    const curated = request.sources.find((s) => s.curated);
    if (curated) {
      parts.push(
        `Source [${curated.n}] is the operator's curated answer to this question (the question it answers is its title): ` +
          `answer with it first, in its own words where possible, and cite it as [${curated.n}]; use the other sources only to add what it leaves out.`,
      );
    }
    for (const source of request.sources) parts.push(`${sourceHeader(source)}\n${source.content.trim()}`);
  }
  const extra = request.additionalContext?.trim();
  if (extra)
    parts.push(`Additional context from the user (not a documentation source; do not cite it):\n${extra}`);

  const messages: ChatMessage[] = [{ role: 'system', content: parts.join('\n\n') }];
  for (const turn of maxHistoryTurns > 0 ? request.history.slice(-maxHistoryTurns) : []) {
    if (turn.prompt.trim()) messages.push({ role: 'user', content: turn.prompt });
    if (turn.response.trim()) messages.push({ role: 'assistant', content: turn.response });
  }
  messages.push({ role: 'user', content: request.question });
  return messages;
}

/** The line above a source's content in the prompt: `[n] title — link`. */
export function sourceHeader(source: Pick<AnswerSource, 'n' | 'title' | 'link' | 'curated'>): string {
  const title = source.curated ? `Curated answer to: ${source.title.trim()}` : source.title.trim();
  const header = [title, source.link.trim()].filter((s) => s !== '').join(' — ');
  return `[${source.n}] ${header}`;
}

const CONDENSE_PROMPT = [
  'You rewrite follow-up questions.',
  'Given a conversation and a follow-up question, rewrite the follow-up as a standalone question that can be understood without the conversation.',
  'Keep names, code identifiers and versions exactly as written. If the question is already standalone, return it unchanged.',
  'Reply with the question only: no answer, no preamble, no quotes.',
].join('\n');

/** A non-streamed request that turns a follow-up into a standalone question. */
export function buildCondenseMessages(question: string, history: HistoryTurn[], maxTurns = 6): ChatMessage[] {
  const conversation = history
    .slice(-maxTurns)
    .map((turn) => `User: ${turn.prompt.trim()}\nAssistant: ${clip(turn.response.trim(), 600)}`)
    .join('\n');
  return [
    { role: 'system', content: CONDENSE_PROMPT },
    { role: 'user', content: `Conversation:\n${conversation}\n\nFollow-up question: ${question.trim()}` },
  ];
}

/** Cleans a model's rewrite; the original question when the reply is unusable. */
export function parseCondensed(reply: string, original: string): string {
  const line = reply
    .trim()
    .replace(/^(?:standalone question|question|rewritten question)\s*:\s*/i, '')
    .split('\n')[0]
    ?.trim()
    .replace(/^["'“]|["'”]$/g, '')
    .trim();
  if (!line || line.length > Math.max(1000, original.length * 4)) return original;
  return line;
}

/** A non-streamed request for a summary of about `maxChars` characters. */
export function buildSummarizeMessages(text: string, maxChars: number): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        `Summarize the documentation text the user sends in at most ${maxChars} characters.`,
        'Be faithful to the text, keep key names and code identifiers exactly, and write in the language of the text.',
        'Reply with the summary only.',
      ].join('\n'),
    },
    { role: 'user', content: text },
  ];
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

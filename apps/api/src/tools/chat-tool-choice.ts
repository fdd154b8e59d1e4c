import { isStopWord, variantHead } from '@kbqa/text';

/**
 * Tools one chat offers the model at most. Every tool's name, description and JSON schema go with
 * every model request (thousands of imported operations make hundreds of KB of it), and
 * OpenAI's API refuses more than 128 per request; a project may hold 500
 * (OPENAPI_MAX_TOOLS_PER_PROJECT).
 */
export const MAX_TOOLS_PER_CHAT = 64;

export interface NamedTool {
  name: string;
  description: string;
}

/**
 * The tools a chat offers: all of them up to `max`, else the `max` most relevant to the question,
 * in their given order. Relevance is the question's words found in a tool's name and description,
 * each weighed by how few tools have it (a word every tool has says nothing), so the choice needs no
 * model and follows the question; ties keep the given order (the oldest tools first).
 */
export function chooseChatTools<T extends NamedTool>(
  tools: T[],
  question: string,
  max = MAX_TOOLS_PER_CHAT,
): T[] {
  if (tools.length <= max) return tools;
  const asked = new Set(words(question));
  const wordsOf = tools.map((t) => new Set(words(`${t.name} ${t.description}`)));
  const toolsWith = new Map<string, number>();
  for (const set of wordsOf) {
    for (const word of set) if (asked.has(word)) toolsWith.set(word, (toolsWith.get(word) ?? 0) + 1);
  }
  const score = wordsOf.map((set) => {
    let sum = 0;
    for (const [word, n] of toolsWith) if (set.has(word)) sum += Math.log(tools.length / n);
    return sum;
  });
  const chosen = tools
    .map((_, i) => i)
    .sort((a, b) => score[b]! - score[a]! || a - b)
    .slice(0, max)
    .sort((a, b) => a - b);
  return chosen.map((i) => tools[i]!);
}

/** Words of a text or a tool name (`getOrderStatus`, `list_orders` split), lower-cased, stop words out. */
function words(text: string): string[] {
  const out: string[] = [];
  const spaced = text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2');
  for (const raw of spaced.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = raw.toLowerCase();
    if (word.length < 2 || isStopWord(word)) continue;
    const one = singular(word);
    out.push(variantHead(one) ?? one);
  }
  return out;
}

/** "orders" and "order" are one word here; "status" and "address" keep their s. */
function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word) ? word.slice(0, -1) : word;
}

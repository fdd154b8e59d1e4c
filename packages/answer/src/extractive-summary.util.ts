import { splitMarkdownUnits } from './markdown-units.util';
import { terms } from './terms.util';

/**
 * Extractive summary: sentences scored by how frequent their terms are in the whole text (a
 * sentence about the document's main subject scores high) and by position (opening sentences
 * and paragraph openers weigh more), picked best first while they fit in `maxChars`, then put
 * back in document order. Code blocks are left out. When not even one sentence fits, the best
 * one is cut at a word boundary (best effort, as the API promises).
 */
export function summarizeExtractive(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  const units = splitMarkdownUnits(text);
  const sentences = units.filter((u) => u.kind === 'sentence');
  if (sentences.length === 0) return truncate(text.replace(/\s+/g, ' ').trim(), maxChars);

  const tf = new Map<string, number>();
  const unitTerms = sentences.map((s) => new Set(terms(s.text)));
  for (const set of unitTerms) for (const t of set) tf.set(t, (tf.get(t) ?? 0) + 1);

  const firstOfBlock = new Set<number>();
  let lastBlock = -1;
  for (const s of sentences) {
    if (s.block !== lastBlock) firstOfBlock.add(s.position);
    lastBlock = s.block;
  }

  const scored = sentences.map((s, i) => {
    const set = unitTerms[i] ?? new Set<string>();
    let sum = 0;
    for (const t of set) sum += (tf.get(t) ?? 1) - 1;
    let score = sum / Math.max(8, set.size);
    const words = s.text.split(/\s+/).length;
    if (words < 4) score *= 0.3;
    score *= 1 + 0.5 * (1 - i / sentences.length);
    if (i === 0) score *= 1.5;
    else if (firstOfBlock.has(s.position)) score *= 1.2;
    return { index: i, text: s.text, score };
  });

  const picked: typeof scored = [];
  let used = 0;
  for (const s of [...scored].sort((a, b) => b.score - a.score || a.index - b.index)) {
    const cost = s.text.length + (picked.length > 0 ? 1 : 0);
    if (used + cost > maxChars) continue;
    picked.push(s);
    used += cost;
  }
  if (picked.length === 0) {
    const best = [...scored].sort((a, b) => b.score - a.score || a.index - b.index)[0];
    return truncate(best?.text ?? '', maxChars);
  }
  return picked
    .sort((a, b) => a.index - b.index)
    .map((s) => s.text)
    .join(' ');
}

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return text.slice(0, maxChars);
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

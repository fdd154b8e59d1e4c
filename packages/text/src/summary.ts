import { splitMarkdownUnits } from './markdown-units';
import { STOP_WORDS } from './stop-words';

interface Sentence {
  text: string;
  /** First sentence under a heading. */
  underHeading: boolean;
  words: string[];
}

function sentencesOf(markdown: string): Sentence[] {
  const sentences: Sentence[] = [];
  let heading = '';
  for (const unit of splitMarkdownUnits(markdown)) {
    if (unit.kind !== 'sentence') continue;
    const words = (unit.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
      (w) => w.length > 1 && !STOP_WORDS.has(w),
    );
    sentences.push({ text: unit.text, underHeading: unit.heading !== heading, words });
    heading = unit.heading;
  }
  return sentences;
}

/** Cuts `text` at a word boundary within `maxChars`, an ellipsis marking the cut. */
function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return text.slice(0, maxChars);
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * An extractive summary of markdown `text` within `maxChars`: sentences scored by the frequency
 * of their words in the document (down-weighted for words found in most sentences; stop words
 * left out), with a bonus for the opening sentences and for the first sentence under a heading;
 * the best are kept in document order. Code blocks are skipped; '' when there is no prose.
 * Whole sentences only, unless the best sentence alone exceeds `maxChars`: it is then cut at a
 * word boundary and ends with `…`.
 */
export function extractiveSummary(text: string, maxChars: number): string {
  if (!(maxChars >= 1)) return '';
  const sentences = sentencesOf(text);
  const n = sentences.length;
  if (n === 0) return '';

  const tf = new Map<string, number>();
  const df = new Map<string, number>();
  for (const s of sentences) {
    for (const w of s.words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of new Set(s.words)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  let maxTf = 1;
  for (const v of tf.values()) if (v > maxTf) maxTf = v;

  const raw = sentences.map((s) => {
    let sum = 0;
    for (const w of new Set(s.words)) sum += ((tf.get(w) ?? 0) / maxTf) * Math.log(1 + n / (df.get(w) ?? 1));
    const score = sum / Math.sqrt(Math.max(1, s.words.length));
    return s.words.length < 4 ? score / 2 : score;
  });
  let maxScore = 0;
  for (const v of raw) if (v > maxScore) maxScore = v;
  const scores = raw.map((v, i) => {
    let score = maxScore > 0 ? v / maxScore : 0;
    if (i === 0) score += 0.5;
    else if (i < 3) score += 0.2;
    if (sentences[i]?.underHeading) score += 0.15;
    return score;
  });

  const order = sentences.map((_s, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  const chosen: number[] = [];
  let total = 0;
  for (const i of order) {
    const len = sentences[i]?.text.length ?? 0;
    const cost = chosen.length === 0 ? len : len + 1;
    if (total + cost <= maxChars) {
      chosen.push(i);
      total += cost;
    }
  }
  if (chosen.length === 0) return truncate(sentences[order[0] ?? 0]?.text ?? '', maxChars);
  return chosen
    .sort((a, b) => a - b)
    .map((i) => sentences[i]?.text ?? '')
    .join(' ');
}

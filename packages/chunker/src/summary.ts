import type { ChunkDraft, LoadedDocument } from '@kbqa/core';
import { withContentHash } from './embedding-text';
import { parseMarkdown, type MarkdownBlock } from './markdown.parser';
import { splitSentences, splitWords } from './split';

/** Summary length used when `summarize.maxChars` is not given. */
export const DEFAULT_SUMMARY_MAX_CHARS = 600;

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in ' +
    'into is it its may might more most must no not of on or our she should so such than that the their them ' +
    'then there these they this those to too us was we were what when where which while who why will with ' +
    'would you your also any all each other only own same some very just over under about after before ' +
    'between both here out up down off again further once use used using'
  ).split(' '),
);

interface Sentence {
  text: string;
  index: number;
  /** First sentence after a heading. */
  underHeading: boolean;
  words: string[];
}

/**
 * Inline markdown reduced to its words: links keep their text, images, tags and marks go. Each
 * character class excludes its own opening bracket, so a failed match stops at the next one and
 * the replacements stay linear on hostile input.
 */
function plainInline(text: string): string {
  return text
    .replace(/!\[[^[\]\n]*\]\([^()\n]*\)/g, ' ')
    .replace(/\[([^[\]\n]*)\]\([^()\n]*\)/g, '$1')
    .replace(/\[([^[\]\n]*)\]\[[^[\]\n]*\]/g, '$1')
    .replace(/<[^<>\n]*>/g, ' ')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Strips list markers and quote marks so each item reads as its own sentence run. */
function lineSegments(lines: string[]): string[] {
  const segments: string[] = [];
  let cur: string[] = [];
  for (const raw of lines) {
    let line = raw.trimStart();
    while (line.startsWith('>')) line = line.slice(1).trimStart();
    const m = /^(?:[-*+]|\d{1,9}[.)])(?:\s+|$)/.exec(line);
    if (m) {
      if (cur.length) segments.push(cur.join(' '));
      cur = [line.slice(m[0].length)];
    } else {
      cur.push(line);
    }
  }
  if (cur.length) segments.push(cur.join(' '));
  return segments;
}

function collectSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  let underHeading = false;
  const add = (segment: string): void => {
    const plain = plainInline(segment);
    if (!plain) return;
    for (const s of splitSentences(plain)) {
      const t = s.trim();
      if (!t) continue;
      const words = (t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
        (w) => w.length > 1 && !STOPWORDS.has(w),
      );
      sentences.push({ text: t, index: sentences.length, underHeading, words });
      underHeading = false;
    }
  };
  for (const block of parseMarkdown(text)) {
    switch (block.kind) {
      case 'heading':
        underHeading = true;
        break;
      case 'code':
      case 'table':
        break;
      case 'paragraph':
        add(block.text);
        break;
      case 'list':
      case 'quote':
        for (const segment of lineSegments(block.lines)) add(segment);
        break;
    }
  }
  return sentences;
}

/** Cuts a single over-long sentence at a word boundary within `maxChars`. */
function cutSentence(text: string, maxChars: number): string {
  return splitWords(text, maxChars)[0] ?? '';
}

/**
 * An extractive summary of markdown `text` within `maxChars`: sentences scored by the document
 * frequency of their words (down-weighted for words found in most sentences), with a bonus for
 * the opening sentences and for the first sentence under a heading; the best are kept in
 * document order. Code blocks and tables are skipped. Whole sentences only, unless the best
 * sentence alone exceeds `maxChars`, which is then cut at a word boundary.
 */
export function extractiveSummary(text: string, maxChars: number): string {
  if (!(maxChars >= 1)) return '';
  const sentences = collectSentences(text);
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
    const distinct = new Set(s.words);
    let sum = 0;
    for (const w of distinct) sum += ((tf.get(w) ?? 0) / maxTf) * Math.log(1 + n / (df.get(w) ?? 1));
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

  const order = sentences.map((s) => s.index).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
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
  if (chosen.length === 0) return cutSentence(sentences[order[0] ?? 0]?.text ?? '', maxChars);
  return chosen
    .sort((a, b) => a - b)
    .map((i) => sentences[i]?.text ?? '')
    .join(' ');
}

/**
 * The `kind: 'summary'` chunk of a document for a summary made elsewhere (an LLM summarizer in
 * the ingestion pipeline, say); `undefined` when the summary is blank, since chunks are never
 * empty. Heading path is empty, link is the document's.
 */
export function summaryChunk(
  doc: LoadedDocument,
  summaryText: string,
  ordinal: number,
): ChunkDraft | undefined {
  const content = summaryText.trim();
  if (!content) return undefined;
  return withContentHash({
    ordinal,
    content,
    headingPath: [],
    title: documentTitle(doc),
    link: doc.link ?? doc.source,
    kind: 'summary',
  });
}

/** `doc.title`, else the document's first H1, else its source. */
export function documentTitle(doc: LoadedDocument, blocks?: readonly MarkdownBlock[]): string {
  const title = doc.title?.trim();
  if (title) return title;
  if (!doc.parts?.length) {
    for (const block of blocks ?? parseMarkdown(doc.content)) {
      if (block.kind === 'heading' && block.level === 1 && block.title) return block.title;
    }
  }
  return doc.source;
}

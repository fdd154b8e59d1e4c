/**
 * Markdown-aware splitting of a passage into the units an extractive answer is built from:
 * sentences (cleaned of link and HTML syntax, inline code untouched) and fenced code blocks
 * (kept whole, fences included).
 */

export interface TextUnit {
  kind: 'sentence' | 'code';
  /** A sentence ready to show, or a code block with its fences. */
  text: string;
  /** The nearest heading above the unit ('' when none). */
  heading: string;
  /** Order of the unit in its passage, from 0. */
  position: number;
  /** Units of one paragraph, list item or code block share this index. */
  block: number;
}

interface Block {
  kind: 'paragraph' | 'code';
  text: string;
  heading: string;
}

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})(.*)$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const SETEXT_UNDERLINE = /^\s{0,3}(=+|-+)\s*$/;
const THEMATIC_BREAK = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const HTML_ONLY_LINE = /^\s*(<\/?[A-Za-z][^>]*>\s*)+([^<]*<\/[A-Za-z][^>]*>\s*)*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEPARATOR = /^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?\|?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$/;
const BLOCKQUOTE = /^\s*>\s?(.*)$/;

/** Splits markdown into sentences and code blocks, in document order. */
export function splitMarkdownUnits(markdown: string): TextUnit[] {
  const units: TextUnit[] = [];
  const blocks = parseBlocks(markdown);
  blocks.forEach((block, blockIndex) => {
    if (block.kind === 'code') {
      units.push({
        kind: 'code',
        text: block.text,
        heading: block.heading,
        position: units.length,
        block: blockIndex,
      });
      return;
    }
    for (const sentence of splitSentences(block.text)) {
      units.push({
        kind: 'sentence',
        text: sentence,
        heading: block.heading,
        position: units.length,
        block: blockIndex,
      });
    }
  });
  return units;
}

function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let heading = '';
  let paragraph: string[] = [];

  const flush = (): void => {
    const text = paragraph.join(' ').trim();
    if (text) blocks.push({ kind: 'paragraph', text, heading });
    paragraph = [];
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    // A fence may sit inside a blockquote ("> ```js"); its lines then carry the quote marker.
    const quoted = BLOCKQUOTE.exec(line);
    const unquote = quoted && FENCE_OPEN.test(quoted[1] ?? '') ? stripQuote : (l: string): string => l;
    const fence = FENCE_OPEN.exec(unquote(line));
    if (fence) {
      flush();
      const indent = fence[1]?.length ?? 0;
      const marker = fence[2] ?? '```';
      const closing = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      const body: string[] = [dedent(unquote(line), indent)];
      let closed = false;
      for (i++; i < lines.length; i++) {
        const inner = unquote(lines[i] ?? '');
        body.push(dedent(inner, indent));
        if (closing.test(inner)) {
          closed = true;
          break;
        }
      }
      // A chunk boundary can cut a block; close it so the answer's markdown stays well formed.
      if (!closed) {
        while (body.length > 1 && (body[body.length - 1] ?? '').trim() === '') body.pop();
        body.push(marker);
      }
      blocks.push({ kind: 'code', text: body.join('\n'), heading });
      continue;
    }
    const headingMatch = HEADING.exec(line);
    if (headingMatch) {
      flush();
      heading = cleanInline(headingMatch[2] ?? '');
      continue;
    }
    if (paragraph.length === 1 && SETEXT_UNDERLINE.test(line)) {
      heading = cleanInline(paragraph[0] ?? '');
      paragraph = [];
      continue;
    }
    if (line.trim() === '' || THEMATIC_BREAK.test(line)) {
      flush();
      continue;
    }
    if (HTML_ONLY_LINE.test(line)) {
      flush();
      continue;
    }
    if (TABLE_ROW.test(line)) {
      flush();
      if (!TABLE_SEPARATOR.test(line)) {
        const cells = splitTableRow(line);
        if (cells.length > 0) blocks.push({ kind: 'paragraph', text: cells.join('; '), heading });
      }
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      paragraph.push((item[1] ?? '').trim());
      continue;
    }
    const quote = BLOCKQUOTE.exec(line);
    if (quote) {
      const content = (quote[1] ?? '').trim();
      if (content === '') flush();
      else paragraph.push(content);
      continue;
    }
    paragraph.push(line.trim());
  }
  flush();
  return blocks;
}

function stripQuote(line: string): string {
  return line.replace(/^\s*>\s?/, '');
}

function dedent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && line[n] === ' ') n++;
  return line.slice(n);
}

function splitTableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cleanInline(cell.trim()))
    .filter((cell) => cell !== '');
}

const INLINE_CODE = /(`+)([\s\S]*?[^`])\1(?!`)/g;
const PLACEHOLDER = /\uE000(\d+)\uE000/g;

/**
 * Replaces inline code spans with placeholders so that cleaning and sentence splitting never
 * touch them, applies `fn`, then puts the spans back.
 */
function withCodeProtected<T>(
  text: string,
  fn: (protectedText: string) => T,
  restore: (value: T, put: (s: string) => string) => T,
): T {
  const spans: string[] = [];
  const masked = text.replace(INLINE_CODE, (span) => {
    spans.push(span);
    return `\uE000${spans.length - 1}\uE000`;
  });
  const put = (s: string): string =>
    s.replace(PLACEHOLDER, (_m, index: string) => spans[Number(index)] ?? '');
  return restore(fn(masked), put);
}

/** Strips link, image, emphasis-free HTML and autolink syntax outside inline code. */
export function cleanInline(text: string): string {
  return withCodeProtected(
    text,
    (masked) =>
      masked
        .replace(/!\[[^\]]*\]\((?:[^()]|\([^)]*\))*\)/g, '')
        .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
        .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
        .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
        .replace(/<\/?[A-Za-z][^>]*>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    (value, put) => put(value),
  );
}

const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|Mr|Mrs|Ms|Dr|St|No|Fig|al)\.$/i;
const SENTENCE_END = /[.!?]+["')\]*_]*\s+/g;
const SENTENCE_START = /^[A-Z0-9\uE000"'(*_@<[]/;

/** Splits a paragraph into sentences; never inside inline code or dotted identifiers. */
export function splitSentences(paragraph: string): string[] {
  return withCodeProtected(
    cleanInline(paragraph),
    (masked) => {
      const sentences: string[] = [];
      let start = 0;
      for (const match of masked.matchAll(SENTENCE_END)) {
        const end = (match.index ?? 0) + match[0].length;
        const rest = masked.slice(end);
        if (!SENTENCE_START.test(rest)) continue;
        const candidate = masked.slice(start, end).trimEnd();
        if (ABBREVIATION.test(candidate)) continue;
        sentences.push(candidate);
        start = end;
      }
      sentences.push(masked.slice(start).trim());
      return sentences;
    },
    (sentences, put) => sentences.map(put).filter((s) => /[\p{L}\p{N}]/u.test(s)),
  );
}

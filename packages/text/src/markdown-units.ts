import { codeSpans, splitSentences } from './sentences';

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
  /** Set on the sentences of a list item, which show what a sentence ending in ":" announces. */
  listItem?: true;
}

interface Block {
  kind: 'paragraph' | 'code';
  text: string;
  heading: string;
  listItem?: true;
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
    for (const sentence of paragraphSentences(block.text)) {
      units.push({
        kind: 'sentence',
        text: sentence,
        heading: block.heading,
        position: units.length,
        block: blockIndex,
        ...(block.listItem ? { listItem: true as const } : {}),
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
  let listItem = false;

  const flush = (): void => {
    const text = paragraph.join(' ').trim();
    if (text)
      blocks.push({ kind: 'paragraph', text, heading, ...(listItem ? { listItem: true as const } : {}) });
    paragraph = [];
    listItem = false;
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
      listItem = true;
      continue;
    }
    const quote = BLOCKQUOTE.exec(line);
    if (quote) {
      const content = (quote[1] ?? '').trim();
      // A heading inside a quote ("> ## Security Releases") heads what follows, as outside it;
      // kept as text it was quoted as a sentence ("## Security Releases").
      const quotedHeading = HEADING.exec(content);
      if (quotedHeading) {
        flush();
        heading = cleanInline(quotedHeading[2] ?? '');
        continue;
      }
      // A list inside a quote ("> * Calling…") is one unit per item, as outside it.
      const quotedItem = LIST_ITEM.exec(content);
      if (content === '' || quotedItem) flush();
      if (quotedItem) {
        paragraph.push((quotedItem[1] ?? '').trim());
        listItem = true;
      } else if (content !== '') paragraph.push(content);
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

const PLACEHOLDER = /\uE000(\d+)\uE000/g;

/**
 * Strips link, image, HTML and autolink syntax outside inline code. Each bracket class excludes
 * its own opening bracket, so a failed match stops at the next one and the replacements stay
 * linear on hostile input (summaries run on whole ingested documents).
 */
export function cleanInline(text: string): string {
  const spans: string[] = [];
  let masked = '';
  let from = 0;
  for (const [start, end] of codeSpans(text)) {
    masked += `${text.slice(from, start)}\uE000${spans.length}\uE000`;
    spans.push(text.slice(start, end));
    from = end;
  }
  masked += text.slice(from);
  return masked
    .replace(/!\[[^[\]]*\]\((?:[^()]|\([^()]*\))*\)/g, '')
    .replace(/\[([^[\]]+)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/\[([^[\]]+)\]\[[^[\]]*\]/g, '$1')
    .replace(/<((?:https?|mailto):[^<>\s]+)>/g, '$1')
    .replace(/<\/?[A-Za-z][^<>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(PLACEHOLDER, (_m, index: string) => spans[Number(index)] ?? '');
}

/** The sentences of a markdown paragraph, cleaned by {@link cleanInline}. */
export function paragraphSentences(paragraph: string): string[] {
  return splitSentences(cleanInline(paragraph));
}

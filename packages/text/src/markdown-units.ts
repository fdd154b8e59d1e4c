import { listMarker, parseMarkdown, type Fence, type MarkdownBlock } from './markdown-blocks';
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

const HTML_ONLY_LINE = /^\s*(<\/?[A-Za-z][^>]*>\s*)+([^<]*<\/[A-Za-z][^>]*>\s*)*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEPARATOR = /^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?\|?\s*$/;
const QUOTE_MARKER = /^\s*>\s?/;
/** Quotes and list items nest; past this depth their lines are read as plain text. */
const MAX_NESTING = 8;

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
  const blocks: Block[] = [];
  const state = { heading: '' };
  readBlocks(parseMarkdown(markdown), 0, state, blocks);
  return blocks;
}

/**
 * Turns the blocks of {@link parseMarkdown} into units' blocks: headings set the heading of what
 * follows, quotes and list items are read again without their markers (a heading in a quote heads
 * what follows, each list item is its own block), code stays whole and dedented to its fence.
 */
function readBlocks(parsed: MarkdownBlock[], depth: number, state: { heading: string }, out: Block[]): void {
  for (const block of parsed) {
    switch (block.kind) {
      case 'heading':
        state.heading = cleanInline(block.title);
        break;
      case 'code':
        if (block.fence)
          out.push({ kind: 'code', text: fencedCode(block, block.fence), heading: state.heading });
        // Indented code reads as text: four-space indents in docs are more often stray than code.
        else readLines(block.lines, false, state, out);
        break;
      case 'paragraph':
        readLines(block.text.split('\n'), false, state, out);
        break;
      case 'table':
        readLines(block.lines, false, state, out);
        break;
      case 'quote':
        if (depth >= MAX_NESTING) readLines(block.lines, false, state, out);
        else
          readBlocks(
            parseMarkdown(block.lines.map((l) => l.replace(QUOTE_MARKER, '')).join('\n')),
            depth + 1,
            state,
            out,
          );
        break;
      case 'list':
        block.itemStarts.forEach((from, k) => {
          const lines = block.lines.slice(from, block.itemStarts[k + 1] ?? block.lines.length);
          if (depth >= MAX_NESTING) return readLines(lines, true, state, out);
          const first = out.length;
          readBlocks(parseMarkdown(itemContent(lines)), depth + 1, state, out);
          // The item's first paragraph is what its marker introduces; text after a blank line is not.
          const lead = out[first];
          if (lead?.kind === 'paragraph' && lead.listItem === undefined)
            out[first] = { ...lead, listItem: true };
        });
        break;
    }
  }
}

/** Lines of text: blank and HTML-only lines end a block, each table row is a block of its cells. */
function readLines(
  lines: readonly string[],
  listItem: boolean,
  state: { heading: string },
  out: Block[],
): void {
  let paragraph: string[] = [];
  let lead = listItem;
  const flush = (): void => {
    const text = paragraph.join(' ').trim();
    if (text)
      out.push({
        kind: 'paragraph',
        text,
        heading: state.heading,
        ...(lead ? { listItem: true as const } : {}),
      });
    paragraph = [];
    lead = false;
  };
  for (const line of lines) {
    if (line.trim() === '' || HTML_ONLY_LINE.test(line)) {
      flush();
    } else if (TABLE_ROW.test(line)) {
      flush();
      if (!TABLE_SEPARATOR.test(line)) {
        const cells = splitTableRow(line);
        if (cells.length > 0) out.push({ kind: 'paragraph', text: cells.join('; '), heading: state.heading });
      }
    } else {
      paragraph.push(line.trim());
    }
  }
  flush();
}

/** A list item's text without its marker, its continuation lines dedented to the item's content. */
function itemContent(lines: readonly string[]): string {
  const first = lines[0] ?? '';
  const marker = listMarker(first);
  const contentIndent = marker?.contentIndent ?? 0;
  const head = marker ? first.slice(markerEnd(first)).trimStart() : first.trim();
  return [head, ...lines.slice(1).map((l) => dedentColumns(l, contentIndent))].join('\n');
}

/** Index just past a list marker (`-`, `*`, `+`, `1.`, `1)`) and the spaces before it. */
function markerEnd(line: string): number {
  const m = /^[ \t]*(?:[-*+]|\d{1,9}[.)])/.exec(line);
  return m ? m[0].length : 0;
}

function fencedCode(block: Extract<MarkdownBlock, { kind: 'code' }>, fence: Fence): string {
  const indent = fence.indent.length;
  const body = [block.open, ...block.lines].map((l) => dedent(l, indent));
  // A chunk boundary can cut a block; close it so the answer's markdown stays well formed.
  if (block.closed) return [...body, dedent(block.close, indent)].join('\n');
  while (body.length > 1 && (body[body.length - 1] ?? '').trim() === '') body.pop();
  return [...body, fence.marker].join('\n');
}

function dedent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && line[n] === ' ') n++;
  return line.slice(n);
}

/** Drops up to `columns` columns of leading spaces and tabs (a tab reaches the next multiple of 4). */
function dedentColumns(line: string, columns: number): string {
  let cols = 0;
  let i = 0;
  while (i < line.length && cols < columns) {
    const c = line[i];
    if (c === ' ') cols++;
    else if (c === '\t') cols += 4 - (cols % 4);
    else break;
    i++;
  }
  return line.slice(i);
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

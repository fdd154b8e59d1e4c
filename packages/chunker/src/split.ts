/**
 * Splitting of blocks that do not fit in one chunk. Every function here is linear in its input:
 * boundaries are found by a forward scan and every backward search is bounded by the piece size.
 */
import { sentenceSlices, fenceOpen, isFenceClose, type MarkdownBlock } from '@kbqa/text';

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Keeps a cut from landing between the two halves of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const c = text.charCodeAt(at - 1);
  return c >= 0xd800 && c <= 0xdbff ? at - 1 : at;
}

/**
 * Cuts text longer than `limit` at whitespace (searching back at most half a piece), else hard
 * at `limit`. Pieces are trimmed and non-empty.
 */
export function splitWords(text: string, limit: number): string[] {
  const out: string[] = [];
  const n = text.length;
  let pos = 0;
  while (n - pos > limit) {
    let cut = -1;
    const floor = pos + Math.floor(limit / 2);
    for (let k = pos + limit; k > floor; k--) {
      if (isWhitespace(text.charCodeAt(k))) {
        cut = k;
        break;
      }
    }
    if (cut === -1) cut = safeCut(text, pos + limit);
    if (cut <= pos) cut = pos + limit;
    const piece = text.slice(pos, cut).trim();
    if (piece) out.push(piece);
    pos = cut;
    while (pos < n && isWhitespace(text.charCodeAt(pos))) pos++;
  }
  const rest = text.slice(pos).trim();
  if (rest) out.push(rest);
  return out;
}

/**
 * Greedy packing: units joined by `sep` while the piece stays within `limit`; a unit that is
 * larger than `limit` on its own becomes a piece by itself (callers keep units within maxSize).
 */
export function packUnits(units: string[], sep: string, limit: number): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const u of units) {
    const add = cur.length === 0 ? u.length : size + sep.length + u.length;
    if (cur.length > 0 && add > limit) {
      out.push(cur.join(sep));
      cur = [u];
      size = u.length;
    } else {
      cur.push(u);
      size = add;
    }
  }
  if (cur.length > 0) out.push(cur.join(sep));
  return out;
}

function nonEmpty(pieces: string[]): string[] {
  const out: string[] = [];
  for (const p of pieces) {
    const t = p.trim();
    if (t) out.push(t);
  }
  return out;
}

/** Prose: at sentence boundaries, then at whitespace, then hard; pieces within `limit`. */
export function splitText(text: string, limit: number): string[] {
  const units: string[] = [];
  for (const s of sentenceSlices(text)) {
    if (s.length <= limit) units.push(s);
    else for (const w of splitWords(s, limit)) units.push(w + ' ');
  }
  return nonEmpty(packUnits(units, '', limit));
}

/** Lines each within `limit` (longer lines cut by {@link splitWords}). */
function boundedLines(lines: string[], limit: number): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (l.length <= limit) out.push(l);
    else out.push(...splitWords(l, limit));
  }
  return out;
}

/**
 * Code: at line boundaries, each piece re-wrapped in the block's fence lines so it stays a
 * valid code block on its own.
 */
export function splitCode(open: string, body: string[], close: string, target: number): string[] {
  const wrap = open ? open.length + close.length + 2 : 0;
  const room = target - wrap;
  if (room < 1) return splitLinesPlain([open, ...body, close], target);
  const pieces = packUnits(boundedLines(body, room), '\n', room);
  return pieces.map((p) => (open ? `${open}\n${p}\n${close}` : p)).filter((p) => p.trim() !== '');
}

function splitLinesPlain(lines: string[], limit: number): string[] {
  return nonEmpty(packUnits(boundedLines(lines, limit), '\n', limit));
}

/**
 * Lines that may contain fenced code (list items, quotes): a fence region that fits in `max` is
 * one unit, a larger one is split like a code block; other lines are units of their own.
 */
export function splitLinesFenceAware(lines: string[], target: number, max: number): string[] {
  const units: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const fence = fenceOpen(line);
    if (!fence) {
      if (line.length <= target) units.push(line);
      else units.push(...splitWords(line, target));
      i++;
      continue;
    }
    let j = i + 1;
    while (j < lines.length && !isFenceClose(lines[j] ?? '', fence)) j++;
    const closed = j < lines.length;
    const body = lines.slice(i + 1, closed ? j : lines.length);
    const close = closed ? (lines[j] ?? '') : fence.indent + fence.marker;
    const region = [line, ...body, close].join('\n');
    if (region.length <= max) units.push(region);
    else units.push(...splitCode(line, body, close, target));
    i = closed ? j + 1 : lines.length;
  }
  return nonEmpty(packUnits(units, '\n', target));
}

/** Lists: at item boundaries; an item larger than `max` is split at its lines. */
export function splitList(lines: string[], itemStarts: number[], target: number, max: number): string[] {
  const units: string[] = [];
  for (let k = 0; k < itemStarts.length; k++) {
    const item = lines.slice(itemStarts[k], itemStarts[k + 1] ?? lines.length);
    const text = item.join('\n').trimEnd();
    if (text.length <= max) units.push(text);
    else units.push(...splitLinesFenceAware(item, target, max));
  }
  return nonEmpty(packUnits(units, '\n', target));
}

/** Tables: at row boundaries, the header and delimiter rows repeated on every piece. */
export function splitTable(lines: string[], target: number): string[] {
  const header = lines.slice(0, 2).join('\n');
  const room = target - header.length - 1;
  if (room < 1) return splitLinesPlain(lines, target);
  const rows = boundedLines(lines.slice(2), room);
  return packUnits(rows, '\n', room).map((p) => `${header}\n${p}`);
}

/** Splits one block into pieces within `target` (single units may reach `max`). */
export function splitBlock(block: MarkdownBlock, target: number, max: number): string[] {
  switch (block.kind) {
    case 'code':
      return splitCode(block.open, block.lines, block.close, target);
    case 'list':
      return splitList(block.lines, block.itemStarts, target, max);
    case 'table':
      return splitTable(block.lines, target);
    case 'quote':
      return splitLinesFenceAware(block.lines, target, max);
    case 'heading':
    case 'paragraph':
      return splitText(block.text, target);
  }
}

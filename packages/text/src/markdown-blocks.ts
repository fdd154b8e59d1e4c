/**
 * The one markdown block parser of kbqa: a small line-based one, just enough structure for
 * chunking (@kbqa/chunker), answer units (`splitMarkdownUnits`) and titles (@kbqa/loader-github).
 * One pass over the lines, no backtracking regular expressions, so time is linear in the input
 * size. It imports nothing, so the widget can bundle what depends on it.
 */

/** The opening of a fenced code block. */
export interface Fence {
  /** Leading whitespace of the opening line, reused for a synthesized closing line. */
  indent: string;
  /** Fence characters, e.g. "```" or "~~~~". */
  marker: string;
}

export type MarkdownBlock =
  | { kind: 'heading'; text: string; level: number; title: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'quote'; text: string; lines: string[] }
  | { kind: 'table'; text: string; lines: string[] }
  /** `lines` are the source lines; `itemStarts` the indexes of lines that start a top-level item. */
  | { kind: 'list'; text: string; lines: string[]; itemStarts: number[] }
  /**
   * Fenced code (`open` and `close` are the fence lines, `close` synthesized and `closed` false
   * when the source never closed it; `lines` is the body) or indented code (`fence` null, no
   * fence lines).
   */
  | {
      kind: 'code';
      text: string;
      lines: string[];
      fence: Fence | null;
      open: string;
      close: string;
      closed: boolean;
    };

export type BlockKind = MarkdownBlock['kind'];

const SPACE = 32;
const TAB = 9;

export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

/** Index of the first character that is not a space or tab. */
function firstNonSpace(line: string): number {
  let i = 0;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c !== SPACE && c !== TAB) break;
    i++;
  }
  return i;
}

/** Indentation in columns (a tab counts to the next multiple of 4). */
export function indentWidth(line: string): number {
  let cols = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === SPACE) cols++;
    else if (c === TAB) cols += 4 - (cols % 4);
    else break;
  }
  return cols;
}

function isSpaceOrEnd(line: string, i: number): boolean {
  if (i >= line.length) return true;
  const c = line.charCodeAt(i);
  return c === SPACE || c === TAB;
}

/** Opening fence at any indentation (callers restrict the indentation where it matters). */
export function fenceOpen(line: string): Fence | null {
  const start = firstNonSpace(line);
  const ch = line[start];
  if (ch !== '`' && ch !== '~') return null;
  let end = start;
  while (line[end] === ch) end++;
  if (end - start < 3) return null;
  // A backtick fence's info string may not contain backticks (that is inline code).
  if (ch === '`' && line.indexOf('`', end) !== -1) return null;
  return { indent: line.slice(0, start), marker: line.slice(start, end) };
}

export function isFenceClose(line: string, fence: Fence): boolean {
  const start = firstNonSpace(line);
  const ch = fence.marker[0];
  let end = start;
  while (line[end] === ch) end++;
  return end - start >= fence.marker.length && isBlank(line.slice(end));
}

function atxHeading(line: string): { level: number; title: string } | null {
  const start = firstNonSpace(line);
  if (start > 3 || line[start] !== '#') return null;
  let end = start;
  while (line[end] === '#') end++;
  const level = end - start;
  if (level > 6 || !isSpaceOrEnd(line, end)) return null;
  let title = line.slice(end).trim();
  // Optional closing sequence: "## Title ##".
  let j = title.length;
  while (j > 0 && title[j - 1] === '#') j--;
  if (j === 0) title = '';
  else if (j < title.length && (title[j - 1] === ' ' || title[j - 1] === '\t'))
    title = title.slice(0, j).trimEnd();
  return { level, title };
}

/** 1 for a `===` underline, 2 for `---`, 0 otherwise. */
function setextLevel(line: string): number {
  const start = firstNonSpace(line);
  if (start > 3) return 0;
  const ch = line[start];
  if (ch !== '=' && ch !== '-') return 0;
  let end = start;
  while (line[end] === ch) end++;
  if (!isBlank(line.slice(end))) return 0;
  return ch === '=' ? 1 : 2;
}

function isThematicBreak(line: string): boolean {
  const start = firstNonSpace(line);
  if (start > 3) return false;
  const ch = line[start];
  if (ch !== '-' && ch !== '*' && ch !== '_') return false;
  let count = 0;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === ch) count++;
    else if (c !== ' ' && c !== '\t') return false;
  }
  return count >= 3;
}

/** A list item marker; returns the column where the item's content starts. */
export function listMarker(line: string): { indent: number; contentIndent: number } | null {
  const start = firstNonSpace(line);
  const indent = indentWidth(line);
  const ch = line[start];
  let end: number;
  if (ch === '-' || ch === '*' || ch === '+') {
    end = start + 1;
  } else {
    end = start;
    while (end - start < 10 && end < line.length) {
      const c = line.charCodeAt(end);
      if (c < 48 || c > 57) break;
      end++;
    }
    if (end === start || end - start > 9) return null;
    if (line[end] !== '.' && line[end] !== ')') return null;
    end++;
  }
  if (!isSpaceOrEnd(line, end)) return null;
  return { indent, contentIndent: indent + (end - start) + 1 };
}

function isTableDelimiter(line: string): boolean {
  let pipes = 0;
  let dashes = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '|') pipes++;
    else if (c === '-') dashes++;
    else if (c !== ':' && c !== ' ' && c !== '\t') return false;
  }
  return pipes > 0 && dashes > 0;
}

function isQuote(line: string): boolean {
  const start = firstNonSpace(line);
  return start <= 3 && line[start] === '>';
}

/** Lines that end a lazy continuation (of a quote or list item) because they start a block. */
function startsBlock(line: string): boolean {
  const start = firstNonSpace(line);
  if (start > 3) return false;
  return atxHeading(line) !== null || fenceOpen(line) !== null || isThematicBreak(line) || isQuote(line);
}

/** Splits text into lines after normalizing line endings and dropping a byte-order mark. */
export function toLines(text: string): string[] {
  let t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (t.indexOf('\r') !== -1) t = t.replace(/\r\n?/g, '\n');
  return t.split('\n');
}

/**
 * Index of the first line after a `---` front matter block at the top, or 0. A blank line right
 * after the opening `---` means a thematic break, not front matter.
 */
function skipFrontMatter(lines: string[]): number {
  if (lines.length < 2 || lines[0]?.trimEnd() !== '---' || isBlank(lines[1] ?? '')) return 0;
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] ?? '').trimEnd();
    if (l === '---' || l === '...') return i + 1;
  }
  return 0;
}

/**
 * Parses markdown into top-level blocks. Front matter is dropped, thematic breaks are dropped,
 * a setext underline only makes a heading of a one-line paragraph (a longer paragraph followed
 * by `---` is far more often meant as text plus a rule), and an unclosed fence runs to the end
 * of the document and gets a closing line so its text stays valid markdown.
 */
export function parseMarkdown(text: string): MarkdownBlock[] {
  const lines = toLines(text);
  const n = lines.length;
  const blocks: MarkdownBlock[] = [];
  let para: string[] = [];
  const flushPara = (): void => {
    if (para.length > 0) blocks.push({ kind: 'paragraph', text: para.join('\n').trim() });
    para = [];
  };

  let i = skipFrontMatter(lines);
  while (i < n) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      flushPara();
      i++;
      continue;
    }
    const start = firstNonSpace(line);

    if (start <= 3) {
      const fence = fenceOpen(line);
      if (fence) {
        flushPara();
        let j = i + 1;
        while (j < n && !isFenceClose(lines[j] ?? '', fence)) j++;
        const closed = j < n;
        const end = closed ? j + 1 : n;
        const body = lines.slice(i + 1, closed ? j : n);
        const close = closed ? (lines[j] ?? '') : fence.indent + fence.marker;
        const text = [line, ...body, close].join('\n').trim();
        blocks.push({ kind: 'code', text, lines: body, fence, open: line, close, closed });
        i = end;
        continue;
      }

      const heading = atxHeading(line);
      if (heading) {
        flushPara();
        blocks.push({ kind: 'heading', text: line.trim(), level: heading.level, title: heading.title });
        i++;
        continue;
      }

      if (para.length === 1) {
        const level = setextLevel(line);
        if (level > 0) {
          const title = (para[0] ?? '').trim();
          blocks.push({ kind: 'heading', text: `${title}\n${line.trim()}`, level, title });
          para = [];
          i++;
          continue;
        }
      }

      if (isThematicBreak(line)) {
        flushPara();
        i++;
        continue;
      }

      const last = para[para.length - 1];
      if (last !== undefined && last.includes('|') && isTableDelimiter(line)) {
        para.pop();
        flushPara();
        let j = i + 1;
        while (j < n) {
          const row = lines[j] ?? '';
          if (isBlank(row) || !row.includes('|') || startsBlock(row)) break;
          j++;
        }
        const rows = [last, ...lines.slice(i, j)];
        blocks.push({ kind: 'table', text: rows.join('\n').trim(), lines: rows });
        i = j;
        continue;
      }

      if (isQuote(line)) {
        flushPara();
        let j = i + 1;
        while (j < n) {
          const l = lines[j] ?? '';
          if (isBlank(l)) break;
          if (!isQuote(l) && (startsBlock(l) || listMarker(l))) break;
          j++;
        }
        const quoteLines = lines.slice(i, j);
        blocks.push({ kind: 'quote', text: quoteLines.join('\n').trim(), lines: quoteLines });
        i = j;
        continue;
      }

      const marker = listMarker(line);
      if (marker) {
        flushPara();
        i = parseList(lines, i, marker.contentIndent, blocks);
        continue;
      }
    } else if (para.length === 0) {
      // Indented code block (four or more columns, not continuing a paragraph).
      let j = i + 1;
      let last = i;
      while (j < n) {
        const l = lines[j] ?? '';
        if (isBlank(l)) {
          j++;
          continue;
        }
        if (indentWidth(l) < 4) break;
        last = j;
        j++;
      }
      const codeLines = lines.slice(i, last + 1);
      const text = codeLines.join('\n').trimEnd();
      blocks.push({
        kind: 'code',
        text,
        lines: codeLines,
        fence: null,
        open: '',
        close: '',
        closed: true,
      });
      i = last + 1;
      continue;
    }

    para.push(line);
    i++;
  }
  flushPara();
  return blocks;
}

/** Consumes a list starting at line `first`; returns the index of the first line after it. */
function parseList(lines: string[], first: number, contentIndent: number, blocks: MarkdownBlock[]): number {
  const n = lines.length;
  const itemStarts = [0];
  let base = contentIndent;
  let lastNonBlank = first;
  let j = first + 1;
  while (j < n) {
    const l = lines[j] ?? '';
    if (isBlank(l)) {
      j++;
      continue;
    }
    const afterBlank = j - 1 > lastNonBlank;
    const indent = indentWidth(l);
    if (indent >= base) {
      // Content of the current item: continuation, nested list or nested code.
      const fence = fenceOpen(l);
      if (fence) {
        let k = j + 1;
        while (k < n && !isFenceClose(lines[k] ?? '', fence)) k++;
        lastNonBlank = Math.min(k, n - 1);
        j = k + 1;
        continue;
      }
      lastNonBlank = j;
      j++;
      continue;
    }
    if (isThematicBreak(l)) break;
    const marker = listMarker(l);
    if (marker) {
      itemStarts.push(j - first);
      base = marker.contentIndent;
      lastNonBlank = j;
      j++;
      continue;
    }
    if (afterBlank || startsBlock(l)) break;
    lastNonBlank = j; // lazy continuation line
    j++;
  }
  const listLines = lines.slice(first, lastNonBlank + 1);
  blocks.push({ kind: 'list', text: listLines.join('\n').trimEnd(), lines: listLines, itemStarts });
  return lastNonBlank + 1;
}

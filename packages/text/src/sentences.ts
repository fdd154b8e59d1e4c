/**
 * Sentence splitting, one rule for every package: the chunker cuts over-long paragraphs with
 * it, extractive answers and summaries pick sentences with it. Linear in its input (a forward
 * scan; the backward look at an abbreviation is bounded), since it runs on whole documents.
 */

/** Marks that may close a sentence after its `.`, `!` or `?`: brackets, quotes, emphasis, code. */
const CLOSERS = new Set([')', ']', '"', "'", '”', '’', '*', '_', '`']);

/** Abbreviations whose full stop does not end a sentence ("e.g. Fastify", "Fig. 2"). */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'cf',
  'approx',
  'incl',
  'resp',
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'no',
  'fig',
  'al',
]);
const LONGEST_ABBREVIATION = 6;

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function isLowercase(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c > 127 && String.fromCharCode(c).toUpperCase() !== String.fromCharCode(c))
  );
}

/** Whether the full stop at `dot` ends an abbreviation written as its own word. */
function endsAbbreviation(text: string, dot: number): boolean {
  let from = dot;
  while (from > 0 && dot - from < LONGEST_ABBREVIATION && /[A-Za-z.]/.test(text[from - 1] ?? '')) from--;
  const before = from === 0 ? ' ' : (text[from - 1] ?? ' ');
  if (!isWhitespace(before.charCodeAt(0)) && before !== '(') return false;
  return ABBREVIATIONS.has(text.slice(from, dot).toLowerCase());
}

/**
 * Inline code spans of `text` as `[start, end)` pairs, in order: a run of backticks up to the
 * next run of the same length (CommonMark); a run with no match is plain text. One pass to find
 * the runs, one to pair them.
 */
export function codeSpans(text: string): Array<[number, number]> {
  const runs: Array<{ at: number; length: number }> = [];
  for (let i = text.indexOf('`'); i !== -1; i = text.indexOf('`', i)) {
    let j = i;
    while (text[j] === '`') j++;
    runs.push({ at: i, length: j - i });
    i = j;
  }
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    const run = runs[r];
    if (!run) continue;
    next[r] = seen.get(run.length) ?? -1;
    seen.set(run.length, r);
  }
  const spans: Array<[number, number]> = [];
  for (let r = 0; r < runs.length; r++) {
    const close = next[r] ?? -1;
    const open = runs[r];
    const end = runs[close];
    if (close === -1 || !open || !end) continue;
    spans.push([open.at, end.at + end.length]);
    r = close;
  }
  return spans;
}

/**
 * Where the sentences of `text` start, after the first: positions right after the whitespace
 * that follows `.`, `!` or `?` (and any closing brackets, quotes or marks). Not an end: a stop
 * followed by a lowercase word ("e.g. this", "v1.2 is"), an abbreviation ("e.g. Fastify"), a
 * stop inside inline code (`` `a. B` ``). With 0 and `text.length`, the positions cut the text
 * into sentences whose concatenation is the text itself.
 */
export function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  const spans = codeSpans(text);
  let span = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const code = spans[span];
    if (code && i >= code[0]) {
      if (i < code[1]) i = code[1];
      span++;
      continue;
    }
    const c = text[i];
    if (c !== '.' && c !== '!' && c !== '?') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && CLOSERS.has(text[j] ?? '') && j !== code?.[0]) j++;
    if (j < n && !isWhitespace(text.charCodeAt(j))) {
      i = j;
      continue;
    }
    if (c === '.' && j === i + 1 && endsAbbreviation(text, i)) {
      i = j;
      continue;
    }
    let k = j;
    while (k < n && isWhitespace(text.charCodeAt(k))) k++;
    if (k < n && !isLowercase(text.charCodeAt(k))) starts.push(k);
    i = k;
  }
  return starts;
}

/** The sentences of `text`, each with its trailing whitespace: they concatenate back to `text`. */
export function sentenceSlices(text: string): string[] {
  const out: string[] = [];
  let prev = 0;
  for (const s of sentenceStarts(text)) {
    out.push(text.slice(prev, s));
    prev = s;
  }
  if (prev < text.length) out.push(text.slice(prev));
  return out;
}

/** The sentences of `text`, trimmed; pieces without a letter or digit are left out. */
export function splitSentences(text: string): string[] {
  return sentenceSlices(text)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * Citation markers of an answer, renumbered for the reader. An answer cites its sources as `[n]`
 * numbered by the API's `sources` array, which holds chunks: several chunks of one page are several
 * numbers. A reader is shown pages, so every marker is renumbered to the page it names, in the order
 * the answer first cites them; a number that names no source is dropped. The widget, the dashboard
 * and the MCP `ask` tool all go through {@link citeAnswer}, so they number alike.
 *
 * No dependency on Node or the DOM, and only on the sentence rule: the widget's script bundles
 * this file (`@kbqa/text/citations`) for every page, and the text fragments of the citation links
 * (`@kbqa/text/text-fragment`, larger) only once a reader opens it.
 */
import { codeSpans, sentenceSlices } from './sentences';

/** A source as the answer's numbers count them: serviceChat's `sources`, in order, from 1. */
export interface CitableSource {
  link: string;
  title?: string | null;
  /** The chunk's text; text fragments are found in it. */
  content?: string;
}

/** One page of an answer, listed once under the number its citations now carry. */
export interface CitedPage {
  /** Its number in the rewritten answer, from 1. */
  n: number;
  link: string;
  /** The first non-empty title among its sources, if any. */
  title?: string;
  /** The title, or the address when there is none. */
  label: string;
  /** Whether the answer cites it; cited pages come first, the others after them in source order. */
  cited: boolean;
  /** The positions (from 1) of its chunks in the sources array. */
  sources: number[];
}

/** One marker of the rewritten answer. */
export interface Citation {
  /** The page number it now shows. */
  n: number;
  page: CitedPage;
  /** The source number (from 1) it had in the answer; its chunk holds the cited passage. */
  source: number;
  /**
   * The answer's words it stands for, as written (Markdown): its sentence up to the marker, from
   * the previous marker when one stands in the same sentence. Empty when nothing precedes it.
   */
  passage: string;
}

export interface CitedAnswer {
  /** The answer with every marker renumbered (`[1, 3]` and `[1][3]` both become `[1][2]`). */
  text: string;
  pages: CitedPage[];
  /** The markers of `text`, in order. */
  citations: Citation[];
}

export interface CiteOptions {
  /**
   * Writes one run of adjacent markers (never empty, one citation per page). The default writes
   * `[n]` for each; {@link citedMarkdown} writes links.
   */
  write?: (run: Citation[]) => string;
}

/** `[2]`, `[2, 5]`: up to four digits a number, as the answer generators write them. */
const MARKER = /\[(\d{1,4}(?:[ \t]*,[ \t]*\d{1,4})*)\]/y;
/** What may stand between two markers of one run: `[1][2]`, `[1] [2]`, `[1], [2]`. */
const BETWEEN = /[ \t]*,?[ \t]*/y;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

interface Run {
  start: number;
  end: number;
  numbers: number[];
}

/**
 * Renumbers the citation markers of `answer` by page. Sources are the same page when their links
 * are equal; a source without a link is a page of its own. Markers inside inline code and code
 * blocks are code, not citations, and are left alone. A run whose numbers all name no source is
 * removed with the space before it ("text [9]." becomes "text.").
 */
export function citeAnswer(
  answer: string,
  sources: readonly CitableSource[],
  options: CiteOptions = {},
): CitedAnswer {
  const write = options.write ?? ((run: Citation[]) => run.map((c) => `[${c.n}]`).join(''));
  const runs = findRuns(answer);
  const pageOf = pagesBySource(sources);
  const pages: CitedPage[] = [];
  const byKey = new Map<string, CitedPage>();
  const add = (index: number, cited: boolean): CitedPage => {
    const key = pageOf[index] ?? '';
    let page = byKey.get(key);
    if (!page) {
      const source = sources[index];
      const link = source?.link ?? '';
      page = { n: pages.length + 1, link, label: link, cited, sources: [] };
      byKey.set(key, page);
      pages.push(page);
    }
    return page;
  };

  // Cited pages take their numbers in the order the answer first cites them.
  for (const run of runs) {
    for (const n of run.numbers) if (n >= 1 && n <= sources.length) add(n - 1, true);
  }
  for (let i = 0; i < sources.length; i++) add(i, false);
  for (let i = 0; i < sources.length; i++) {
    const page = byKey.get(pageOf[i] ?? '');
    if (!page) continue;
    page.sources.push(i + 1);
    const title = sources[i]?.title?.trim();
    if (title && page.title === undefined) {
      page.title = title;
      page.label = title;
    }
  }

  const citations: Citation[] = [];
  let text = '';
  let from = 0;
  let previousEnd = 0;
  for (const run of runs) {
    const chosen: Citation[] = [];
    const passage = passageBefore(answer, run.start, previousEnd);
    for (const n of run.numbers) {
      const page = n >= 1 && n <= sources.length ? byKey.get(pageOf[n - 1] ?? '') : undefined;
      if (!page || chosen.some((c) => c.page === page)) continue;
      chosen.push({ n: page.n, page, source: n, passage });
    }
    let before = answer.slice(from, run.start);
    if (chosen.length > 0) {
      text += before + write(chosen);
      citations.push(...chosen);
    } else {
      // Dropped: no space left before the punctuation or the next word's own space.
      if (/[ \t]$/.test(before)) before = before.slice(0, -1);
      text += before;
    }
    from = run.end;
    previousEnd = run.end;
  }
  text += answer.slice(from);
  return { text, pages, citations };
}

export interface CitedMarkdownOptions {
  /**
   * Where a citation of a web page leads, given the page's address: the address itself by
   * default; `fragmentHref` (@kbqa/text/text-fragment) adds the cited passage's text fragment.
   */
  href?: (citation: Citation, address: string) => string;
}

/**
 * The answer as Markdown whose every marker is a link to its page, titled with the page, plus the
 * pages. A page whose link is not an http(s) address (a raw document's name) keeps a plain `[n]`.
 * The renderer decides target and rel.
 */
export function citedMarkdown(
  answer: string,
  sources: readonly CitableSource[],
  options: CitedMarkdownOptions = {},
): CitedAnswer {
  return citeAnswer(answer, sources, {
    write: (run) =>
      run
        .map((c) => {
          const address = webAddress(c.page.link);
          if (!address) return `[${c.n}]`;
          const href = options.href ? options.href(c, address) : address;
          const title = c.page.label.replace(/["\\]/g, '\\$&').replace(/\s+/g, ' ');
          return `[\\[${c.n}\\]](<${href}> "${title}")`;
        })
        .join(''),
  });
}

/** The link as an absolute http(s) address, or undefined when it is not one. */
export function webAddress(link: string): string | undefined {
  // `URL.parse` is newer than the browsers the widget supports.
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The page key of each source: its link, or its own key when it has none. */
function pagesBySource(sources: readonly CitableSource[]): string[] {
  return sources.map((s, i) => (s.link ? `l:${s.link}` : `s:${i}`));
}

/** Runs of markers outside code, in order. */
function findRuns(text: string): Run[] {
  const runs: Run[] = [];
  for (const [start, end] of proseStretches(text)) {
    const spans = codeSpans(text.slice(start, end)).map(([a, b]) => [a + start, b + start] as const);
    let span = 0;
    for (let i = text.indexOf('[', start); i !== -1 && i < end; i = text.indexOf('[', i + 1)) {
      while (span < spans.length && (spans[span]?.[1] ?? 0) <= i) span++;
      const code = spans[span];
      if (code && i >= code[0]) {
        i = code[1] - 1;
        continue;
      }
      const first = markerAt(text, i);
      if (!first) continue;
      const run: Run = { start: i, end: first.end, numbers: first.numbers };
      for (;;) {
        BETWEEN.lastIndex = run.end;
        BETWEEN.exec(text);
        const next = BETWEEN.lastIndex < end ? markerAt(text, BETWEEN.lastIndex) : undefined;
        if (!next || next.end > end) break;
        run.end = next.end;
        run.numbers.push(...next.numbers);
      }
      runs.push(run);
      i = run.end - 1;
    }
  }
  return runs;
}

function markerAt(text: string, at: number): { end: number; numbers: number[] } | undefined {
  MARKER.lastIndex = at;
  const m = MARKER.exec(text);
  if (!m) return undefined;
  // `[1](https://…)` is a Markdown link and `[1]: https://…` a link definition, not citations.
  const after = text[MARKER.lastIndex];
  if (after === '(' || (after === ':' && (at === 0 || text[at - 1] === '\n'))) return undefined;
  return { end: MARKER.lastIndex, numbers: (m[1] ?? '').split(',').map((n) => Number(n.trim())) };
}

/** `[start, end)` stretches of `text` outside fenced code blocks. */
function proseStretches(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let fence: string | undefined;
  let proseFrom = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const mark = FENCE.exec(text.slice(lineStart, lineEnd))?.[1];
    if (fence === undefined && mark) {
      if (lineStart > proseFrom) out.push([proseFrom, lineStart]);
      fence = mark;
    } else if (fence !== undefined && mark && mark[0] === fence[0] && mark.length >= fence.length) {
      fence = undefined;
      proseFrom = lineEnd;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (fence === undefined && proseFrom < text.length) out.push([proseFrom, text.length]);
  return out;
}

/**
 * What a marker at `at` cites: the last sentence of its line since the previous marker, else the
 * last sentence of its line before the marker, other markers left out.
 */
function passageBefore(text: string, at: number, previousEnd: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const since = lastSentence(text.slice(Math.max(lineStart, previousEnd), at));
  return since || lastSentence(text.slice(lineStart, at));
}

const ANY_MARKER = /[ \t]*\[\d{1,4}(?:[ \t]*,[ \t]*\d{1,4})*\]/g;

function lastSentence(markdown: string): string {
  const slices = sentenceSlices(markdown.replace(ANY_MARKER, '')).filter((s) => /[\p{L}\p{N}]/u.test(s));
  return (slices[slices.length - 1] ?? '').trim();
}

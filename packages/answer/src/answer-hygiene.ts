/**
 * Answer hygiene: what a reader must never see in an answer, checked the same way by the
 * benchmark's linter ({@link lintAnswer}) and by the extractive generator's runtime guard
 * ({@link guardPieces}), so that what the benchmark counts is exactly what the guard removes.
 *
 * The rules, each named so a count per rule can be reported:
 * - `announces-unshown`: a sentence that announces something ("… the following:", "… as
 *   follows.", "… shown below.", "Here is how") when no code block or list follows it;
 * - `mid-thought`: a sentence that ends on a word that cannot end one ("They make it possible
 *   to [1].", "… such as [2]."): a list introduction whose list was dropped, or a cut sentence;
 * - `callout-markup`: admonition markup copied as text (`warning **Warning**`, `:::tip`,
 *   `!!! note`, `> [!NOTE]`, `{% hint %}`, `.. note::`);
 * - `repeated-sentence`: the same sentence twice;
 * - `dangling-citation`: a `[n]` that names no listed source.
 */

export type HygieneRule =
  'announces-unshown' | 'mid-thought' | 'callout-markup' | 'repeated-sentence' | 'dangling-citation';

export const HYGIENE_RULES: readonly HygieneRule[] = [
  'announces-unshown',
  'mid-thought',
  'callout-markup',
  'repeated-sentence',
  'dangling-citation',
];

export interface HygieneViolation {
  rule: HygieneRule;
  /** The offending sentence, or the marker for a dangling citation. */
  text: string;
}

/** Citation markers: `[1]`, and the `[1][2]` or `[1, 2]` forms. */
const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
const FENCE = /^\s*(?:```|~~~)/;
/** A line that starts a list item. */
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+\S/;

/**
 * Words that announce what comes next. They are matched at the end of a sentence (its citation
 * and final punctuation aside) or, for "here is/here's", at its start.
 */
const ANNOUNCES_AT_END =
  /\b(?:the\s+following(?:\s+[\p{L}-]+){0,3}|as\s+follows|(?:shown|described|listed|given|see|outlined|illustrated)\s+below|below|like\s+so|like\s+this|this\s+way|the\s+next\s+(?:example|snippet|code))$/iu;
const ANNOUNCES_AT_START =
  /^(?:here\s+is|here's|here\s+are|the\s+following\s+(?:example|snippet|code|code\s+block)s?\b)/i;

/**
 * Words a sentence cannot end on: prepositions, articles, conjunctions, determiners and list
 * openers ("such as", "e.g."). Words that end real sentences are left out: particles ("turn it
 * on", "set it up"), modals and "be" ("as it should", "than it needs to be"), pronouns ("avoid
 * this").
 */
const DANGLING = new Set([
  'to',
  'of',
  'for',
  'with',
  'the',
  'a',
  'an',
  'and',
  'or',
  'nor',
  'but',
  'by',
  'from',
  'as',
  'than',
  'into',
  'onto',
  'via',
  'your',
  'its',
  'their',
  'our',
  'either',
  'between',
  'including',
  'includes',
  'include',
  'namely',
  'e.g',
  'i.e',
  'eg',
  'ie',
  'such',
  'using',
  'whether',
  'if',
]);

/** Prepositions a verb may leave at the end of a sentence, and verbs that do so without an ending. */
const STRANDING = new Set(['to', 'for', 'with', 'from', 'of', 'into', 'onto']);
const STRANDING_VERBS = new Set([
  'listen',
  'listens',
  'refer',
  'refers',
  'belong',
  'belongs',
  'point',
  'points',
  'deal',
  'deals',
  'respond',
  'responds',
  'apply',
  'applies',
  'bind',
  'binds',
  'map',
  'maps',
  'look',
  'looks',
  'wait',
  'waits',
  'come',
  'comes',
  'go',
  'goes',
  'work',
  'works',
  'run',
  'runs',
  'built',
  'made',
  'set',
]);

/** Admonition markup as the common documentation generators write it. */
const CALLOUT_MARKUP: RegExp[] = [
  // NestJS-style callouts flattened to text: "warning **Warning**", "info **Hint**".
  /(?:^|\s)(?:warning|info|hint|note|tip|error|danger|caution|success|important)\s+\*\*[A-Z][\w ]{0,20}\*\*/i,
  // Docusaurus, VitePress and MDX containers.
  /(?:^|\s):::\s*[a-z]*/i,
  // MkDocs / Material admonitions.
  /(?:^|\s)(?:!!!|\?\?\?\+?)\s*[a-z]+/i,
  // GitHub alerts.
  /\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]/i,
  // GitBook hints.
  /\{%\s*(?:end)?hint\b/i,
  // reST / Sphinx directives.
  /(?:^|\s)\.\.\s+(?:note|warning|tip|important|caution|danger|hint|attention|admonition|seealso)::/i,
];

interface Block {
  kind: 'code' | 'list' | 'prose';
  text: string;
}

/** The answer cut into code blocks, list blocks and prose paragraphs, in order. */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let prose: string[] = [];
  let list: string[] = [];
  const flush = (): void => {
    const p = prose.join(' ').trim();
    if (p) blocks.push({ kind: 'prose', text: p });
    const l = list.join('\n').trim();
    if (l) blocks.push({ kind: 'list', text: l });
    prose = [];
    list = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (FENCE.test(line)) {
      flush();
      const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1] ?? '```';
      const code = [line];
      for (i++; i < lines.length; i++) {
        code.push(lines[i] ?? '');
        if ((lines[i] ?? '').trim().startsWith(fence)) break;
      }
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (LIST_ITEM.test(line) || (list.length > 0 && /^\s+\S/.test(line))) {
      if (prose.length > 0) {
        const p = prose.join(' ').trim();
        blocks.push({ kind: 'prose', text: p });
        prose = [];
      }
      list.push(line);
      continue;
    }
    if (list.length > 0) flush();
    prose.push(line.trim());
  }
  flush();
  return blocks;
}

/**
 * Sentences of a prose paragraph: cut after a full stop, question or exclamation mark (a citation
 * may stand before it) followed by a space, so "e.g. this" and "v1.2" stay whole.
 */
function sentencesOf(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /[.!?](?=\s+(?:[A-Z`"'(*_[]|$))/g;
  for (const m of paragraph.matchAll(re)) {
    const end = (m.index ?? 0) + 1;
    const before = paragraph.slice(Math.max(0, end - 5), end).toLowerCase();
    // "e.g." and "i.e." end no sentence.
    if (/(?:e\.g|i\.e|etc|vs)\.$/.test(before)) continue;
    const s = paragraph.slice(start, end).trim();
    if (s) out.push(s);
    start = end;
  }
  const rest = paragraph.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** The sentence without its citation markers, final punctuation and surrounding emphasis. */
function bareSentence(sentence: string): string {
  return sentence
    .replace(CITATION, '')
    .replace(/[\s.!?:;,]+$/, '')
    .replace(/[*_]+$/, '')
    .trim();
}

/** Whether the sentence announces something shown after it. */
export function announces(sentence: string): boolean {
  const trimmed = sentence.replace(CITATION, '').trim();
  if (trimmed.endsWith(':')) return true;
  const bare = bareSentence(sentence);
  return ANNOUNCES_AT_END.test(bare) || ANNOUNCES_AT_START.test(bare);
}

/** Whether the sentence stops on a word that cannot end one. */
export function endsMidThought(sentence: string): boolean {
  const bare = bareSentence(sentence);
  // A sentence ending in code (`option: true`) or a closing quote or bracket is complete.
  if (/[`"')\]]$/.test(bare)) return false;
  const words = /(?:^|\s)([\p{L}`'.-]+)\s+([\p{L}.]+)$/u.exec(bare);
  const last = (words?.[2] ?? /([\p{L}.]+)$/u.exec(bare)?.[1])?.toLowerCase().replace(/\.$/, '');
  if (last === undefined || !DANGLING.has(last)) return false;
  // A preposition left at the end by its verb is English ("the origin it is listening to",
  // "the hook it belongs to"); one after an adjective or a name is a cut ("possible to").
  const before = words?.[1]?.toLowerCase() ?? '';
  return !(STRANDING.has(last) && (/(?:ing|ed)$/.test(before) || STRANDING_VERBS.has(before)));
}

/** Whether the text carries admonition markup. */
export function hasCalloutMarkup(text: string): boolean {
  return CALLOUT_MARKUP.some((re) => re.test(text));
}

const normalized = (s: string): string =>
  bareSentence(s).toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();

/**
 * Every hygiene violation in an answer. `citable` holds the source numbers a `[n]` may name
 * (the `n` of the request's sources); without it citations are not checked. A "not covered"
 * answer's reading suggestions are links, not citations, and pass.
 */
export function lintAnswer(text: string, citable?: ReadonlySet<number>): HygieneViolation[] {
  const out: HygieneViolation[] = [];
  const seen = new Set<string>();
  const blocks = blocksOf(text);
  blocks.forEach((block, i) => {
    if (block.kind === 'code') return;
    if (citable) {
      for (const m of block.text.matchAll(CITATION)) {
        // A markdown link's text ("[Routes](./Routes.md)") is no citation.
        if (block.text[(m.index ?? 0) + m[0].length] === '(') continue;
        const numbers = (m[1] ?? '').split(',').map((n) => Number(n.trim()));
        if (numbers.some((n) => !citable.has(n))) out.push({ rule: 'dangling-citation', text: m[0] });
      }
    }
    if (hasCalloutMarkup(block.text)) out.push({ rule: 'callout-markup', text: block.text });
    if (block.kind === 'list') return;
    const sentences = sentencesOf(block.text);
    const next = blocks[i + 1];
    sentences.forEach((sentence, j) => {
      const last = j === sentences.length - 1;
      const shown = last && next !== undefined && next.kind !== 'prose';
      if (announces(sentence) && !shown) out.push({ rule: 'announces-unshown', text: sentence });
      else if (endsMidThought(sentence) && !shown) out.push({ rule: 'mid-thought', text: sentence });
      const key = normalized(sentence);
      if (key.length > 0 && seen.has(key)) out.push({ rule: 'repeated-sentence', text: sentence });
      seen.add(key);
    });
  });
  return out;
}

/**
 * The runtime guard over an answer's pieces as the extractive generator renders them (one
 * sentence or one code block each, with its leading separator): a sentence piece that breaks a
 * rule is dropped, a citation naming no source is removed from its sentence. A piece that holds
 * a code block or a list shows what the sentence before it announces. Returns the kept pieces,
 * the first without a leading separator.
 */
export function guardPieces(pieces: string[], citable: ReadonlySet<number>): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  const holdsCode = (piece: string): boolean => /(?:```|~~~)/.test(piece);
  const shows = (piece: string | undefined): boolean =>
    piece !== undefined && (holdsCode(piece) || piece.split('\n').some((l) => LIST_ITEM.test(l)));
  pieces.forEach((piece, i) => {
    if (holdsCode(piece)) {
      kept.push(piece);
      return;
    }
    const fixed = piece.replace(CITATION, (marker, numbers: string, offset: number) => {
      if (piece[offset + marker.length] === '(') return marker;
      const valid = numbers
        .split(',')
        .map((n) => Number(n.trim()))
        .filter((n) => citable.has(n));
      return valid.length > 0 ? `[${valid.join(', ')}]` : '';
    });
    const sentence = fixed.trim();
    const shown = shows(pieces[i + 1]);
    if (hasCalloutMarkup(sentence)) return;
    if ((announces(sentence) || endsMidThought(sentence)) && !shown) return;
    const key = normalized(sentence);
    if (key.length > 0 && seen.has(key)) return;
    seen.add(key);
    kept.push(fixed.replace(/ +([.!?:;])/g, '$1').replace(/ {2,}/g, ' '));
  });
  if (kept.length > 0) kept[0] = (kept[0] ?? '').replace(/^\s+/, '');
  return kept;
}

/** Tokenizing, light stemming and identifier spotting shared by the extractive parts. */
import { isStopWord, variantHead } from '@kbqa/text';

/** A deliberately small suffix stripper: enough to match "plugins"/"plugin", "registering"/"register". */
export function stem(word: string): string {
  let w = word.toLowerCase();
  // "404s", "2xxs": the plural of a number or code names the same thing.
  if (/^\d+x*s$/.test(w)) return w.slice(0, -1);
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (/(?:ches|shes|xes|zes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith('ly') && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

const WORD = /[\p{L}\p{N}_$]+/gu;

/**
 * Content terms of a text, stemmed, in order, duplicates kept. camelCase and snake_case words
 * also contribute their parts, so `enableCors` matches "cors".
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const raw = match[0];
    let own = WORD_TERMS.get(raw);
    if (own === undefined) {
      own = wordTerms(raw);
      if (WORD_TERMS.size >= MAX_CACHED_WORDS) WORD_TERMS.clear();
      WORD_TERMS.set(raw, own);
    }
    for (const t of own) out.push(t);
  }
  return out;
}

/**
 * The terms of each word seen, as {@link wordTerms} gives them: documentation repeats its words,
 * and stemming and splitting each again was most of composing an answer (1.9 ms of a chat's
 * answer at 60k chunks before, bench/load.js profile).
 */
const WORD_TERMS = new Map<string, readonly string[]>();
const MAX_CACHED_WORDS = 50_000;
/** Where a word splits into parts: `_`, or a capital after a lowercase letter or digit. */
const PART_BREAK = /_|(?<=[a-z0-9])(?=[A-Z])/;

function wordTerms(raw: string): string[] {
  const out: string[] = [];
  const lower = raw.toLowerCase();
  if (!isStopWord(lower) && (lower.length > 1 || /\d/.test(lower))) out.push(termOf(lower));
  const parts = raw.split(PART_BREAK).filter((p) => p !== '');
  if (parts.length > 1) {
    for (const part of parts) {
      const p = part.toLowerCase();
      if (p.length > 1 && !isStopWord(p)) out.push(termOf(p));
    }
  }
  return out;
}

/**
 * A lowercase word's term: its stem, or for a word of a variant group (@kbqa/text
 * `WORD_VARIANT_GROUPS`: "logger", "logging", "log") the stem of the group's first word, so a
 * question's "log lines" matches a page's "logger".
 */
function termOf(lower: string): string {
  return IRREGULAR.get(lower) ?? stem(variantHead(lower) ?? lower);
}

/**
 * Comparatives the suffix stripper cannot relate to their superlative: a question asks which
 * platform is "better", the page names "the best way".
 */
const IRREGULAR = new Map([['better', 'best']]);

const IDENTIFIER_PATTERNS = [
  /@[\w$.-]+\/[\w$.-]+/g,
  // A command-line flag: `--inspect`, `--no-deprecation`.
  /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g,
  /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?/g,
  /[A-Za-z_$][\w$]*\(\)/g,
  /\b[a-z]+[A-Z][\w$]*/g,
];

/**
 * Code-like names in a text, lowercased without a trailing `()`: inline code spans, scoped
 * packages (`@fastify/cors`), command-line flags (`--inspect`), dotted names (`reply.send()`),
 * calls and camelCase words.
 */
export function identifiers(text: string): string[] {
  const found = new Set<string>();
  const add = (value: string): void => {
    const id = value
      .trim()
      .toLowerCase()
      .replace(/\(\)$/, '')
      .replace(/^\.+|\.+$/g, '');
    // "e.g" and "i.e" are prose, not names.
    if (id.length < 3 || id.split('.').every((part) => part.length <= 1)) return;
    found.add(id);
  };
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const span = match[1] ?? '';
    if (span.length <= 60 && !/\s/.test(span.trim())) add(span);
  }
  for (const pattern of IDENTIFIER_PATTERNS) {
    for (const match of text.matchAll(pattern)) add(match[0]);
  }
  return [...found];
}

/**
 * The other spelling of a name on the request object: handlers name it `req` as often as
 * `request`, and pages use both (`req.hostname`, `request.socket`).
 */
function receiverAlias(id: string): string | undefined {
  if (id.startsWith('req.')) return `request.${id.slice(4)}`;
  if (id.startsWith('request.')) return `req.${id.slice(8)}`;
  return undefined;
}

/**
 * Whether `id` (from {@link identifiers}) occurs in `lowerText` as a whole name, also as
 * `request.x` for `req.x` and the other way round.
 */
export function containsIdentifier(lowerText: string, id: string): boolean {
  const alias = receiverAlias(id);
  return containsName(lowerText, id) || (alias !== undefined && containsName(lowerText, alias));
}

function containsName(lowerText: string, id: string): boolean {
  let from = 0;
  for (;;) {
    const at = lowerText.indexOf(id, from);
    if (at < 0) return false;
    const before = lowerText[at - 1] ?? ' ';
    const after = lowerText[at + id.length] ?? ' ';
    // A hyphenated name goes on past a hyphen: `--inspect` is not `--inspect-brk`.
    const goesOn = id.includes('-') ? /[\w$-]/ : /[\w$]/;
    if (!/[\w$@]/.test(before) && !goesOn.test(after)) return true;
    from = at + 1;
  }
}

/** Words after which a question names what it does not want: "test without listening", "all routes except /health". */
const NEGATION = /\b(without|except|excluding)\s+/gi;
/** Words between a negation and what it negates: "without actually listening", "without a port". */
const FILLER = /^(?:an?|the|any|my|your|its|their|our|this|that|some|\w+ly)$/i;

/** What a question excludes, and the words that only say so. */
export interface Negation {
  /** Terms of what is excluded: "listen" in "test without actually listening". */
  excluded: Set<string>;
  /** Terms of the negation and its fillers ("without", "actually"): no page needs them. */
  framing: Set<string>;
}

/**
 * The terms a question excludes: the first content word after "without", "except" or
 * "excluding" ("listen" in "How do I test routes without actually listening on a port?"). Such a
 * word names what the reader wants to avoid; a sentence about it answers the opposite question.
 * "Other than JSON" is not one: the answer starts from what JSON gets and goes on to the rest.
 */
export function negation(question: string): Negation {
  const excluded = new Set<string>();
  const framing = new Set<string>();
  for (const m of question.matchAll(NEGATION)) {
    for (const t of terms(m[1] ?? '')) framing.add(t);
    const rest = question.slice((m.index ?? 0) + m[0].length);
    for (const word of rest.match(/[\p{L}\p{N}_$./-]+/gu) ?? []) {
      if (FILLER.test(word)) {
        for (const t of terms(word)) framing.add(t);
        continue;
      }
      for (const t of terms(word)) excluded.add(t);
      break;
    }
  }
  return { excluded, framing };
}

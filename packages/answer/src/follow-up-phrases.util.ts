/**
 * The words of a follow-up and of the question before it, read for resolveFollowUp
 * (follow-up.util.ts): its lead, its frame, the phrase it names, the previous question's subject
 * and the phrase a follow-up substitutes for it.
 */
import type { ResolvedFollowUp } from './follow-up.util';
import { stem, terms } from './terms.util';

/**
 * Words that ask something without naming a topic: a question made of these alone ("how do I
 * change the default?", "is there an example?") has its topic in the conversation.
 */
export const GENERIC = new Set(
  [
    'use',
    'using',
    'make',
    'get',
    'set',
    'change',
    'configure',
    'enable',
    'disable',
    'work',
    'need',
    'want',
    'happen',
    'default',
    'example',
    'option',
    'way',
    'possible',
    'thing',
    'instead',
    'else',
    'good',
    'better',
    'best',
    'right',
    'wrong',
    'mean',
    'difference',
    'do',
    'one',
    'again',
    'still',
    'more',
    'other',
    'different',
    'same',
    'differently',
  ].map(stem),
);

/** A word of a question as written, with the punctuation after it. */
interface Word {
  text: string;
  /** Lowercase, backticks removed. */
  lower: string;
  /** The punctuation that followed it ("," "?"), empty for none. */
  trail: string;
}

/** A run of a question's words, [start, end). */
interface Span {
  start: number;
  end: number;
}

/** Most words a noun phrase taken from a question runs to ("the raw Node.js request object"). */
const MAX_PHRASE_WORDS = 5;
const LEAD_WORDS = new Set(['and', 'or', 'but', 'also', 'so', 'then', 'plus', 'ok', 'okay', 'now']);
const LEAD_PAIRS = new Set(['what about', 'how about', 'what of', 'same for', 'same with']);
/** Words a question opens with when it has a frame of its own. */
const QUESTION_START = new Set(
  (
    'how what which why when where who whom whose is are was were can could do does did should will ' +
    'would may might must shall has have had'
  ).split(' '),
);
/** Requests that open with a verb naming no subject: "explain it", "show me one". */
const IMPERATIVES = new Set(['explain', 'describe', 'define', 'show', 'tell', 'list', 'give']);
const AUXILIARIES = new Set(
  'do does did can could should would will may might must shall is are was were has have had'.split(' '),
);
const PERSONS = new Set(['i', 'we', 'you']);
const DETERMINERS = new Set(
  'a an the my our your their its this that these those some any each every all no another'.split(' '),
);
export const PREPOSITIONS = new Set(
  (
    'to for in into on onto from with without over under by at of about across before after between ' +
    'via through during inside within outside behind per against except like as than upon toward ' +
    'towards around'
  ).split(' '),
);
/** Prepositions whose phrase in a follow-up is a new subject, not a narrowing ("and for guards?"). */
export const SUBSTITUTING = new Set(['for', 'about', 'of']);
/** Prepositions a follow-up may use for the one the previous question used ("to the request" → "for the reply"). */
const EQUIVALENT: Record<string, string[]> = { for: ['to'], to: ['for'] };
/** Words that end a noun phrase besides prepositions: relatives, conjunctions, verbs of being. */
const PHRASE_END = new Set([
  ...'that which who whom whose when where if so and or but while because whether then not'.split(' '),
  ...AUXILIARIES,
]);
/** Words that count what a phrase names: "one route", "every plugin", "all hooks". */
const QUANTIFIERS = new Set([
  'one',
  'each',
  'every',
  'all',
  'any',
  'some',
  'several',
  'no',
  'only',
  'single',
]);
/** Verb particles after a how-to's verb: "set up CORS", "turn off logging". */
const PARTICLES = new Set(['up', 'out', 'off', 'down']);
/** Nouns that only say what kind of thing the subject is; kept when another subject takes its place. */
const KIND_NOUNS = new Set(
  (
    'object objects option options method methods function functions hook hooks property properties ' +
    'setting settings flag flags parameter parameters event events api class'
  ).split(' '),
);
/** "is it possible to …": an "it" that stands for nothing. */
const DUMMY_IT_NEXT = new Set(
  'possible necessary better best recommended ok okay safe worth fine normal required true'.split(' '),
);
const NUMBER_WORD = /^(?:\d+|two|three|four|five|six|seven|eight|nine|ten)$/;

export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const raw of text.trim().split(/\s+/)) {
    const opened = raw.replace(/^[("'“‘¿¡]+/, '');
    // A call's "()" is part of the name; a closing parenthesis without its opening one is not.
    const trailing = (opened.includes('(') ? /[?!.,;:"'”’]+$/ : /[?!.,;:)"'”’]+$/).exec(opened);
    const word = trailing ? opened.slice(0, trailing.index) : opened;
    if (word === '') continue;
    out.push({
      text: word,
      lower: word.toLowerCase().replace(/`/g, '').replace(/’/g, "'"),
      trail: trailing?.[0] ?? '',
    });
  }
  return out;
}

export function joined(list: Word[]): string {
  return list.map((w) => w.text + w.trail).join(' ');
}

export function phrase(list: Word[], span: Span): string {
  return list
    .slice(span.start, span.end)
    .map((w) => w.text)
    .join(' ');
}

export function unpunctuated(text: string): string {
  return text.replace(/[\s?!.:;,]+$/, '');
}

export function optional(context: string | undefined): { context?: string } {
  return context ? { context } : {};
}

/** How many words at the start only join a follow-up to the conversation ("and", "what about"). */
export function leadLength(list: Word[]): number {
  let i = 0;
  for (;;) {
    const pair = `${list[i]?.lower ?? ''} ${list[i + 1]?.lower ?? ''}`;
    if (LEAD_PAIRS.has(pair) && i + 2 < list.length) i += 2;
    else if (LEAD_WORDS.has(list[i]?.lower ?? '') && i + 1 < list.length) i += 1;
    else return i;
  }
}

/** Whether a question has a frame of its own ("how do I …", "can I …", "limit it to …"), not only a phrase. */
export function hasFrame(list: Word[]): boolean {
  const first = list[0]?.lower ?? '';
  if (QUESTION_START.has(first) || IMPERATIVES.has(first)) return true;
  // "limit it to some paths", "compare two branches": a verb before its object.
  const next = list[1]?.lower;
  if (next === undefined || DETERMINERS.has(first) || PREPOSITIONS.has(first)) return false;
  if (/[A-Z0-9@./_$`-]/.test(list[0]?.text ?? '')) return false;
  return (
    DETERMINERS.has(next) || NUMBER_WORD.test(next) || ['it', 'them', 'one', 'this', 'these'].includes(next)
  );
}

/** Whether the i-th word points back at the conversation's subject. */
export function isReferring(list: Word[], i: number): boolean {
  const w = list[i]?.lower ?? '';
  const before = list[i - 1]?.lower;
  const after = list[i + 1]?.lower;
  const closes =
    after === undefined || (list[i]?.trail ?? '') !== '' || PREPOSITIONS.has(after) || PHRASE_END.has(after);
  switch (w) {
    case 'it':
      return after === undefined || !DUMMY_IT_NEXT.has(after);
    case 'its':
    case "it's":
    case 'they':
    case 'them':
    case 'their':
      return true;
    case 'this':
    case 'these':
    case 'those':
      return closes || PARTICLES.has(after ?? '');
    case 'one':
    case 'ones':
      return (
        closes ||
        ['which', 'each', 'any', 'another', 'the', 'a', 'single', 'this', 'that'].includes(before ?? '')
      );
    default:
      return false;
  }
}

export function withPronounsReplaced(list: Word[], at: number[], subject: string): string {
  return list
    .map((w, i) => {
      if (!at.includes(i)) return w.text + w.trail;
      return (w.lower === "it's" ? `${subject} is` : subject) + w.trail;
    })
    .join(' ');
}

/** Whether words name something beyond pronouns and words such as "default" or "change". */
export function namesSomething(list: Word[]): boolean {
  return terms(list.map((w) => w.text).join(' ')).some((t) => !GENERIC.has(t));
}

/**
 * Whether a phrase says where or when rather than naming a thing: it is counted ("one route",
 * "every plugin") or has a clause ("requests that match no route"). "and for one route?" narrows
 * the previous question; "and for guards?" asks it of something else.
 */
export function describesScope(list: Word[]): boolean {
  const first = list[0]?.lower ?? '';
  if (QUANTIFIERS.has(first) || NUMBER_WORD.test(first)) return true;
  if (first === 'a' && list[1]?.lower === 'single') return true;
  return list.slice(1).some((w) => PHRASE_END.has(w.lower));
}

/** Whether a word is an adverb ending a phrase: "globally", "cleanly" (not "reply", "apply"). */
function isAdverb(lower: string): boolean {
  return lower.length > 5 && /[^p]ly$/.test(lower);
}

/** The end of the noun phrase starting at `start` (determiners first), at most {@link MAX_PHRASE_WORDS} words. */
function phraseEnd(list: Word[], start: number): number {
  let k = start;
  while (k < list.length && DETERMINERS.has(list[k]!.lower)) k++;
  let taken = 0;
  while (k < list.length && taken < MAX_PHRASE_WORDS) {
    const w = list[k]!;
    if (PREPOSITIONS.has(w.lower) || PHRASE_END.has(w.lower) || isAdverb(w.lower)) break;
    k++;
    taken++;
    if (w.trail !== '' && k < list.length) break;
  }
  return k;
}

/**
 * What a question asks about: its first noun phrase after the frame, without determiners
 * ("preHandler hook" of "How do I add a preHandler hook to a single route?", "pluginTimeout
 * option" of "What does the pluginTimeout option control?", "Postgres" of "How do I connect to
 * Postgres?"). Undefined when the question has none.
 */
export function subjectSpan(list: Word[]): Span | undefined {
  const at = (k: number): string => list[k]?.lower ?? '';
  let i = leadLength(list);
  let verbFirst = false;
  let verbLast = false;
  if (['how', 'what', 'which', 'why', 'when', 'where', 'who'].includes(at(i))) {
    const wh = at(i++);
    // "How long is …", "how many …": the measure is not the subject.
    if (
      wh === 'how' &&
      ['long', 'many', 'much', 'often', 'big', 'large', 'fast', 'old', 'soon'].includes(at(i))
    )
      i++;
    if (wh === 'how' && at(i) === 'to') {
      i++;
      verbFirst = true;
    }
  }
  if (!verbFirst && AUXILIARIES.has(at(i))) {
    const aux = at(i++);
    if (PERSONS.has(at(i))) {
      i++;
      verbFirst = true;
    } else if (at(i) === 'there') {
      // "Is there a way to log every request?"
      i++;
      if (
        DETERMINERS.has(at(i)) &&
        ['way', 'option', 'setting', 'method'].includes(at(i + 1)) &&
        at(i + 2) === 'to'
      ) {
        i += 3;
        verbFirst = true;
      }
    } else if (['do', 'does', 'did'].includes(aux)) {
      // "What does the bodyLimit option do?", "How do hooks work?"
      verbLast = true;
    }
  } else if (IMPERATIVES.has(at(i))) {
    i++;
    if (at(i) === 'me') i++;
  }
  if (verbFirst) {
    i++;
    while (PARTICLES.has(at(i))) i++;
  }
  // "connect to Postgres", "serve over HTTP/2": the subject is the preposition's object.
  if (PREPOSITIONS.has(at(i))) i++;
  while (DETERMINERS.has(at(i))) i++;
  let end = phraseEnd(list, i);
  if (verbLast && end === list.length && end - i >= 2) end--;
  return end > i ? { start: i, end } : undefined;
}

/** The phrase after the previous question's `preposition` (or an equivalent one), determiners included. */
export function parallelPhrase(list: Word[], preposition: string): Span | undefined {
  for (const p of [preposition, ...(EQUIVALENT[preposition] ?? [])]) {
    for (let j = list.length - 1; j >= 0; j--) {
      if (list[j]!.lower !== p) continue;
      const end = phraseEnd(list, j + 1);
      if (end > j + 1 && end > firstNonDeterminer(list, j + 1)) return { start: j + 1, end };
    }
  }
  return undefined;
}

function firstNonDeterminer(list: Word[], from: number): number {
  let k = from;
  while (k < list.length && DETERMINERS.has(list[k]!.lower)) k++;
  return k;
}

/**
 * The previous question with `stated` in place of `span`, a trailing kind noun kept ("the raw
 * request object" → "the reply object"), `stated` as the focus and the rest as context. The
 * words it displaced are left out: they are the subject the reader moved away from, and as
 * context they brought its sentences back into the answer.
 */
export function substituted(prev: Word[], span: Span, stated: Word[]): ResolvedFollowUp {
  // One determiner: the previous question's, else the follow-up's ("a session store" for "CORS").
  const determined = DETERMINERS.has(prev[span.start - 1]?.lower ?? '');
  const incoming = determined ? stated.slice(firstNonDeterminer(stated, 0)) : stated;
  const replaced = prev.slice(span.start, span.end);
  const kind = replaced[replaced.length - 1];
  const keepKind =
    kind !== undefined &&
    KIND_NOUNS.has(kind.lower) &&
    replaced.filter((w) => !DETERMINERS.has(w.lower)).length >= 2 &&
    !KIND_NOUNS.has(incoming[incoming.length - 1]?.lower ?? '');
  const inserted = [...incoming.map((w) => w.text), ...(keepKind ? [kind.text] : [])].join(' ');
  const before = joined(prev.slice(0, span.start));
  const after = joined(prev.slice(span.end));
  const frame = [...prev.slice(0, span.start), ...prev.slice(span.end)]
    .map((w) => w.text)
    .filter((w) => terms(w).length > 0);
  return {
    reading: 'substitutes',
    question: `${unpunctuated([before, inserted, after].filter((s) => s !== '').join(' '))}?`,
    focus: inserted,
    ...optional(frame.join(' ')),
  };
}

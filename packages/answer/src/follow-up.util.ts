import type { HistoryTurn } from '@kbqa/core';
import { isStopWord } from '@kbqa/text';
import { identifiers, stem, terms } from './terms.util';

const MAX_KEY_TERMS = 6;
/** A question of at most this many words leans on the conversation ("and the status code?"). */
const MAX_SHORT_WORDS = 4;
/** A pronoun only marks a follow-up in a question of at most this many words; longer ones name their own topic. */
const MAX_PRONOUN_WORDS = 10;
/** History turns whose prompts give a follow-up its topic, newest first. */
const CONTEXT_TURNS = 3;
const MAX_CONTEXT_TERMS = 8;
/** Code names quoted in the last answer that join the context (the names its sources use). */
const MAX_ANSWER_IDENTIFIERS = 3;
// Not "that" or "there": "a hook that runs…", "is there a way to…" start standalone questions.
const PRONOUN =
  /\b(?:it|its|it's|this|these|those|they|them|their|one|ones|same|above|former|latter|he|she)\b/i;
const FOLLOW_UP_LEAD =
  /^\s*(?:and|or|but|also|so|what about|how about|what of|same for|then|in|for|with|without|instead)\b/i;
/**
 * Words that ask something without naming a topic: a question made of these alone ("how do I
 * change the default?", "is there an example?") has its topic in the conversation.
 */
const GENERIC = new Set(
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

/**
 * Whether a question leans on the conversation for its topic: it starts like a continuation
 * ("and …", "what about …", "how about …", "also …"), is very short (at most 4 words), names no
 * topic of its own (only words such as "change", "default", "example"), or holds a pronoun
 * ("it", "its", "this", "they", "one"…) in at most 12 words.
 */
export function isFollowUp(question: string): boolean {
  const words = question.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return false;
  if (FOLLOW_UP_LEAD.test(question) || words.length <= MAX_SHORT_WORDS) return true;
  if (terms(question).every((t) => GENERIC.has(t))) return true;
  return words.length <= MAX_PRONOUN_WORDS && PRONOUN.test(question);
}

/** How a follow-up relates to the turn before it ({@link resolveFollowUp}). */
export type FollowUpReading =
  /** Not a follow-up, or no history: the question as asked. */
  | 'standalone'
  /** A follow-up with a subject of its own ("and how do I debug a single test?"). */
  | 'own-topic'
  /** It points back with a pronoun, or asks without naming anything: the previous subject is its subject. */
  | 'refers-back'
  /** "and in TypeScript?", "what about without TLS?": the previous question, narrowed. */
  | 'refines'
  /** "and for guards?", "what about MongoDB?": the previous question asked of something else. */
  | 'substitutes';

/** A follow-up read against the conversation: what to search and compose the answer for. */
export interface ResolvedFollowUp {
  reading: FollowUpReading;
  /**
   * The follow-up as a question of its own, the previous subject at full weight in it: "how do I
   * apply it globally?" after "How do I add an onSend hook to a route?" is "how do I apply onSend
   * hook globally?"; "and for guards?" after "How do I apply interceptors globally?" is "How do I
   * apply guards globally?". The question as asked for the readings `standalone` and `own-topic`.
   */
  question: string;
  /**
   * Words that keep retrieval and the answer near the subject at lower weight (SearchQuery.context,
   * AnswerRequest.context): {@link followUpContext}'s topic for `own-topic`; for `substitutes` the
   * previous question's frame, not its subject, which the reader left behind; otherwise the code
   * names quoted in the last answer that `question` lacks.
   */
  context?: string;
  /**
   * For `substitutes`: the new subject ("guards"), the only part of `question` the reader said.
   * Lexical search weighs it fully and the frame as `context`, as the frame's words ("add a hook
   * that runs before") also match every page the previous turn was about.
   */
  focus?: string;
}

/**
 * Reads a follow-up against the last history turn (itself resolved against the turns before it,
 * so a chain of follow-ups keeps the subject it started with):
 * - a question with a frame of its own ("how do I …", "can I …", "limit it to …") and a pronoun
 *   ("it", "its", "them", "one", "this" alone): the pronoun is replaced by the previous question's
 *   subject, its first noun phrase after the frame ("pluginTimeout option" of "What does the
 *   pluginTimeout option control?");
 * - a frame without a pronoun or a word of its own ("how do I change the default?"): the
 *   previous subject is added ("… for the body limit");
 * - a frame and words of its own ("and how do I debug a single test?"): the question as asked,
 *   the conversation as lower-weight context, as a follow-up may change the topic;
 * - no frame ("and …?", "what about …?"), only a phrase:
 *   - that names nothing ("what about the default?", "and for all of them?"): the previous
 *     question with the phrase added;
 *   - that starts with a preposition the previous question has ("and before serialization?"
 *     after "… runs before validation?"), or one of "for" and "to" where it has the other
 *     ("and for the reply?" after "… to the request object?"): the phrase replaces what followed
 *     that preposition;
 *   - that starts with another preposition than "for", "about" or "of" ("and in TypeScript?"),
 *     or says where rather than what ("and for one route?", "and for requests that match no
 *     route?"): the previous question narrowed by the phrase;
 *   - otherwise ("and for guards?", "what about MongoDB?"): the phrase replaces the previous
 *     subject, in the previous question's frame.
 */
export function resolveFollowUp(question: string, history: HistoryTurn[]): ResolvedFollowUp {
  const trimmed = question.trim();
  const standalone: ResolvedFollowUp = { reading: 'standalone', question: trimmed };
  if (history.length === 0 || !isFollowUp(trimmed)) return standalone;
  const ownTopic = (): ResolvedFollowUp => ({
    reading: 'own-topic',
    question: trimmed,
    ...optional(followUpContext(trimmed, history)),
  });
  const previous = previousQuestion(history);
  if (previous === undefined) return ownTopic();
  const prev = words(previous);
  const subject = subjectSpan(prev);
  const subjectText = subject ? phrase(prev, subject) : keyTerms(previous, new Set()).join(' ');
  if (subjectText === '') return ownTopic();

  const asked = words(trimmed);
  const rest = asked.slice(leadLength(asked));
  if (rest.length === 0) return ownTopic();
  const refersBack = (text: string, reading: FollowUpReading = 'refers-back'): ResolvedFollowUp => ({
    reading,
    question: text,
    ...optional(answerContext(text, history)),
  });

  if (hasFrame(rest)) {
    const pronouns = rest.map((_, i) => i).filter((i) => isReferring(rest, i));
    if (pronouns.length > 0) return refersBack(withPronounsReplaced(rest, pronouns, subjectText));
    if (namesSomething(rest)) return ownTopic();
    return refersBack(`${unpunctuated(joined(rest))} for ${subjectText}?`);
  }

  // An elliptical phrase: "and for the reply?", "what about without TLS?", "what about the default?".
  if (rest.slice(0, -1).some((w) => w.trail !== '')) return ownTopic();
  if (!namesSomething(rest))
    return refersBack(`${unpunctuated(previous)}: ${unpunctuated(joined(rest))}?`, 'refines');
  const preposition = PREPOSITIONS.has(rest[0]?.lower ?? '') ? rest[0]!.lower : undefined;
  const stated = preposition ? rest.slice(1) : rest;
  const parallel = preposition ? parallelPhrase(prev, preposition) : undefined;
  if (parallel) return substituted(prev, parallel, stated);
  if ((preposition && !SUBSTITUTING.has(preposition)) || describesScope(stated))
    return refersBack(`${unpunctuated(previous)} ${unpunctuated(joined(rest))}?`, 'refines');
  if (subject) return substituted(prev, subject, stated);
  return refersBack(`${unpunctuated(joined(rest))} for ${subjectText}?`);
}

/**
 * The extractive (model-free) question condenser, deterministic, for matching taught answers:
 * - no history, or a question that is not a follow-up ({@link isFollowUp}): the question as is;
 * - otherwise up to 6 key terms of the last history turn's prompt (code identifiers first, then
 *   content words, in order, skipping words the question already has) are prepended:
 *   "what about its options?" after "How do I use fastify.register?" becomes
 *   "fastify.register: what about its options?". When the last prompt has no key terms, the one before it is used.
 *
 * What retrieval searches and the answer is composed for is {@link resolveFollowUp}'s question.
 */
export function condenseFollowUp(question: string, history: HistoryTurn[]): string {
  const trimmed = question.trim();
  if (history.length === 0 || !isFollowUp(trimmed)) return trimmed;
  const known = new Set(terms(trimmed));
  for (let i = history.length - 1; i >= 0 && i >= history.length - 2; i--) {
    const key = keyTerms(history[i]?.prompt ?? '', known);
    if (key.length > 0) return `${key.join(' ')}: ${trimmed}`;
  }
  return trimmed;
}

/**
 * The topic of the conversation so far for a follow-up ({@link isFollowUp}), as search terms to
 * weigh below the question's own (SearchQuery.context): key terms of the last 3 prompts, newest
 * first, then up to 3 code names quoted in the last answer (the names its sources use), at most
 * 8 terms, none the question already has. Undefined without history, for a question that is not
 * a follow-up, or when the history has no key term.
 */
export function followUpContext(question: string, history: HistoryTurn[]): string | undefined {
  const trimmed = question.trim();
  if (history.length === 0 || !isFollowUp(trimmed)) return undefined;
  const known = new Set(terms(trimmed));
  const out: string[] = [];
  for (let i = history.length - 1; i >= 0 && i >= history.length - CONTEXT_TURNS; i--) {
    for (const term of keyTerms(history[i]?.prompt ?? '', known)) {
      out.push(term);
      for (const t of terms(term)) known.add(t);
    }
  }
  out.push(...answerNames(history, known));
  return out.length > 0 ? out.slice(0, MAX_CONTEXT_TERMS).join(' ') : undefined;
}

function keyTerms(prompt: string, known: Set<string>): string[] {
  const out: string[] = [];
  const covered = new Set(known);
  for (const id of identifiers(prompt)) {
    const idTerms = terms(id);
    if (idTerms.length > 0 && idTerms.every((t) => covered.has(t))) continue;
    // Keep the identifier as the user wrote it.
    const original = new RegExp(escapeRegExp(id), 'i').exec(prompt)?.[0] ?? id;
    out.push(original.replace(/^`|`$/g, ''));
    for (const t of idTerms) covered.add(t);
  }
  for (const match of prompt.matchAll(/[\p{L}\p{N}_$]+(?:[./-][\p{L}\p{N}_$]+)*/gu)) {
    const word = match[0];
    if (isStopWord(word) || word.length < 2) continue;
    // A dotted or slashed name ("HTTP/2") stays whole; its parts may be covered by an identifier.
    const wordTerms = terms(word);
    if (wordTerms.length === 0 || wordTerms.every((t) => covered.has(t))) continue;
    for (const t of wordTerms) covered.add(t);
    out.push(word);
  }
  return out.slice(0, MAX_KEY_TERMS);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
const PREPOSITIONS = new Set(
  (
    'to for in into on onto from with without over under by at of about across before after between ' +
    'via through during inside within outside behind per against except like as than upon toward ' +
    'towards around'
  ).split(' '),
);
/** Prepositions whose phrase in a follow-up is a new subject, not a narrowing ("and for guards?"). */
const SUBSTITUTING = new Set(['for', 'about', 'of']);
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

function words(text: string): Word[] {
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

function joined(list: Word[]): string {
  return list.map((w) => w.text + w.trail).join(' ');
}

function phrase(list: Word[], span: Span): string {
  return list
    .slice(span.start, span.end)
    .map((w) => w.text)
    .join(' ');
}

function unpunctuated(text: string): string {
  return text.replace(/[\s?!.:;,]+$/, '');
}

function optional(context: string | undefined): { context?: string } {
  return context ? { context } : {};
}

/** How many words at the start only join a follow-up to the conversation ("and", "what about"). */
function leadLength(list: Word[]): number {
  let i = 0;
  for (;;) {
    const pair = `${list[i]?.lower ?? ''} ${list[i + 1]?.lower ?? ''}`;
    if (LEAD_PAIRS.has(pair) && i + 2 < list.length) i += 2;
    else if (LEAD_WORDS.has(list[i]?.lower ?? '') && i + 1 < list.length) i += 1;
    else return i;
  }
}

/** Whether a question has a frame of its own ("how do I …", "can I …", "limit it to …"), not only a phrase. */
function hasFrame(list: Word[]): boolean {
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
function isReferring(list: Word[], i: number): boolean {
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

function withPronounsReplaced(list: Word[], at: number[], subject: string): string {
  return list
    .map((w, i) => {
      if (!at.includes(i)) return w.text + w.trail;
      return (w.lower === "it's" ? `${subject} is` : subject) + w.trail;
    })
    .join(' ');
}

/** Whether words name something beyond pronouns and words such as "default" or "change". */
function namesSomething(list: Word[]): boolean {
  return terms(list.map((w) => w.text).join(' ')).some((t) => !GENERIC.has(t));
}

/**
 * Whether a phrase says where or when rather than naming a thing: it is counted ("one route",
 * "every plugin") or has a clause ("requests that match no route"). "and for one route?" narrows
 * the previous question; "and for guards?" asks it of something else.
 */
function describesScope(list: Word[]): boolean {
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
function subjectSpan(list: Word[]): Span | undefined {
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
function parallelPhrase(list: Word[], preposition: string): Span | undefined {
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
function substituted(prev: Word[], span: Span, stated: Word[]): ResolvedFollowUp {
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

/**
 * The last prompt as a question of its own (resolved against the turns before it), or undefined
 * when the history has none.
 */
function previousQuestion(history: HistoryTurn[]): string | undefined {
  const turns = history.slice(-CONTEXT_TURNS);
  const last = turns[turns.length - 1]?.prompt.trim() ?? '';
  if (last === '') return undefined;
  return resolveFollowUp(last, turns.slice(0, -1)).question;
}

/**
 * Up to 3 code names quoted in the last answer (the names its sources use for the subject) that
 * add a term to `known`, which they join.
 */
function answerNames(history: HistoryTurn[], known: Set<string>): string[] {
  const out: string[] = [];
  const answer = history[history.length - 1]?.response ?? '';
  for (const match of answer.matchAll(/`([^`\n]{2,40})`/g)) {
    if (out.length >= MAX_ANSWER_IDENTIFIERS) break;
    const name = (match[1] ?? '').trim();
    const nameTerms = terms(name);
    if (/\s/.test(name) || nameTerms.length === 0 || nameTerms.every((t) => known.has(t))) continue;
    out.push(name);
    for (const t of nameTerms) known.add(t);
  }
  return out;
}

/**
 * The context of a follow-up read as a question of its own: the code names quoted in the last
 * answer that `composed` lacks. Not the earlier prompts' other words: the subject is in
 * `composed` already, and the rest of the previous prompt is its frame ("add … to a single
 * route"), which the follow-up replaced with its own ("apply it to every route").
 */
function answerContext(composed: string, history: HistoryTurn[]): string | undefined {
  const names = answerNames(history, new Set(terms(composed)));
  return names.length > 0 ? names.join(' ') : undefined;
}

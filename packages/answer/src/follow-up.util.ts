import type { HistoryTurn } from '@kbqa/core';
import { isStopWord } from '@kbqa/text';
import { identifiers, terms } from './terms.util';
import {
  GENERIC,
  PREPOSITIONS,
  SUBSTITUTING,
  describesScope,
  hasFrame,
  isReferring,
  joined,
  leadLength,
  namesSomething,
  optional,
  parallelPhrase,
  phrase,
  subjectSpan,
  substituted,
  unpunctuated,
  withPronounsReplaced,
  words,
} from './follow-up-phrases.util';

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

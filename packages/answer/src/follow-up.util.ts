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

/**
 * The extractive (model-free) question condenser, deterministic:
 * - no history, or a question that is not a follow-up ({@link isFollowUp}): the question as is;
 * - otherwise up to 6 key terms of the last history turn's prompt (code identifiers first, then
 *   content words, in order, skipping words the question already has) are prepended:
 *   "what about its options?" after "How do I use fastify.register?" becomes
 *   "fastify.register: what about its options?". When the last prompt has no key terms, the one before it is used.
 *
 * The condensed question is what the answer is composed for; retrieval weighs the topic lower
 * through {@link followUpContext} instead.
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
  const answer = history[history.length - 1]?.response ?? '';
  let quoted = 0;
  for (const match of answer.matchAll(/`([^`\n]{2,40})`/g)) {
    if (quoted >= MAX_ANSWER_IDENTIFIERS) break;
    const name = (match[1] ?? '').trim();
    const nameTerms = terms(name);
    if (/\s/.test(name) || nameTerms.length === 0 || nameTerms.every((t) => known.has(t))) continue;
    out.push(name);
    quoted += 1;
    for (const t of nameTerms) known.add(t);
  }
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

import type { AnswerSource } from '@kbqa/core';
import { containsIdentifier, terms } from '../terms.util';

/**
 * "X is / X are / X lets you / X provides …": the subject before the verb names the topic.
 * Matched on the sentence without code and emphasis marks, lowercased.
 */
const DEFINING =
  /^(?:an?\s+|the\s+)?([^,;:()]{1,80}?)\s+(is|are|lets|let|provides?|allows?|enables?|refers?\s+to|means?|represents?|customizes?|consists?\s+of|can\s+be|gives?|extends?|helps?)\b/;
/** "<what it is> is <topic>.": a short predicate naming the topic alone. */
const INVERTED =
  /^(?:an?\s+|the\s+)?([^,;:()]{3,80}?)\s+(?:is|are)\s+(?:an?\s+|the\s+)?([\w$.@/-]+(?:\s+[\w$.@/-]+)?)\s*[.!]?$/;
const PASSIVE = /^(?:is|are)\s+(?:\w+ly\s+)?(?:used|\w+ed|\w+en|also|not|only|available)\b/;
const NOT_A_SUBJECT =
  /^(?:if|when|while|in|on|at|by|for|with|to|as|after|before|once|since|there|this|that|it|these|those|you|we|note)\b/;
/** Where a subject turns to examples of itself: "tools such as …", "databases like …". */
const EXAMPLES_OF = /\b(?:such\s+as|like|including|e\.g\.?|for\s+example)\b/;

export function sameTerms(a: Set<string>, b: Set<string>): boolean {
  return a.size > 0 && a.size === b.size && [...a].every((t) => b.has(t));
}

/** Whether a sentence defines the topic: "X is …", "X are …", "X lets you …", "X provides …". */
export function isDefining(sentence: string, topicTerms: Set<string>, topicIds: string[] = []): boolean {
  const plain = sentence.replace(/[`*_]/g, '').toLowerCase();
  // A glossary or list entry: "Request: Details Fastify's request object …", "`ip` - The IP address …".
  const entry = /^([^:;,()]{1,60}?)\s*(?::|\s[-\u2013\u2014])\s+\S/.exec(plain);
  if (entry?.[1]) {
    const named = entry[1].trim();
    if (topicIds.some((id) => named === id) || sameTerms(new Set(terms(named)), topicTerms)) return true;
  }
  // "The second parameter of the handler function is `Reply`": the topic is the whole predicate.
  const inverted = INVERTED.exec(plain);
  if (inverted?.[1] && !NOT_A_SUBJECT.test(inverted[1])) {
    const predicate = terms(inverted[2] ?? '');
    if (predicate.length > 0 && sameTerms(new Set(predicate), topicTerms)) return true;
  }
  const m = DEFINING.exec(plain);
  const subject = m?.[1]?.trim();
  if (!subject || NOT_A_SUBJECT.test(subject)) return false;
  // "Widgets are used across …" describes a use, not what a widget is.
  if (m && PASSIVE.test(plain.slice(m.index + m[0].length - (m[2]?.length ?? 0)))) return false;
  const subjectTerms = terms(subject);
  if (subjectTerms.length > topicTerms.size + 3) return false;
  // "Tools such as k6 or autocannon can be used …" is about tools; the topic is one example.
  const head = subject.split(EXAMPLES_OF)[0] ?? subject;
  if (topicIds.some((id) => containsIdentifier(head, id))) return true;
  const headTerms = terms(head);
  return topicTerms.size > 0 && [...topicTerms].every((t) => headTerms.includes(t));
}

/**
 * How a source's title or the last part of its path names the topic: alone (the topic's own
 * page) or among other words (a page where the topic qualifies something else).
 */
export function pageNaming(
  source: AnswerSource,
  topicTerms: Set<string>,
): { own: boolean; qualified: boolean } {
  const path = (source.link.split(/[?#]/)[0] ?? '').replace(/\/+$/, '');
  const last = (path.split('/').pop() ?? '').replace(/\.\w+$/, '').replace(/[-_]+/g, ' ');
  let qualified = false;
  for (const name of [source.title, last]) {
    const nameTerms = new Set(terms(name));
    if (sameTerms(nameTerms, topicTerms)) return { own: true, qualified: false };
    if (nameTerms.size > topicTerms.size && [...topicTerms].every((t) => nameTerms.has(t))) qualified = true;
  }
  return { own: false, qualified };
}

/**
 * Whether a heading's initials spell the topic, an acronym the question uses for it: "Long Term
 * Support" for "LTS", "Command Line Interface" for "CLI".
 */
function spellsTopic(heading: string, topicTerms: Set<string>): boolean {
  if (topicTerms.size !== 1) return false;
  const [topic] = topicTerms;
  if (!topic || topic.length < 2 || topic.length > 6) return false;
  const words = heading.match(/[\p{L}\p{N}]+/gu) ?? [];
  return (
    words.length === topic.length &&
    words
      .map((w) => w[0])
      .join('')
      .toLowerCase() === topic
  );
}

/** Whether a unit's text names the topic: one of its names in code form, or all of its terms. */
export function namesTopic(
  c: { lower: string; termSet: Set<string> },
  topicTerms: Set<string>,
  topicIds: string[],
): boolean {
  if (topicIds.some((id) => containsIdentifier(c.lower, id))) return true;
  return topicTerms.size > 0 && [...topicTerms].every((t) => c.termSet.has(t));
}

/** Whether a heading is the topic's own: its terms alone, one of its names, or its acronym spelled out. */
export function headsTopic(heading: string, topicTerms: Set<string>, topicIds: string[]): boolean {
  const lower = heading.toLowerCase();
  return (
    sameTerms(new Set(terms(heading)), topicTerms) ||
    topicIds.some((id) => containsIdentifier(lower, id)) ||
    spellsTopic(heading, topicTerms)
  );
}

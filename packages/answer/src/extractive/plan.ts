import { analyzeQuestion, type QuestionShape, type QuestionType } from '../question-type.util';
import { identifiers, negation, stem, terms } from '../terms.util';
import { namesWhatDocsLack } from './gates';

/**
 * What the generator reads of one question, once: its type and what it is about, the terms it
 * weighs, the names it writes in code form, what it excludes, what kind of answer it asks for,
 * and the conversation's topic. Every strategy and pass reads this instead of the question.
 */
export interface QuestionPlan {
  type: QuestionType;
  /** What a definition or option question is about, as {@link analyzeQuestion} reads it. */
  topic?: string;
  /** The two things a comparison weighs. */
  sides?: [string, string];
  /** The question's own content terms (distinct, in order), without framing, excluded or unknown words. */
  terms: string[];
  /** The content terms of the question as written, for how much of it a heading holds. */
  written: Set<string>;
  /** Adjacent pairs of the question's weighed terms, for phrase matches. */
  bigrams: Array<[string, string]>;
  /** Names the question writes in code form (`bodyLimit`, `reply.send()`), lowercased. */
  ids: string[];
  /** Terms of names written with a capital inside the sentence ("Heroku", "JVM"). */
  properNames: string[];
  /** Terms of what the question excludes ("listen" in "without listening"); empty for a comparison. */
  excluded: Set<string>;
  /** Terms of the conversation's topic (AnswerRequest.context) that a question could weigh. */
  contextTerms: string[];
  /** Whether the request carries a conversation's topic. */
  hasContext: boolean;
  /** Whether the question's words were looked up in the project's index (unknownWords given). */
  lookedUp: boolean;
  /** Whether it asks about something the documentation never names ({@link namesWhatDocsLack}). */
  lacksTopic: boolean;
  /** "What is the default …?", "How do I …?" / "show me an example", "How long / many …?". */
  asksDefault: boolean;
  asksHow: boolean;
  asksAmount: boolean;
  /** What a definition or option question is about, as terms (frame words left out) and names. */
  topicTerms: Set<string>;
  topicIds: string[];
}

const ASKS_DEFAULT = /\bdefaults?\b|\bby default\b/i;
const ASKS_HOW = /\b(?:how|example|examples|snippet|syntax|show me|write|configure|set ?up|install)\b/i;
/** "How long …?", "How many …?": the answer is an amount. */
const ASKS_AMOUNT = /\bhow\s+(?:long|many|much|big|large|small|often|old|far|soon)\b/i;

/** Words that frame a question of a type without naming its subject. */
const FRAME_WORDS: Record<QuestionShape['type'], string[]> = {
  definition: ['mean', 'meaning', 'purpose', 'concept', 'definition', 'explain', 'describe', 'idea'],
  option: ['option', 'setting', 'flag', 'parameter', 'mean', 'purpose', 'explain', 'describe'],
  comparison: [
    'difference',
    'differ',
    'different',
    'compare',
    'comparison',
    'versus',
    'vs',
    'between',
    'instead',
    'rather',
    'better',
  ],
  'how-to': ['set', 'setup', 'step', 'steps', 'best', 'right', 'recommended', 'correct', 'proper'],
  // The wording of a problem report: what the reader sees happen, not what the pages name.
  troubleshooting: [
    'why',
    'happen',
    'happens',
    'occur',
    'appear',
    'seem',
    'see',
    'keep',
    'still',
    'anymore',
    'suddenly',
    'fix',
    'solve',
    'resolve',
    'wrong',
  ],
  'yes-no': ['possible'],
  other: [],
};
/**
 * When something was done, not what: "a header I set earlier" is the page's "a previously set
 * header". Weighed as content, such a word (rare on every page) left covered questions short of
 * the coverage floor, answered "not covered".
 */
const WHEN_WORDS = ['earlier', 'previously', 'beforehand', 'later'];
const FRAME_STEMS: Record<QuestionShape['type'], Set<string>> = Object.fromEntries(
  Object.entries(FRAME_WORDS).map(([type, words]) => [type, new Set([...words, ...WHEN_WORDS].map(stem))]),
) as Record<QuestionShape['type'], Set<string>>;

/**
 * A problem report's idioms in the words pages use for them: no page says "get rid of" (its "rid",
 * rare everywhere, weighed as content, kept "how do I get rid of FSTDEP warnings?" below the
 * coverage floor); pages say "disable" or "remove". "After upgrading to v5" says when the problem
 * began: its "after", rare on a migration guide, weighed as content, kept "my date-time fields
 * fail validation after upgrading" below the floor; the upgrade itself is what was asked.
 */
function plainWords(question: string): string {
  return question
    .replace(/\bget(?:ting)?\s+rid\s+of\b/gi, 'disable remove')
    .replace(/\b(?:after|since|when)\s+(?=(?:upgrading|updating|migrating|moving|switching)\b)/gi, '');
}

/**
 * The terms of the names a question writes with a capital inside the sentence ("Heroku",
 * "Procfile", "JVM"): products and proper nouns, not the first word or "I", not code.
 */
function properNames(question: string): string[] {
  const prose = question.replace(/`[^`]*`/g, ' ');
  const out: string[] = [];
  for (const m of prose.matchAll(/(?<=[\p{L}\p{N},;:)]\s+)[A-Z][\p{L}\p{N}]*(?![\w$.@/-]*[\w$])/gu)) {
    if (m[0] === 'I' || identifiers(m[0]).length > 0) continue;
    out.push(...terms(m[0]));
  }
  return out;
}

function pairs(sequence: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < sequence.length; i++) {
    const a = sequence[i] as string;
    const b = sequence[i + 1] as string;
    if (a !== b) out.push([a, b]);
  }
  return out;
}

/** Reads a question (and the conversation's topic, and the words no page uses) once. */
export function planQuestion(question: string, context?: string, unknownWords?: string[]): QuestionPlan {
  const shape = analyzeQuestion(question);
  const frame = FRAME_STEMS[shape.type];
  // "A instead of B" weighs two sides; elsewhere "without X" says what the answer must avoid.
  const { excluded, framing } =
    shape.type === 'comparison'
      ? { excluded: new Set<string>(), framing: new Set<string>() }
      : negation(question);
  // A problem report or a yes/no question uses "without X" for the case it is about ("fields
  // without a timezone fail validation", "is a plugin without tests accepted?"): X is part of
  // what is asked, and only sentences naming X without an alternative rank lower.
  const describes = shape.type === 'troubleshooting' || shape.type === 'yes-no';
  // A word no page of the project uses ("colorized" for what pages call pretty printing) can match
  // no sentence: weighed, it only counted against every passage's coverage of the question.
  const absent = new Set((unknownWords ?? []).flatMap((w) => terms(w)));
  const asked = (t: string): boolean =>
    !frame.has(t) && (describes || !excluded.has(t)) && !framing.has(t) && !absent.has(t);
  const asks = terms(plainWords(question));
  // What a definition or option question is about, in the words a page would name it with.
  const topic = shape.type === 'definition' || shape.type === 'option' ? (shape.topic ?? '') : '';
  return {
    type: shape.type,
    topic: shape.topic,
    sides: shape.sides,
    terms: [...new Set(asks)].filter(asked),
    written: new Set(terms(question)),
    bigrams: pairs(asks.filter(asked)),
    ids: identifiers(question),
    properNames: properNames(question),
    excluded,
    contextTerms: [...new Set(terms(context ?? ''))].filter(asked),
    hasContext: Boolean(context),
    lookedUp: Boolean(unknownWords),
    lacksTopic: namesWhatDocsLack(question, unknownWords ?? []),
    asksDefault: ASKS_DEFAULT.test(question),
    asksHow: ASKS_HOW.test(question),
    asksAmount: ASKS_AMOUNT.test(question),
    topicTerms: new Set(terms(topic).filter((t) => !frame.has(t))),
    topicIds: identifiers(topic),
  };
}

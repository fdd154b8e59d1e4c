/** What kind of answer a question asks for, read from its wording alone (no model). */
export type QuestionType =
  'definition' | 'how-to' | 'comparison' | 'option' | 'troubleshooting' | 'yes-no' | 'other';

export interface QuestionShape {
  type: QuestionType;
  /** What a definition or option question is about ("decorator" in "What is a decorator?"). */
  topic?: string;
  /** The two things a comparison weighs ("onRequest", "preHandler hooks"). */
  sides?: [string, string];
}

const COMPARISON_SIDES: RegExp[] = [
  /\bdifferences?\s+between\s+(.+?)\s+(?:and|&|vs\.?|versus)\s+(.+)$/i,
  /\bcompare\s+(.+?)\s+(?:and|with|to|vs\.?|versus)\s+(.+)$/i,
  /^(?:how\s+(?:do(?:es)?|is|are)\s+)?(.+?)\s+(?:differ(?:ent)?\s+from|compared?\s+(?:to|with))\s+(.+)$/i,
  /^(?:.*?\b(?:use|choose|pick|prefer)\s+)?(.+?)\s+(?:vs\.?|versus|instead\s+of|rather\s+than|over)\s+(.+)$/i,
];
/** "Should I return the payload or call reply.send?", "Which is better, A or B?": a choice between two. */
const CHOICE =
  /^(?:should\s+(?:i|we)\s+|which\s+(?:one\s+)?(?:is\s+)?(?:better|faster|preferred|recommended)[,:]?\s+|is\s+it\s+better\s+to\s+)(.+?)\s+or\s+(.+?)[?.!]*$/i;
/** "Is a hook or a middleware faster for …?": two things weighed by a comparative. */
const WHICH_OF_TWO =
  /^(?:is|are)\s+(.+?)\s+or\s+(.+?)\s+(?:better|faster|slower|safer|cheaper|simpler|preferred|recommended|more\s+\w+|less\s+\w+)\b/i;
const COMPARISON =
  /\b(?:differences?|differ|differs|different\s+from|distinguish(?:es)?|compare[ds]?|comparison|versus|vs\.?|instead of|rather than)\b/i;
const TROUBLE =
  /^why\b|\bwhy\s*[?!.]*$|\b(?:errors?|fails?|failing|failed|failure|not (?:working|work|found|being|getting|a function|a constructor|defined|iterable)|doesn'?t|don'?t|isn'?t|won'?t|can'?t (?!i\b)|cannot (?!i\b)|broken|crash(?:es|ed)?|exceptions?|throws?|thrown|undefined|warnings?|debug|wrong|problems?|issues?|twice|hangs?|stuck|timeout|FST_\w+|ERR_\w+)\b/i;
/**
 * How people report a problem without an error word: something never happens, is ignored or
 * missing, stopped, keeps doing something, is lost, leaks, is slow or unexpected, a request is
 * refused, the process exits, an HTTP error status or a system error code (`EADDRINUSE`).
 * Weaker than {@link TROUBLE}: a how-to or yes/no question keeps its type ("how do I return a
 * 404?", "can a hook be skipped?").
 */
const SYMPTOMS =
  /\b(?:never|ignored|ignores?|ignoring|missing|stops|stopped|keeps|kept|lost|leaks?|leaking|slow(?:er|ly)?|unexpected(?:ly)?|unable|refused|rejected|blocked|denied|exits?|exited|quits|no longer|anymore|[45]\d\d)\b|\bwhat(?:'s|\s+is)\s+(?:going\s+)?wrong\b|\bwhat\s+causes\b/i;
/** "Which option stops …?", "What setting answers 503 …?": a lookup of a name, whatever it describes. */
const NAME_LOOKUP =
  /^(?:which|what)\s+(?:\w+\s+)?(?:options?|settings?|flags?|parameters?|config|propert(?:y|ies)|hooks?|methods?|headers?|events?|functions?|plugins?)\b/i;
/** A system error code: `EADDRINUSE`, `ECONNREFUSED` (case matters: "Every" is not one). */
const ERROR_CODE = /\bE[A-Z]{4,}\b/;
const HOW_TO =
  /^(?:how\s+(?:do|can|could|should|would|to|does)\b|how's\b|what(?:'s|\s+is)\s+the\s+(?:best\s+|right\s+|recommended\s+)?way\s+to\b|steps?\s+to\b|(?:is\s+there\s+a\s+way|i\s+(?:want|need)|i'd\s+like)\s+to\b|(?:set\s*up|install|configure|create|add|enable|disable|register|write|deploy|run)\b)/i;
/** A question that ends by asking how: "… How?", "… how do I do that?", "How can I?". */
const HOW_TAIL =
  /(?:^|[.!?]\s+)how(?:\s+(?:do|can|could|should)\s+(?:i|we)(?:\s+do\s+(?:that|this|it))?)?\s*\?\s*$/i;
const OPTION_WORD = /\b(?:option|options|setting|settings|flag|parameter|config|configuration|property)\b/i;
const DEFINITION =
  /^(?:what(?:'s|\s+is|\s+are)\s+(?:an?\s+|the\s+)?(?:meaning\s+of\s+|purpose\s+of\s+|concept\s+of\s+|idea\s+of\s+)?(?:an?\s+|the\s+)?(.+?)|(?:define|explain|describe)\s+(?:an?\s+|the\s+)?(.+?)|what\s+do(?:es)?\s+(.+?)\s+(?:mean|do|stand\s+for|promise|guarantee|offer|provide|cover|contain|include|hold|represent))\s*[?.!]*$/i;
/**
 * "…instead of…", "…rather than…", "… but not …": with a verb before it, something happened in
 * place of another, or only in one of two cases ("my / route answers on /a but not on /a/").
 */
const SYMPTOM = /\b(?:instead\s+of|rather\s+than|but\s+not)\b/i;
/** How a question (as opposed to a statement) opens. */
const ASKS =
  /^(?:what|which|who|whom|whose|when|where|why|how|is|are|can|could|does|do|did|should|will|would|was|were|has|have|may|must|use|choose|pick|prefer|compare)\b/i;
const YES_NO = /^(?:is|are|can|could|does|do|did|should|will|would|was|were|has|have|may|must)\b/i;
/** Words after "what is" that make it a lookup ("what is the default…"), not a definition. */
const NOT_A_TOPIC =
  /^(?:the\s+)?(?:default|maximum|minimum|max|min|limit|best|recommended|current|latest|order|difference)\b/i;

/** A question tacked on after the sides: "A vs B, what does each do?", "A vs B: which is faster?". */
const TRAILING_QUESTION = /\s*[,:;]\s*(?:what|which|how|why|when|where|who|is|are|does|do|can|should)\b.*$/i;

function trimSide(side: string): string {
  return side
    .replace(TRAILING_QUESTION, '')
    .replace(/[?.!]+$/, '')
    .replace(/^(?:the|an?|using)\s+/i, '')
    .trim();
}

/**
 * Other ways to ask what something is, in the form {@link DEFINITION} reads: "Can you explain X?",
 * "Tell me about X", "What is meant by X?", "What exactly is X?", "What is X used for?", "What
 * does X refer to?" ("explain X", "what is X").
 */
function asDefinition(q: string): string {
  const asked = q
    .replace(/^(?:can|could|would)\s+you\s+(explain|describe|define)\s+/i, '$1 ')
    .replace(/^tell\s+me\s+(?:more\s+)?about\s+/i, 'explain ')
    .replace(/^what(?:'s|\s+is)\s+meant\s+by\s+/i, 'what is ')
    .replace(/^(what(?:'s|\s+is|\s+are))\s+(?:exactly|really|actually)\s+/i, '$1 ')
    .replace(/^what\s+(?:exactly|really|actually)\s+(is|are)\s+/i, 'what $1 ')
    .replace(/^(what\s+do(?:es)?\s+.+?)\s+refers?\s+to\s*([?.!]*)$/i, '$1 mean$2');
  // "What is X used for?" / "What's X for?": what X is, and so what it is for.
  return /^what(?:'s|\s+is|\s+are)\s/i.test(asked)
    ? asked.replace(/\s+(?:used\s+|good\s+)?for\s*([?.!]*)$/i, '$1')
    : asked;
}

/** A noun that only says what kind of thing the topic is: "the Reply object", "the listen method". */
const KIND_NOUN =
  /\s+(?:object|objects|function|functions|method|methods|class|api|feature|concept|policy|policies|system|mechanism)$/i;
/** A place or setting that qualifies the topic: "encapsulation in Fastify", "the Request object in a handler". */
const CONTEXT_TAIL = /\s+(?:in|inside|within|for)\s+(?:an?\s+|the\s+)?[\w.-]+$/i;

/**
 * What a definition is about, without the words that only place or classify it: "Request" for
 * "the Request object in a handler". The page and heading that name the topic name it this way.
 */
export function coreTopic(topic: string): string {
  const placed = topic.replace(CONTEXT_TAIL, '');
  const core = placed.replace(KIND_NOUN, '');
  return core.trim() || placed.trim() || topic;
}

/**
 * Reads the type of a question from its wording: a comparison ("difference between A and B",
 * "A vs B"), troubleshooting ("why…", an error, "doesn't work"), how-to ("how do I…", "steps
 * to…"), an option ("what does the `bodyLimit` option do?"), a definition ("what is X?"), a
 * yes/no question ("can I…?"), else other. Comparisons, definitions and options carry what they
 * are about, as written.
 */
export function analyzeQuestion(question: string): QuestionShape {
  const q = question
    .trim()
    .replace(/\s+/g, ' ')
    // A follow-up's "and …" / "but …" only joins it to the previous turn.
    .replace(/^(?:(?:hi|hello|hey|please|so|ok|okay|and|but|also|then)[,!]?\s+)+/i, '');
  // "request.ip shows the proxy's address instead of the client's": a statement that something
  // happens in place of what was expected reports a symptom; it weighs no two options.
  if (SYMPTOM.test(q) && !/[?]\s*$/.test(q) && !ASKS.test(q)) return { type: 'troubleshooting' };
  if (COMPARISON.test(q)) {
    for (const pattern of COMPARISON_SIDES) {
      const m = pattern.exec(q.replace(/[?.!]+$/, ''));
      const a = trimSide(m?.[1] ?? '');
      const b = trimSide(m?.[2] ?? '');
      if (a && b && a.split(' ').length <= 6 && b.split(' ').length <= 6) {
        return { type: 'comparison', sides: [a, b] };
      }
    }
  }
  const choice = CHOICE.exec(q) ?? WHICH_OF_TWO.exec(q);
  if (choice) {
    const a = trimSide(choice[1] ?? '');
    const b = trimSide(choice[2] ?? '');
    if (a && b && a.split(' ').length <= 8 && b.split(' ').length <= 8)
      return { type: 'comparison', sides: [a, b] };
  }
  // "…, I want to look at the validation error in my handler. How?": a problem told, then asked
  // how to get what the reader wants.
  if (HOW_TAIL.test(q)) return { type: 'how-to' };
  if (TROUBLE.test(q) || ERROR_CODE.test(q)) return { type: 'troubleshooting' };
  if (HOW_TO.test(q)) return { type: 'how-to' };
  if (SYMPTOMS.test(q) && !YES_NO.test(q) && !NAME_LOOKUP.test(q)) return { type: 'troubleshooting' };
  const definition = DEFINITION.exec(asDefinition(q));
  const topic = trimSide(definition?.[1] ?? definition?.[2] ?? definition?.[3] ?? '');
  const hasCode = /`[^`]+`|\b[a-z]+[A-Z]\w*\b|\w\.\w/.test(q);
  if (definition && topic && (OPTION_WORD.test(q) || (hasCode && /\bdo\s*[?.!]*$/i.test(q)))) {
    return { type: 'option', topic: topic.replace(/\s+(?:option|setting|flag|parameter|property)$/i, '') };
  }
  if (definition && topic && topic.split(' ').length <= 5 && !NOT_A_TOPIC.test(topic)) {
    return { type: 'definition', topic: coreTopic(topic) };
  }
  if (YES_NO.test(q)) return { type: 'yes-no' };
  return { type: 'other' };
}

/** The type alone; see {@link analyzeQuestion}. */
export function detectQuestionType(question: string): QuestionType {
  return analyzeQuestion(question).type;
}

/**
 * Default floor of the best passage's query-term coverage (0-1): the share of the question's
 * weighted content terms and identifiers that the best source (its text, title and headings)
 * contains. Below it no passage is about the question and the answer is "not covered" plus the
 * closest pages. It measures the passages, not the retriever's relevance score, so recalibrating
 * that score does not move it.
 */
export const MIN_PASSAGE_COVERAGE = 0.4;

/**
 * The floor when the question's words were looked up in the project's index
 * (AnswerRequest.unknownWords given): a question about something no page names is then caught by
 * that test (namesWhatDocsLack), and the floor is left with questions whose words the pages use
 * elsewhere. 0.4 refused covered questions that paraphrase the pages ("colorized log lines").
 */
export const MIN_PASSAGE_COVERAGE_LOOKED_UP = 0.3;

/**
 * Every tuning constant of the extractive generator in one place: budgets, floors, the weights
 * of the question's terms, the factors of a unit's score (see score.ts, which names the feature
 * each one scales) and the thresholds of the strategies and passes. Factors are multiplicative
 * unless said otherwise; a factor of 1 (or a bonus of 0) switches its rule off.
 */
export interface ExtractiveProfile {
  // Budgets and floors (the generator's options).
  /** Most sentences in an answer. */
  maxSentences: number;
  /** Character budget for the sentences, citations excluded. */
  maxChars: number;
  /** Longest code block that may be quoted; longer ones are never cut, only skipped. */
  maxCodeChars: number;
  /** Share of the question's weighted terms (0-1) a sentence must cover to be used. */
  minRelevance: number;
  /** Share of the question's weighted terms (0-1) that must occur somewhere in the sources. */
  minTopicality: number;
  /** Floor of the best passage's query-term coverage ({@link MIN_PASSAGE_COVERAGE}). */
  minCoverage: number;
  /** The same floor once the question's words were looked up ({@link MIN_PASSAGE_COVERAGE_LOOKED_UP}). */
  minCoverageLookedUp: number;

  // Weights of the question's terms.
  /** A name in code form weighs this many times the heaviest term. */
  idWeight: number;
  /** Least weight of a term the sources never use, as a share of the largest idf. */
  unknownTermShare: number;
  /** Share of its weight a term of the conversation's topic (AnswerRequest.context) carries. */
  contextShare: number;
  /** Share of a reader's word's weight that the page's word for it carries ("throw" -> "error"). */
  relatedShare: number;
  /** Share of a term's weight it counts when only the unit's heading or page title has it. */
  headingTermShare: number;

  // Factors of a unit's score (score.ts).
  /** Relevance bonus per share of the question's word pairs the unit has in order. */
  phraseBonus: number;
  /** Sentences of fewer words than this are "tiny" (without code or a figure) or "short". */
  tinyWords: number;
  /** Sentences of fewer words than this (and at least {@link tinyWords}) are "short". */
  shortWords: number;
  tinyFactor: number;
  shortFactor: number;
  /** Sentences longer than this many characters are "long". */
  longChars: number;
  longFactor: number;
  boilerplateFactor: number;
  /** A sentence ending in ":" introduces something it does not show. */
  endsInColonFactor: number;
  /** A piece cut by a chunk boundary, starting lowercase or inside a link. */
  fragmentFactor: number;
  /** One shared term among several asked about is weak evidence. */
  singleTermFactor: number;
  /** Least distinct terms and names a question must ask for {@link singleTermFactor} to apply. */
  singleTermMinAsked: number;
  /** A sentence's score is multiplied by 1 + this / its place in its section (1 for the first). */
  sectionLeadBonus: number;
  /** Additive bonuses of the retriever's score (0-1) and of the source's rank (1 for the first). */
  sourceScoreBonus: number;
  sourceRankBonus: number;
  /** The score is multiplied by 1 + this times the heading's share of the question's weight. */
  headingFitBonus: number;
  /** A "Default: …" line under a heading fitting at least {@link defaultLineMinFit}, for a default asked. */
  defaultLineFactor: number;
  defaultLineMinFit: number;
  /** A sentence stating an amount when the question asks how long, many, much …. */
  amountFactor: number;
  /** A sentence naming what the question excludes ("without listening"). */
  excludedFactor: number;

  // Strategies.
  /** The general rule fills with sentences scoring at least this share of the best one. */
  relevantFloorShare: number;
  /** A definition adds other sentences scoring at least this share of the best usable one. */
  defineFloorShare: number;
  /**
   * Both floors with the learned scorer, whose scores are odds relative to the question's best
   * unit: at 0.1 its answers are as long as the hand score's (491 and 477 characters on average
   * over the development questions), so the two are compared at equal length.
   */
  learnedFloorShare: number;
  /** Definition: the topic's own section, a sentence defining the topic, one opening its page. */
  ownSectionFactor: number;
  definingFactor: number;
  pageOpeningFactor: number;
  /** Definition: a page whose title or path is the topic, or names it among other words. */
  ownPageFit: number;
  qualifierPageFit: number;
  /** Least quality of the sentences that continue a definition's lead, or open a section. */
  followQuality: number;
  /** Least quality of a how-to section's sentences, and of the sentence after a quoted block. */
  stepQuality: number;
  /** Least heading match (0-1) for a how-to answer to quote a section's steps. */
  howToSectionFit: number;
  /** How much the better retrieved source weighs in picking a how-to section. */
  howToSourceShare: number;
  /** A heading-over-code section loses this per heading word not asked, and per source rank. */
  codeSectionExtraWord: number;
  codeSectionSourcePenalty: number;
  /** A code block right after a chosen sentence gains this when picked as the answer's example. */
  introducedCodeBonus: number;
  /** Comparison: an enumeration (this many commas or more) compares nothing; a contrast word helps. */
  enumerationCommas: number;
  enumerationFactor: number;
  contrastFactor: number;
  /** Least relevance of a code block that answers alone (a reader's own code, no sentence matching). */
  exampleRelevance: number;

  // Passes and rendering.
  /** Longest defining sentence that is continued by the next one of its section. */
  shortDefinition: number;
  /** Most units between a list entry and the sentence introducing its list. */
  maxListReach: number;
  /** Most pages listed after the "not covered" answer. */
  seeAlsoPages: number;
  /** Words per streamed piece of prose. */
  wordsPerPiece: number;
  /** Where a passage that starts in the middle of its section counts its sentences from. */
  midSection: number;
}

/** Today's tuning; {@link ExtractiveProfile} documents each value. */
export const DEFAULT_PROFILE: Readonly<ExtractiveProfile> = Object.freeze({
  maxSentences: 4,
  maxChars: 700,
  maxCodeChars: 1500,
  minRelevance: 0.2,
  minTopicality: 0.35,
  minCoverage: MIN_PASSAGE_COVERAGE,
  minCoverageLookedUp: MIN_PASSAGE_COVERAGE_LOOKED_UP,

  idWeight: 1.5,
  unknownTermShare: 0.5,
  contextShare: 0.35,
  relatedShare: 0.6,
  headingTermShare: 0.5,

  phraseBonus: 0.25,
  tinyWords: 4,
  shortWords: 7,
  tinyFactor: 0.4,
  shortFactor: 0.8,
  longChars: 350,
  longFactor: 0.8,
  boilerplateFactor: 0.5,
  endsInColonFactor: 0.75,
  fragmentFactor: 0.5,
  singleTermFactor: 0.7,
  singleTermMinAsked: 3,
  sectionLeadBonus: 0.2,
  sourceScoreBonus: 0.25,
  sourceRankBonus: 0.25,
  headingFitBonus: 0.5,
  defaultLineFactor: 2,
  defaultLineMinFit: 0.3,
  amountFactor: 1.5,
  excludedFactor: 0.4,

  relevantFloorShare: 0.5,
  defineFloorShare: 0.6,
  learnedFloorShare: 0.1,
  ownSectionFactor: 1.5,
  definingFactor: 2.5,
  // Below a sentence of the form "X is …", but enough for the topic's page over a section
  // elsewhere that the topic heads.
  pageOpeningFactor: 2,
  ownPageFit: 1.5,
  qualifierPageFit: 0.85,
  followQuality: 0.6,
  stepQuality: 0.5,
  howToSectionFit: 0.5,
  howToSourceShare: 0.3,
  codeSectionExtraWord: 0.05,
  codeSectionSourcePenalty: 0.01,
  introducedCodeBonus: 0.25,
  enumerationCommas: 4,
  enumerationFactor: 0.4,
  contrastFactor: 1.3,
  exampleRelevance: 0.3,

  shortDefinition: 100,
  maxListReach: 8,
  seeAlsoPages: 3,
  wordsPerPiece: 6,
  midSection: 2,
});

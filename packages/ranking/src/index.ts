export { porterStem } from './porter-stemmer';
export {
  coverageOf,
  matchTerms,
  queryStems,
  stemsFound,
  termCoverage,
  weightedCoverage,
} from './query-terms';
export { splitProseAndCode, type ProseAndCode } from './prose-code';
export {
  MIN_OPENING_COVERAGE,
  OPENING_SLOT_FROM,
  openingCoverage,
  sectionOpenings,
  withOpeningSlot,
} from './section-openings';
export * from './relevance';
export * from './topic';
export * from './fusion';
export * from './bm25';
export { indexOfId, topIds, TopK } from './top-k';
export { ScoreSum } from './score-sum';
export * from './hit-row';

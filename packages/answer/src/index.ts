export { createAnswerGenerator, type AnswerGeneratorConfig } from './answer-generator.factory';
export {
  DEFAULT_PROFILE,
  ExtractiveAnswerGenerator,
  FEATURE_NAMES,
  NOT_COVERED_ANSWER,
  PASS_NAMES,
  UNIT_SCORER_INPUTS,
  unitScorerInputs,
  type ExtractiveAnswerGeneratorOptions,
  type ExtractiveProfile,
  type FeatureName,
  type PassName,
  type ScoredUnit,
  type UnitFeatures,
  type UnitScorer,
} from './extractive-answer.generator';
export {
  DEFAULT_MODEL_CONTEXT_TOKENS,
  MODEL_CONTEXT_STEPS,
  buildModelContext,
  contextSources,
  estimateTokens,
  type ModelContext,
  type ModelContextInput,
  type ModelContextOptions,
  type ModelContextStep,
  type ModelPassage,
} from './model-context.builder';
export { OpenAiAnswerGenerator, type OpenAiAnswerGeneratorOptions } from './openai-answer.generator';
export {
  LocalAnswerGenerator,
  type LocalAnswerGeneratorOptions,
  type LocalChatModel,
  type LocalModelState,
  type LocalModelStatus,
} from './local-answer.generator';
export { grammarSafeSchema, parseToolChoice, toolChoiceSchema } from './local-tool-choice';
export { CitationFilter, filterCitations } from './citation-filter.transform';
export {
  DEFAULT_SYSTEM_PROMPT,
  buildAnswerMessages,
  buildCondenseMessages,
  buildSummarizeMessages,
  sourceHeader,
  type ChatMessage,
} from './openai.prompts';
export {
  condenseFollowUp,
  followUpContext,
  isFollowUp,
  resolveFollowUp,
  type FollowUpReading,
  type ResolvedFollowUp,
} from './follow-up.util';
export {
  analyzeQuestion,
  detectQuestionType,
  type QuestionShape,
  type QuestionType,
} from './question-type.util';
export { contentTerms, jaccard, termOverlap } from './similarity.util';
export { ToolCallAssembler, parseToolArguments, type AssembledToolCall } from './tool-call.assembler';
export {
  HYGIENE_RULES,
  guardPieces,
  lintAnswer,
  type HygieneRule,
  type HygieneViolation,
} from './answer-hygiene';

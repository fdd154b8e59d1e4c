export { createAnswerGenerator, type AnswerGeneratorConfig } from './answer-generator.factory';
export {
  ExtractiveAnswerGenerator,
  NOT_COVERED_ANSWER,
  type ExtractiveAnswerGeneratorOptions,
  type ScoredUnit,
} from './extractive-answer.generator';
export { OpenAiAnswerGenerator, type OpenAiAnswerGeneratorOptions } from './openai-answer.generator';
export { CitationFilter, filterCitations } from './citation-filter.transform';
export { SseParser } from './sse.parser';
export {
  DEFAULT_SYSTEM_PROMPT,
  buildAnswerMessages,
  buildCondenseMessages,
  buildSummarizeMessages,
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

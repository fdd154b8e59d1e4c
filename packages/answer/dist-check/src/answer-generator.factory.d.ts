import type { AnswerGenerator } from '@kbqa/core';
import { type ExtractiveAnswerGeneratorOptions } from './extractive-answer.generator';
import { type OpenAiAnswerGeneratorOptions } from './openai-answer.generator';
/** How the API's configuration names a generator. */
export type AnswerGeneratorConfig = ({
    kind: 'extractive';
} & ExtractiveAnswerGeneratorOptions) | ({
    kind: 'openai';
} & OpenAiAnswerGeneratorOptions);
/** Builds the configured generator; the extractive one needs no model and is the default. */
export declare function createAnswerGenerator(config: AnswerGeneratorConfig): AnswerGenerator;

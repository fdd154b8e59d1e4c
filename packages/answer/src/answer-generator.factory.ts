import type { AnswerGenerator } from '@kbqa/core';
import {
  ExtractiveAnswerGenerator,
  type ExtractiveAnswerGeneratorOptions,
} from './extractive-answer.generator';
import { LocalAnswerGenerator, type LocalAnswerGeneratorOptions } from './local-answer.generator';
import { OpenAiAnswerGenerator, type OpenAiAnswerGeneratorOptions } from './openai-answer.generator';

/** How the API's configuration names a generator. */
export type AnswerGeneratorConfig =
  | ({ kind: 'extractive' } & ExtractiveAnswerGeneratorOptions)
  | ({ kind: 'openai' } & OpenAiAnswerGeneratorOptions)
  | ({ kind: 'local' } & LocalAnswerGeneratorOptions);

/** Builds the configured generator; the extractive one needs no model and is the default. */
export function createAnswerGenerator(config: AnswerGeneratorConfig): AnswerGenerator {
  switch (config.kind) {
    case 'extractive': {
      const { kind: _kind, ...options } = config;
      return new ExtractiveAnswerGenerator(options);
    }
    case 'openai': {
      const { kind: _kind, ...options } = config;
      return new OpenAiAnswerGenerator(options);
    }
    case 'local': {
      const { kind: _kind, ...options } = config;
      return new LocalAnswerGenerator(options);
    }
  }
}

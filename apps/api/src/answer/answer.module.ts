import { Global, Module } from '@nestjs/common';
import { createAnswerGenerator } from '@kbqa/answer';
import type { AnswerGenerator } from '@kbqa/core';
import { APP_CONFIG, type AppConfig } from '../config/config';

export const ANSWER_GENERATOR = Symbol('ANSWER_GENERATOR');

/** The configured answer generator: extractive by default, an OpenAI-compatible endpoint when set. */
@Global()
@Module({
  providers: [
    {
      provide: ANSWER_GENERATOR,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): AnswerGenerator =>
        createAnswerGenerator(
          config.llm.kind === 'openai'
            ? { ...config.llm, maxToolRounds: config.tools.maxRounds }
            : config.llm,
        ),
    },
  ],
  exports: [ANSWER_GENERATOR],
})
export class AnswerModule {}

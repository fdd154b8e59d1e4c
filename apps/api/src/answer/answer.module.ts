import { Global, Module } from '@nestjs/common';
import { createAnswerGenerator } from '@kbqa/answer';
import type { AnswerGenerator } from '@kbqa/core';
import { PooledExtractiveAnswerGenerator, type ReadPool } from '@kbqa/read-pool';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { READ_POOL } from '../retrieval/read-pool.module';

export const ANSWER_GENERATOR = Symbol('ANSWER_GENERATOR');

/**
 * The configured answer generator: extractive by default (its answers composed on the read pool's
 * workers when the service has one), an OpenAI-compatible endpoint when set.
 */
@Global()
@Module({
  providers: [
    {
      provide: ANSWER_GENERATOR,
      // The CLI and the ingestion worker have no read pool.
      inject: [APP_CONFIG, { token: READ_POOL, optional: true }],
      useFactory: (config: AppConfig, pool: ReadPool | null | undefined): AnswerGenerator => {
        if (config.llm.kind === 'openai')
          return createAnswerGenerator({ ...config.llm, maxToolRounds: config.tools.maxRounds });
        return pool ? new PooledExtractiveAnswerGenerator(pool) : createAnswerGenerator(config.llm);
      },
    },
  ],
  exports: [ANSWER_GENERATOR],
})
export class AnswerModule {}

import { basename } from 'node:path';
import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createAnswerGenerator, LocalAnswerGenerator, type LocalChatModel } from '@kbqa/answer';
import type { AnswerGenerator } from '@kbqa/core';
import { PooledExtractiveAnswerGenerator, type ReadPool } from '@kbqa/read-pool';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { READ_POOL } from '../retrieval/read-pool.module';

export const ANSWER_GENERATOR = Symbol('ANSWER_GENERATOR');

type LocalConfig = Extract<AppConfig['llm'], { kind: 'local' }>;

const logger = new Logger('AnswerModule');

/**
 * The local model, loaded through a dynamic import: `@kbqa/llm-local` reaches node-llama-cpp
 * only here, so the extractive and OpenAI paths never load it.
 */
async function loadLocalModel(config: LocalConfig): Promise<LocalChatModel> {
  const { LocalLlm } = await import('@kbqa/llm-local');
  const llm = await LocalLlm.load({
    modelPath: config.modelFile,
    // The sources' budget, the answer, and room for the prompt, the history and the question.
    contextTokens: config.contextTokens + config.maxTokens + 1024,
    sequences: config.sequences,
    maxQueue: config.maxQueue,
    threads: config.threads,
    log: (level, message) => (level === 'error' ? logger.error(message) : logger.warn(message)),
  });
  if (llm.sequenceChoice) logger.log(`KBQA_LLM=local: ${llm.sequenceChoice.reason}`);
  return llm;
}

function localGenerator(
  config: LocalConfig,
  fallback: AnswerGenerator,
  toolRounds: number,
): LocalAnswerGenerator {
  return new LocalAnswerGenerator({
    modelName: config.model,
    // KBQA_TOOL_MAX_ROUNDS=0 offers no tools, as with an OpenAI-compatible model.
    toolCalls: toolRounds > 0,
    maxToolRounds: toolRounds,
    loadModel: () => loadLocalModel(config),
    fallback,
    contextTokens: config.contextTokens,
    maxTokens: config.maxTokens,
    onLoadError: (error) =>
      logger.error(
        `KBQA_LLM=local: ${error instanceof Error ? error.message : String(error)}. ` +
          'Chat answers with the extractive generator until that is fixed and the service restarted.',
      ),
  });
}

/** What `/health` says of the local model; the file's folder is left out of a public endpoint. */
export function localModelHealth(
  generator: AnswerGenerator,
  config: AppConfig,
): ReturnType<LocalAnswerGenerator['status']> | undefined {
  if (!(generator instanceof LocalAnswerGenerator) || config.llm.kind !== 'local') return undefined;
  const status = generator.status();
  const file = config.llm.modelFile;
  return status.detail ? { ...status, detail: status.detail.split(file).join(basename(file)) } : status;
}

/**
 * Starts loading the local model when the service starts, so that the first answer does not
 * wait for it and a broken file shows in the log and `/health` at once; frees it at shutdown.
 */
class LocalModelLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator) {}

  onApplicationBootstrap(): void {
    if (this.generator instanceof LocalAnswerGenerator) void this.generator.warm();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.generator instanceof LocalAnswerGenerator) await this.generator.dispose();
  }
}

/**
 * The configured answer generator: extractive by default (its answers composed on the read pool's
 * workers when the service has one), an OpenAI-compatible endpoint, or a local GGUF model (with
 * the extractive generator as its fallback) when set.
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
        const extractive = pool
          ? new PooledExtractiveAnswerGenerator(pool)
          : createAnswerGenerator({ kind: 'extractive' });
        if (config.llm.kind === 'local')
          return localGenerator(config.llm, extractive, config.tools.maxRounds);
        return extractive;
      },
    },
    LocalModelLifecycle,
  ],
  exports: [ANSWER_GENERATOR],
})
export class AnswerModule {}

import {
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { MarkdownChunker } from '@kbqa/chunker';
import type { AnswerGenerator, TaskLeaseRepository } from '@kbqa/core';
import { ANSWER_GENERATOR } from '../answer/answer.module';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { RetrievalModule } from '../retrieval/retrieval.module';
import { BullmqQueue } from './bullmq.queue';
import { HandOffQueue, InProcessQueue } from './in-process.queue';
import { INGESTION_QUEUE, type IngestionQueue } from './ingestion-queue';
import { IngestionController } from './ingestion.controller';
import { IngestionRunner } from './ingestion.runner';
import { IngestionService } from './ingestion.service';
import { CHUNKER, SUMMARIZER } from './ingestion.tokens';
import { LlmSummarizer } from './llm-summarizer';
import { LoaderRegistry } from './loader-registry';
import { createLoaderRegistry } from './loaders';
import { TASK_LEASES, TaskLeases } from './task-leases';
import { TASK_LEASE_REPOSITORY } from '../database/tasks.providers';

/**
 * Queues again what a previous process left unfinished, puts back pending tasks that the queue
 * lost (a Redis restart without persistence empties it), and closes the queue on shutdown.
 */
@Injectable()
class QueueLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Ingestion');
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reconciling = false;

  constructor(
    private readonly ingestion: IngestionService,
    @Inject(INGESTION_QUEUE) private readonly queue: IngestionQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly loaders: LoaderRegistry,
    @Inject(TASK_LEASES) private readonly leases: TaskLeases | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers) return;
    // With leases, a task another live process runs is not this start's to run again.
    const tasks = this.leases ? await this.leases.claimable() : await this.ingestion.unfinishedTasks();
    if (tasks.length > 0) {
      const ids = tasks.map((t) => t.id).join(', ');
      this.logger.log(`re-queuing ${tasks.length} unfinished task(s): ${ids}`);
    }
    for (const task of tasks) await this.ingestion.requeue(task);
    this.startReconciling();
  }

  /**
   * The database is the truth and a queue only carries task ids, so every process with workers
   * periodically queues again the tasks still pending (a no-op for a task already queued): a
   * BullMQ job lost with a Redis restart, or a task another process created without a queue
   * (`kbqa indexes resync`, an API process with KBQA_WORKER=0 and no Redis). Without Redis it
   * also queues the running tasks whose lease ran out, so a survivor takes over the task of a
   * process that was killed, and pending tasks that waited for another process's project turn.
   */
  private startReconciling(): void {
    this.reconcileTimer = setInterval(() => {
      if (this.reconciling) return;
      this.reconciling = true;
      this.reconcile()
        .catch((e: unknown) =>
          this.logger.warn(`queue reconciliation failed: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => (this.reconciling = false));
    }, this.config.queueReconcileMs);
    this.reconcileTimer.unref();
  }

  private async reconcile(): Promise<void> {
    if ((await this.queue.health()).state !== 'ok') return;
    const pending = this.leases
      ? await this.leases.claimable(this.config.queueReconcileMs)
      : await this.ingestion.pendingTasks(this.config.queueReconcileMs);
    for (const task of pending) await this.ingestion.requeue(task);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.reconcileTimer);
    await this.queue.close();
    this.loaders.shutdown();
  }
}

@Module({
  imports: [RetrievalModule],
  controllers: [IngestionController],
  providers: [
    IngestionService,
    IngestionRunner,
    QueueLifecycle,
    {
      provide: CHUNKER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new MarkdownChunker(config.chunker),
    },
    {
      provide: SUMMARIZER,
      inject: [APP_CONFIG, ANSWER_GENERATOR],
      useFactory: (config: AppConfig, generator: AnswerGenerator) =>
        config.llm.kind === 'openai' ? new LlmSummarizer(generator) : null,
    },
    {
      provide: LoaderRegistry,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => createLoaderRegistry(config),
    },
    {
      provide: TASK_LEASES,
      inject: [APP_CONFIG, TASK_LEASE_REPOSITORY],
      useFactory: (config: AppConfig, leases: TaskLeaseRepository): TaskLeases | null =>
        config.redisUrl ? null : new TaskLeases(leases, config.taskLeaseMs),
    },
    {
      provide: INGESTION_QUEUE,
      inject: [APP_CONFIG, IngestionRunner],
      useFactory: (config: AppConfig, runner: IngestionRunner): IngestionQueue =>
        config.redisUrl
          ? new BullmqQueue(runner, {
              redisUrl: config.redisUrl,
              runWorkers: config.runWorkers,
              concurrency: config.queueConcurrency,
              queueName: config.queueName,
              stallMs: config.queueStallMs,
            })
          : config.runWorkers
            ? new InProcessQueue(runner, config.queueConcurrency)
            : new HandOffQueue(),
    },
  ],
  exports: [INGESTION_QUEUE, IngestionService],
})
export class IngestionModule {}

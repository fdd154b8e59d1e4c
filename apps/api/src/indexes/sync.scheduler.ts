import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { redisConnection } from '../ingestion/bullmq.queue';
import { IndexesService } from './indexes.service';

/** The one job scheduler of the sync queue: every tick, some process looks for due syncs. */
const TICK_SCHEDULER_ID = 'kbqa-sync-tick';
/** The first look after start-up, so a sync that fell due while the service was down runs soon. */
const FIRST_LOOK_MS = 1_000;

/**
 * How often due syncs are looked for: a tenth of the interval, between a quarter second and a
 * minute (a 24 h interval is checked every minute, a 5 s one every half second).
 */
export function tickMs(intervalMs: number): number {
  return Math.min(60_000, Math.max(250, Math.floor(intervalMs / 10)));
}

/**
 * Runs auto syncs when they fall due. The due time of each index is stored, so restarts keep the
 * schedule. Without Redis an in-process timer looks for due syncs; with Redis a BullMQ job
 * scheduler does (one tick job per period, whichever worker process takes it), and the claim
 * in {@link IndexesService.startDueSyncs} makes each due sync run exactly once even when several
 * processes look at the same moment. Only processes that run workers schedule.
 */
@Injectable()
export class SyncScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Sync');
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private queue: Queue | undefined;
  private worker: Worker | undefined;
  private running = false;

  constructor(
    private readonly indexes: IndexesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers) return;
    const every = tickMs(this.config.syncIntervalMs);
    this.first = setTimeout(() => void this.tick(), FIRST_LOOK_MS);
    this.first.unref();
    if (!this.config.redisUrl) {
      this.timer = setInterval(() => void this.tick(), every);
      this.timer.unref();
      return;
    }
    const connection = redisConnection(this.config.redisUrl);
    const name = `${this.config.queueName}-sync`;
    this.queue = new Queue(name, { connection });
    this.worker = new Worker(name, () => this.tick(), { connection, concurrency: 1 });
    this.worker.on('error', (e) => this.logger.warn(`sync scheduler: ${e.message}`));
    try {
      await this.queue.upsertJobScheduler(
        TICK_SCHEDULER_ID,
        { every },
        { name: 'tick', opts: { removeOnComplete: true, removeOnFail: 100 } },
      );
    } catch (e) {
      // Redis down at start: the first look above still runs; the scheduler is set up by the
      // next process start (queue reconciliation covers the tasks themselves).
      this.logger.warn(
        `could not set up the sync schedule in Redis: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  /** Starts the syncs that are due; overlapping ticks of one process are skipped. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const started = await this.indexes.startDueSyncs();
      if (started.length > 0) this.logger.log(`auto sync started task(s) ${started.join(', ')}`);
    } catch (e) {
      this.logger.warn(`auto sync check failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.running = false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.worker?.close();
    await this.queue?.close();
  }
}

import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, SetMetadata } from '@nestjs/common';
import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/config';

/** What an endpoint's requests count against (API-DECISIONS.md: 429 with Retry-After). */
export type RateCategory = 'chat' | 'ingest';
const CATEGORY = 'kbqa:rate-category';

/** Marks a handler whose requests count against a per-key limit. */
export const RateLimit = (category: RateCategory) => SetMetadata(CATEGORY, category);
export const RATE_CATEGORY_METADATA = CATEGORY;

/** The buckets: chat per server key, chat per anon key and client address, ingestion per key, failed key checks per address. */
export type Bucket = 'chatServer' | 'chatAnon' | 'ingest' | 'authFail';

export interface RateLimitSettings {
  /** Requests a minute; 0 switches a bucket off. */
  chatServerPerMin: number;
  chatAnonPerMin: number;
  ingestPerMin: number;
  authFailPerMin: number;
}

/**
 * The limits of every bucket, counted in memory, or in Redis when `REDIS_URL` is set so that
 * every API process shares them (rate-limiter-flexible, with an in-memory limiter taking over
 * while Redis is unreachable, so a Redis outage neither lifts the limits nor fails requests).
 */
@Injectable()
export class RateLimits implements OnModuleInit, OnModuleDestroy {
  private readonly limiters = new Map<Bucket, RateLimiterAbstract>();
  private readonly redis: Redis | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const s = config.rateLimits;
    if (config.redisUrl) {
      // Fail fast while Redis is down (the insurance limiter answers instead of a queued command).
      this.redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.redis.on('error', () => undefined); // reconnects by itself; /health reports the queue's Redis
    }
    const points: Record<Bucket, number> = {
      chatServer: s.chatServerPerMin,
      chatAnon: s.chatAnonPerMin,
      ingest: s.ingestPerMin,
      authFail: s.authFailPerMin,
    };
    for (const [bucket, n] of Object.entries(points) as Array<[Bucket, number]>) {
      if (n <= 0) continue;
      const memory = new RateLimiterMemory({ keyPrefix: bucket, points: n, duration: 60 });
      this.limiters.set(
        bucket,
        this.redis
          ? new RateLimiterRedis({
              storeClient: this.redis,
              keyPrefix: `kbqa-rate:${config.queueName}:${bucket}`,
              points: n,
              duration: 60,
              rejectIfRedisNotReady: true,
              insuranceLimiter: memory,
            })
          : memory,
      );
    }
  }

  /**
   * Counts one request; returns the seconds to wait when the bucket is spent, else undefined.
   * The count is one atomic increment (in memory, or a Lua INCR in Redis) and the answer is read
   * from the count it returns, so concurrent callers never all see the bucket unspent: a burst of
   * N gets exactly `points` undefined answers, even spread over every process sharing Redis.
   */
  async consume(bucket: Bucket, key: string): Promise<number | undefined> {
    const limiter = this.limiters.get(bucket);
    if (!limiter) return undefined;
    try {
      await limiter.consume(key);
      return undefined;
    } catch (e) {
      if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw e;
    }
  }

  /**
   * Seconds to wait when the bucket is spent (without counting this request). Only a shortcut:
   * every request of a burst may read it unspent, so the limit is held by {@link consume}'s answer.
   */
  async blocked(bucket: Bucket, key: string): Promise<number | undefined> {
    const limiter = this.limiters.get(bucket);
    if (!limiter) return undefined;
    const res = await limiter.get(key).catch(() => null);
    if (!res || res.consumedPoints < limiter.points) return undefined;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }

  /**
   * Waits (up to 2 s) for Redis before serving, so the first requests are counted in the shared
   * store rather than by this process's stand-in.
   */
  async onModuleInit(): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}

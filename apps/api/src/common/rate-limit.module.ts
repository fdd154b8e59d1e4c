import { Module } from '@nestjs/common';
import { RateLimits } from './rate-limit';

/**
 * The one RateLimits of the application: the API-key guard and the operator guard count failed
 * checks in the same `authFail` bucket, so they must share an instance (and its Redis connection).
 */
@Module({ providers: [RateLimits], exports: [RateLimits] })
export class RateLimitModule {}

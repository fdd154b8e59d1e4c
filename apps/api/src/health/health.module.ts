import { Global, Module } from '@nestjs/common';
import { DiskSpace } from './disk-space';

/**
 * The disk state that request errors and ingestion report into and /health reads (global, so the
 * error filter and the runner reach it wherever they are provided).
 */
@Global()
@Module({
  providers: [DiskSpace],
  exports: [DiskSpace],
})
export class HealthModule {}

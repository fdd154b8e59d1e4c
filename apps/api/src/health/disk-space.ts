import { statfs } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config';

/** Free space below which the data directory's disk counts as full: the smaller of the two. */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;
const LOW_SPACE_FRACTION = 0.02;
/**
 * How long a write that failed for lack of space (SQLITE_FULL, ENOSPC) keeps the disk reported
 * full, unless a later ingestion succeeds first: a failed transaction gives back some of the
 * space it took, so free space alone can look fine while the next write fails the same way.
 */
const FAILED_WRITE_MEMORY_MS = 5 * 60_000;

export interface DiskHealth {
  state: 'ok' | 'full';
  /** Why it is full, for an operator reading /health. */
  detail?: string;
}

/**
 * Whether the disk of the data directory (the SQLite database, task payloads) can take writes:
 * read from its free space, and from the last write that failed for lack of space in this process.
 */
@Injectable()
export class DiskSpace {
  private failedAt: number | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** A write failed because the disk was full (STORAGE_FULL). */
  noteFull(): void {
    this.failedAt = Date.now();
  }

  /** Writes work again (an ingestion task stored all it loaded): forget the failed one. */
  noteWritten(): void {
    this.failedAt = undefined;
  }

  async health(): Promise<DiskHealth> {
    const space = await statfs(this.config.dataDir).catch(() => undefined);
    if (space) {
      const free = space.bavail * space.bsize;
      const total = space.blocks * space.bsize;
      if (free < Math.min(LOW_SPACE_BYTES, total * LOW_SPACE_FRACTION)) {
        return {
          state: 'full',
          detail:
            `the disk of the data directory is full: ${megabytes(free)} MB free of ${megabytes(total)} MB; ` +
            'ingestion and chat messages cannot be stored until space is freed',
        };
      }
    }
    if (this.failedAt !== undefined && Date.now() - this.failedAt < FAILED_WRITE_MEMORY_MS) {
      const ago = Math.round((Date.now() - this.failedAt) / 1000);
      return {
        state: 'full',
        detail:
          `a write failed ${ago} s ago because the disk of the data directory was full; ` +
          'free space, then ingest again',
      };
    }
    return { state: 'ok' };
  }
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { backupsDir, pruneBackups, scheduledName, takeBackup } from './backup';

/**
 * Backs the SQLite deployment up every KBQA_BACKUP_INTERVAL into `<data dir>/backups/`, keeping
 * the newest KBQA_BACKUP_KEEP; each backup and each removal is logged. The first backup is one
 * interval after start. A failed backup (a full disk) is logged and the service goes on; the next
 * interval tries again.
 */
@Injectable()
export class BackupScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Backup');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    const every = this.config.backup.intervalMs;
    if (every === undefined || this.config.databaseUrl !== undefined) return;
    this.logger.log(
      `scheduled backups every ${every} ms into ${backupsDir(this.config)}, keeping ${this.config.backup.keep}`,
    );
    this.timer = setInterval(() => {
      // An interval shorter than one backup skips a tick instead of piling backups up.
      this.running ??= this.run().finally(() => (this.running = undefined));
    }, every);
    this.timer.unref();
  }

  /** Takes one scheduled backup and prunes the old ones. */
  async run(): Promise<void> {
    const dir = backupsDir(this.config);
    try {
      mkdirSync(dir, { recursive: true });
      const started = Date.now();
      const result = await takeBackup(this.config, join(dir, scheduledName(new Date())));
      this.logger.log(`backup written: ${result.file} (${result.bytes} bytes, ${Date.now() - started} ms)`);
      for (const removed of pruneBackups(dir, this.config.backup.keep)) {
        this.logger.log(`backup removed: ${removed} (keeping the newest ${this.config.backup.keep})`);
      }
    } catch (e) {
      this.logger.error(`backup failed: ${KbqaError.from(e).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

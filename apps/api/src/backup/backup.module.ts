import { Module } from '@nestjs/common';
import { BackupScheduler } from './backup.scheduler';

/** Scheduled backups of the HTTP service's SQLite deployment (KBQA_BACKUP_INTERVAL). */
@Module({ providers: [BackupScheduler] })
export class BackupModule {}

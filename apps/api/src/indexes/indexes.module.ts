import { type DynamicModule, Module } from '@nestjs/common';
import { IngestionModule } from '../ingestion/ingestion.module';
import { IndexesService } from './indexes.service';
import { FolderWatcher } from './folder-watcher';
import { SyncScheduler } from './sync.scheduler';

/**
 * Indexes, their auto sync and watched folders. The service runs with the ingestion queue (tasks
 * it starts are queued at once), the scheduler and the folder watcher, or, in the CLI, with none
 * of them: its tasks then wait in the database for a process with workers.
 */
@Module({})
export class IndexesModule {
  /**
   * One module object for every importer (the app and the operator API): two equal objects made
   * two instances of each provider, so two schedulers and two watchers per folder.
   */
  private static queued: DynamicModule | undefined;

  static withQueue(): DynamicModule {
    return (IndexesModule.queued ??= {
      module: IndexesModule,
      imports: [IngestionModule],
      providers: [IndexesService, SyncScheduler, FolderWatcher],
      exports: [IndexesService],
    });
  }

  static withoutQueue(): DynamicModule {
    return { module: IndexesModule, providers: [IndexesService], exports: [IndexesService] };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { IngestionModule } from '../ingestion/ingestion.module';
import { IndexesService } from './indexes.service';
import { SyncScheduler } from './sync.scheduler';

/**
 * Indexes and their auto sync. The service runs with the ingestion queue (tasks it starts are
 * queued at once) and the scheduler, or, in the CLI, with neither: its tasks then wait in the
 * database for a process with workers.
 */
@Module({})
export class IndexesModule {
  static withQueue(): DynamicModule {
    return {
      module: IndexesModule,
      imports: [IngestionModule],
      providers: [IndexesService, SyncScheduler],
      exports: [IndexesService],
    };
  }

  static withoutQueue(): DynamicModule {
    return { module: IndexesModule, providers: [IndexesService], exports: [IndexesService] };
  }
}

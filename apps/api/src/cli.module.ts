import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from './config/config';
import { AnswerModule } from './answer/answer.module';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { IngestionModule } from './ingestion/ingestion.module';
import { IndexesModule } from './indexes/indexes.module';
import { IntegrationSettingsModule } from './integrations/integration-settings.module';
import { ProjectsModule } from './projects/projects.module';
import { TasksModule } from './tasks/tasks.module';
import { ToolsModule } from './tools/tools.module';

/** What the command-line tool needs: configuration, the database, projects/keys, task reports, tools and chat platforms. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config),
        ProjectsModule,
        TasksModule,
        IndexesModule.withoutQueue(),
        ToolsModule,
        IntegrationSettingsModule,
      ],
    };
  }
}

/** `kbqa worker`: the ingestion providers without HTTP, sharing the API's modules. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot({ ...config, runWorkers: true }),
        DatabaseModule.forRoot(config),
        AnswerModule,
        IngestionModule,
        IndexesModule.withQueue(),
      ],
    };
  }
}

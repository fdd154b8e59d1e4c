import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiKeyGuard } from './common/auth';
import { RateLimitModule } from './common/rate-limit.module';
import { HttpErrorFilter } from './common/http-error.filter';
import { createValidationPipe } from './common/validation';
import type { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { AdminModule } from './admin/admin.module';
import { AnswerModule } from './answer/answer.module';
import { BackupModule } from './backup/backup.module';
import { ChatModule } from './chat/chat.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { HealthController } from './health/health.controller';
import { HealthModule } from './health/health.module';
import { IngestionModule } from './ingestion/ingestion.module';
import { IndexesModule } from './indexes/indexes.module';
import { McpModule } from './mcp/mcp.module';
import { ProjectsModule } from './projects/projects.module';
import { ReadPoolModule } from './retrieval/read-pool.module';
import { RetrievalModule } from './retrieval/retrieval.module';
import { SourcesController } from './sources/sources.controller';

@Module({})
export class AppModule {
  /** The HTTP application: every controller, with the app-wide guard, pipe and error filter. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        HealthModule,
        DatabaseModule.forRoot(config),
        ReadPoolModule,
        RateLimitModule,
        AnswerModule,
        ProjectsModule,
        RetrievalModule,
        IngestionModule,
        IndexesModule.withQueue(),
        ChatModule,
        AdminModule,
        DashboardModule,
        McpModule,
        BackupModule,
      ],
      controllers: [HealthController, SourcesController],
      providers: [
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}

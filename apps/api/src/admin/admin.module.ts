import { Module } from '@nestjs/common';
import { RateLimitModule } from '../common/rate-limit.module';
import { ChatModule } from '../chat/chat.module';
import { IndexesModule } from '../indexes/indexes.module';
import { IngestionModule } from '../ingestion/ingestion.module';
import { ProjectsModule } from '../projects/projects.module';
import { TasksModule } from '../tasks/tasks.module';
import { DashboardSessionsService } from '../dashboard/dashboard-sessions.service';
import { TeachingModule } from '../teaching/teaching.module';
import { AdminTokenService } from './admin-token.service';
import { AdminGuard } from './admin.guard';
import { AdminIndexesController } from './indexes.controller';
import { AdminKeysController } from './keys.controller';
import { AdminPlaygroundController } from './playground.controller';
import { AdminProjectsController } from './projects.controller';
import { AdminTasksController } from './tasks.controller';
import { AdminAnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { AdminConversationsController } from './conversations.controller';
import { AdminSourcesController } from './sources.controller';
import { AdminSourcesService } from './sources.service';
import { AdminTaughtController } from './taught.controller';
import { AdminToolsController } from './tools.controller';
import { AdminToolSourcesController } from './tool-sources.controller';
import { ToolsModule } from '../tools/tools.module';
import { IntegrationSettingsModule } from '../integrations/integration-settings.module';
import { AdminIntegrationsController } from './integrations.controller';

/**
 * The operator API, `/admin/v1/…` (docs/api.md, "Operator API"): one controller per resource,
 * each declared with `@AdminController`, and only these routes in the OpenAPI document. A new
 * resource adds its controller here (and imports the module of its service).
 */
@Module({
  imports: [
    RateLimitModule,
    ProjectsModule,
    TasksModule,
    IndexesModule.withQueue(),
    IngestionModule,
    ChatModule,
    TeachingModule,
    ToolsModule,
    IntegrationSettingsModule,
  ],
  controllers: [
    AdminProjectsController,
    AdminKeysController,
    AdminIndexesController,
    AdminTasksController,
    AdminPlaygroundController,
    AdminSourcesController,
    AdminTaughtController,
    AdminConversationsController,
    AdminAnalyticsController,
    AdminToolsController,
    AdminToolSourcesController,
    AdminIntegrationsController,
  ],
  providers: [AdminTokenService, AdminGuard, DashboardSessionsService, AdminSourcesService, AnalyticsService],
  exports: [AdminTokenService, DashboardSessionsService],
})
export class AdminModule {}

import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { RateLimitModule } from '../common/rate-limit.module';
import { ProjectsModule } from '../projects/projects.module';
import { ToolsModule } from '../tools/tools.module';
import { IntegrationAnswers } from './integration-answers';
import { IntegrationsEndpoint } from './integrations-route';
import { IntegrationsRepository } from './integrations.repository';
import { IntegrationsService } from './integrations.service';

/** The integrations' configuration: for the operator API, the dashboard and the command line. */
@Module({
  imports: [ProjectsModule, ToolsModule],
  providers: [IntegrationsRepository, IntegrationsService],
  exports: [IntegrationsRepository, IntegrationsService],
})
export class IntegrationSettingsModule {}

/**
 * Slack and Discord answering through the chat (docs/integrations.md); the webhooks themselves
 * are plain Fastify routes (registerIntegrationRoutes), since they need the raw request body.
 */
@Module({
  imports: [IntegrationSettingsModule, ChatModule, RateLimitModule],
  providers: [IntegrationAnswers, IntegrationsEndpoint],
  exports: [IntegrationsEndpoint],
})
export class IntegrationsModule {}

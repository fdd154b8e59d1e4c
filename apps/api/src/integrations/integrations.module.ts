import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { RateLimitModule } from '../common/rate-limit.module';
import { IntegrationAnswers } from './integration-answers';
import { IntegrationSettingsModule } from './integration-settings.module';
import { IntegrationsEndpoint } from './integrations-route';

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

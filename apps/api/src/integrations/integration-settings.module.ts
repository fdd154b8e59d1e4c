import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ToolsModule } from '../tools/tools.module';
import { IntegrationsRepository } from './integrations.repository';
import { IntegrationsService } from './integrations.service';

/**
 * The integrations' configuration: for the operator API, the dashboard and the command line,
 * which loads it without the chat (a file of its own for that reason).
 */
@Module({
  imports: [ProjectsModule, ToolsModule],
  providers: [IntegrationsRepository, IntegrationsService],
  exports: [IntegrationsRepository, IntegrationsService],
})
export class IntegrationSettingsModule {}

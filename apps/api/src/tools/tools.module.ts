import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ToolSourcesService } from './tool-sources.service';
import { ToolsService } from './tools.service';

/** HTTP tool definitions and MCP tool sources per project: managed by the operator API and the CLI. */
@Module({
  imports: [ProjectsModule],
  providers: [ToolsService, ToolSourcesService],
  exports: [ToolsService, ToolSourcesService],
})
export class ToolsModule {}

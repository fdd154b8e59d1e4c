import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ToolsService } from './tools.service';

/** HTTP tool definitions per project: managed by the operator API and the CLI. */
@Module({
  imports: [ProjectsModule],
  providers: [ToolsService],
  exports: [ToolsService],
})
export class ToolsModule {}

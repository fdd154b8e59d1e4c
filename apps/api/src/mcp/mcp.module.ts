import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { RateLimitModule } from '../common/rate-limit.module';
import { ProjectsModule } from '../projects/projects.module';
import { RetrievalModule } from '../retrieval/retrieval.module';
import { TeachingModule } from '../teaching/teaching.module';
import { McpEndpoint } from './mcp-route';
import { McpKnowledgeService } from './mcp.service';
import { SourceTexts } from './source-texts';

/** The MCP endpoint's parts; the route itself is a plain Fastify route (registerMcpRoutes). */
@Module({
  imports: [ChatModule, ProjectsModule, RateLimitModule, RetrievalModule, TeachingModule],
  providers: [McpEndpoint, McpKnowledgeService, SourceTexts],
  exports: [McpEndpoint],
})
export class McpModule {}

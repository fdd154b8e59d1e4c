import { Module } from '@nestjs/common';
import { ConversationsController } from '../conversations/conversations.controller';
import { ConversationsService } from '../conversations/conversations.service';
import { ProjectsModule } from '../projects/projects.module';
import { RetrievalModule } from '../retrieval/retrieval.module';
import { TeachingModule } from '../teaching/teaching.module';
import { ToolsModule } from '../tools/tools.module';
import { ChatController } from './chat.controller';
import { ChatService } from './chat.service';

@Module({
  imports: [RetrievalModule, ProjectsModule, TeachingModule, ToolsModule],
  controllers: [ChatController, ConversationsController],
  providers: [ChatService, ConversationsService],
  exports: [ChatService, ConversationsService],
})
export class ChatModule {}

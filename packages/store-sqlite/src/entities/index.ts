import { ApiKeyEntity } from './api-key.entity';
import { ConversationEntity } from './conversation.entity';
import { IndexEntity } from './index.entity';
import { IngestionTaskEntity } from './ingestion-task.entity';
import { MessageEntity } from './message.entity';
import { ProjectEntity } from './project.entity';
import { SourceEntity } from './source.entity';
import { TaskLeaseEntity } from './task-lease.entity';
import { TaughtAnswerEntity } from './taught-answer.entity';
import { ToolEntity } from './tool.entity';
import { ToolSourceEntity } from './tool-source.entity';

export * from './api-key.entity';
export * from './conversation.entity';
export * from './index.entity';
export * from './ingestion-task.entity';
export * from './message.entity';
export * from './project.entity';
export * from './source.entity';
export * from './task-lease.entity';
export * from './taught-answer.entity';
export * from './tool.entity';
export * from './tool-source.entity';

export const ENTITIES = [
  ProjectEntity,
  ApiKeyEntity,
  SourceEntity,
  IngestionTaskEntity,
  TaskLeaseEntity,
  IndexEntity,
  ConversationEntity,
  MessageEntity,
  TaughtAnswerEntity,
  ToolEntity,
  ToolSourceEntity,
];

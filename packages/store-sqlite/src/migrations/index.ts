import { Initial1732000000000 } from './1732000000000-initial';
import { Vectors1733000000000 } from './1733000000000-vectors';
import { FtsCodeColumn1733100000000 } from './1733100000000-fts-code-column';
import { FtsProjectColumn1733200000000 } from './1733200000000-fts-project-column';
import { FtsIncrementalMerge1733300000000 } from './1733300000000-fts-incremental-merge';
import { TaskCounts1733400000000 } from './1733400000000-task-counts';
import { VectorCodes1733500000000 } from './1733500000000-vector-codes';
import { Indexes1733600000000 } from './1733600000000-indexes';
import { ProjectOrigins1733700000000 } from './1733700000000-project-origins';
import { AdminData1733800000000 } from './1733800000000-admin-data';
import { DashboardSessions1733900000000 } from './1733900000000-dashboard-sessions';
import { Tools1734000000000 } from './1734000000000-tools';
import { MessageTools1734100000000 } from './1734100000000-message-tools';
import { ToolSources1734200000000 } from './1734200000000-tool-sources';
import { VectorChanges1734300000000 } from './1734300000000-vector-changes';
import { ChunkGeneration1734400000000 } from './1734400000000-chunk-generation';
import { FtsTotals1734500000000 } from './1734500000000-fts-totals';
import { ConversationStarter1734600000000 } from './1734600000000-conversation-starter';
import { ScheduledTasks1734700000000 } from './1734700000000-scheduled-tasks';
import { TaskLeases1734800000000 } from './1734800000000-task-leases';
import { ChatIntegrations1734900000000 } from './1734900000000-chat-integrations';
import { MessageVersion1735200000000 } from './1735200000000-message-version';
import { ConversationChannel1735400000000 } from './1735400000000-conversation-channel';

/** Every migration, oldest first. Never edit a released one: add a new file. */
export const MIGRATIONS = [
  Initial1732000000000,
  Vectors1733000000000,
  FtsCodeColumn1733100000000,
  FtsProjectColumn1733200000000,
  FtsIncrementalMerge1733300000000,
  TaskCounts1733400000000,
  VectorCodes1733500000000,
  Indexes1733600000000,
  ProjectOrigins1733700000000,
  AdminData1733800000000,
  DashboardSessions1733900000000,
  Tools1734000000000,
  MessageTools1734100000000,
  ToolSources1734200000000,
  VectorChanges1734300000000,
  ChunkGeneration1734400000000,
  FtsTotals1734500000000,
  ConversationStarter1734600000000,
  ScheduledTasks1734700000000,
  TaskLeases1734800000000,
  ChatIntegrations1734900000000,
  MessageVersion1735200000000,
  ConversationChannel1735400000000,
];

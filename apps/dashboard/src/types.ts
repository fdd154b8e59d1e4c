/** Shapes of the operator API (docs/api.md, "Operator API"). */

export interface Project {
  id: number;
  name: string;
  export_enabled: boolean;
  allowed_origins?: string[];
  created_at: string;
}

export interface Key {
  id: number;
  kind: 'server' | 'anon';
  prefix: string;
  created_at: string;
  last_used_at?: string | null;
  revoked: boolean;
}

export interface IndexRow {
  id: number;
  type: string;
  url: string;
  include_paths: string[];
  exclude_paths: string[];
  auto_sync: boolean;
  pages: number;
  last_synced_at: string | null;
  next_sync_at: string | null;
  last_task_id: number | null;
}

export interface TaskSummary {
  id: number;
  kind: string;
  status: string;
  success: boolean | null;
  created_at: string;
  finished_at: string | null;
  indexed: number;
  skipped: number;
}

export interface TaskReport {
  id: number;
  kind: string;
  status: string;
  current_step: string;
  current: number;
  total: number;
  success: boolean | null;
  error: string | null;
  indexed_count: number;
  skipped_count: number;
  counts?: { added: number; updated: number; unchanged: number; removed: number; failed: number };
  note: string | null;
  indexed: string[];
  skipped: Array<{ url: string; code?: string; reason: string }>;
}

export interface SourceRow {
  id: number;
  source: string;
  kind: string;
  index_id: number | null;
  date_added: string;
  updated_at: string;
  chunks: number;
  /** Null when the page has no title other than its source. */
  title: string | null;
  /** The documentation version of its page; null when it has none. */
  version: string | null;
}

export interface Taught {
  id: number;
  question: string;
  answer: string;
  source: string;
  created_at: string;
}

export interface ConversationRow {
  id: number;
  created_at: string;
  ended_at: string | null;
  messages: number;
  first_question: string | null;
  good: number;
  bad: number;
}

export interface ConversationDetail {
  id: number;
  created_at: string;
  ended_at: string | null;
  messages: Array<{
    id: number;
    role: 'Human' | 'AI';
    text: string;
    sources: Array<{ link: string; relevance_score?: number }>;
    rating: number;
    created_at: string;
  }>;
}

/** Where a question was asked (the API's questions_by_channel keys). */
export type Channel = 'api' | 'widget' | 'slack' | 'discord' | 'mcp';

export interface Analytics {
  from: string;
  to: string;
  questions_per_day: Array<{ day: string; questions: number }>;
  /** Questions by the documentation version they asked about (null: none), most asked first. */
  questions_per_version: Array<{ version: string | null; questions: number }>;
  /** By where the conversation was started; an MCP `ask` counts under mcp, a `search` nowhere. */
  questions_by_channel: Record<Channel, number>;
  ratings: {
    answers: number;
    good: number;
    bad: number;
    unrated: number;
    good_share: number;
    bad_share: number;
  };
  durations: {
    ended: number;
    median_seconds: number | null;
    mean_seconds: number | null;
    buckets: Array<{ label: string; count: number }>;
  };
}

export interface Gap {
  question: string;
  count: number;
  no_source: number;
  rated_bad: number;
  examples: string[];
  last_asked: string;
}

/** A chat platform of a project (GET /admin/v1/projects/:id/integrations); secrets as ••••. */
export interface Integration {
  platform: 'slack' | 'discord';
  configured: boolean;
  settings: Record<string, string>;
  endpoints: Record<string, string>;
  created_at: string | null;
  updated_at: string | null;
  last_event_at: string | null;
  last_event: string | null;
}

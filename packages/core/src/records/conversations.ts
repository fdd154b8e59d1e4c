import type { KeyKind, MaybePromise, Sender } from '../store';

/** A conversation as stored; timestamps are stored text (nowTimestamp). */
export interface ConversationRecord {
  id: number;
  projectId: number;
  /** tracking.roleInfo of the chat that carried it. */
  roleInfo: string | null;
  /** The kind of key that started it: an anon key acts only on conversations an anon key started. */
  startedBy: KeyKind;
  createdAt: string;
  endedAt: string | null;
}

/** A message as stored: `sources` and `toolsUsed` are the JSON text of their columns. */
export interface MessageRecord {
  id: number;
  projectId: number;
  conversationId: number;
  sender: Sender;
  text: string;
  /** For an AI message: the Human message it answers. */
  replyTo: number | null;
  sources: string;
  toolsUsed: string;
  /** The documentation version a Human message asked about, when it named one. */
  version: string | null;
  /** 1 good, -1 bad, 0 not rated. */
  ratingValue: number;
  /** False while an answer is still streaming or was cut off. */
  complete: boolean;
  createdAt: string;
}

/** Which conversations a listing keeps: by their answers' ratings. */
export type ConversationRatingFilter = 'good' | 'bad' | 'unrated';

/** A listing's filters; `start`/`end` are inclusive stored-timestamp bounds of the day it started. */
export interface ConversationListFilter {
  start?: string;
  end?: string;
  rating?: ConversationRatingFilter;
  /** Lower-cased words; each must occur (as a substring) in one of the conversation's messages. */
  words: readonly string[];
  limit: number;
  offset: number;
}

/** One line of a conversation listing. */
export interface ConversationSummary {
  id: number;
  createdAt: string;
  endedAt: string | null;
  /** Messages of either sender. */
  messages: number;
  /** The text of its first Human message. */
  firstQuestion: string | null;
  /** Answers rated good and bad. */
  good: number;
  bad: number;
}

/**
 * Conversations and messages as the service and the operator read and change them, beyond what
 * {@link RequestRecords} writes on a chat's path. Ids are random: messages go by the time they
 * were stored, then id.
 */
export interface ConversationRepository {
  /** The conversation with that id in that project; any project's when `projectId` is undefined. */
  findConversation(id: number, projectId?: number): MaybePromise<ConversationRecord | undefined>;
  setRoleInfo(id: number, roleInfo: string): MaybePromise<void>;
  /** Marks the conversation ended at `at`, unless it already ended. */
  endConversation(id: number, at: string): MaybePromise<void>;
  /** The conversation's messages of that project, oldest first. */
  messagesOf(projectId: number, conversationId: number): MaybePromise<MessageRecord[]>;
  /** The conversation's messages of any project (the operator sees all), oldest first. */
  allMessagesOf(conversationId: number): MaybePromise<MessageRecord[]>;
  /** The conversation's last `limit` messages, newest first. */
  recentMessages(projectId: number, conversationId: number, limit: number): MaybePromise<MessageRecord[]>;
  /** The project's AI message with that id. */
  findAnswer(projectId: number, messageId: number): MaybePromise<MessageRecord | undefined>;
  /** Sets the rating of the project's AI message; false when there is no such message. */
  rateAnswer(projectId: number, messageId: number, rating: number): MaybePromise<boolean>;
  /** The project's conversations newest first (then by id, descending), with how many match in all. */
  listConversations(
    projectId: number,
    filter: ConversationListFilter,
  ): MaybePromise<{ total: number; conversations: ConversationSummary[] }>;
}

/** A taught pair with the source that indexes it. */
export interface TaughtAnswerRecord {
  id: number;
  projectId: number;
  question: string;
  answer: string;
  /** `taught:<id>` ({@link taughtSource}). */
  source: string;
  createdAt: string;
  updatedAt: string;
}

/** A taught pair with the first chunk of its source: what a chat's question is compared with. */
export interface TaughtCandidateRecord {
  id: number;
  question: string;
  answer: string;
  source: string;
  sourceId: number;
  chunkId: number;
  documentId: number;
}

/** The source string of taught pair `id`: unique in its project, and never a URL or a label a client sends by accident. */
export function taughtSource(id: number): string {
  return `taught:${id}`;
}

/**
 * The rows of the teaching feature (`taught_answers`). A pair counts (is listed, read, matched)
 * only while its source `taught:<id>` of kind `teach` exists: deleting that source hides it.
 */
export interface TaughtAnswerRepository {
  /** The project's pairs, oldest first. */
  list(projectId: number): MaybePromise<TaughtAnswerRecord[]>;
  get(id: number): MaybePromise<TaughtAnswerRecord | undefined>;
  /** Stores a new pair (not yet indexed, so not yet listed); returns its id. */
  insert(pair: { projectId: number; question: string; answer: string; at: string }): MaybePromise<number>;
  update(id: number, pair: { question: string; answer: string; at: string }): MaybePromise<void>;
  /** Deletes the row, only if it is that project's when `projectId` is given. */
  delete(id: number, projectId?: number): MaybePromise<void>;
  /**
   * The project's pairs with the first chunk of their source. Every chat asks, so it stays cheap:
   * a statement parsed once, and on a server shared with the other chats asking at the same time.
   */
  candidates(projectId: number): MaybePromise<TaughtCandidateRecord[]>;
}

/** A question of a range whose answer may show a documentation gap. */
export interface GapCandidate {
  question: string;
  askedAt: string;
  /** No source stored with the answer, or the not-covered answer. */
  noSource: boolean;
  ratedBad: boolean;
}

/**
 * The dashboard's aggregates over a project's messages and conversations. `start` and `end` are
 * inclusive stored-timestamp bounds (stored times are UTC text, so they compare as strings).
 */
export interface AnalyticsRepository {
  /** Human messages per day (`YYYY-MM-DD`), days without any left out. */
  questionsPerDay(
    projectId: number,
    start: string,
    end: string,
  ): MaybePromise<Array<{ day: string; questions: number }>>;
  /**
   * Human messages per channel: a conversation linked to a platform thread is that platform's
   * (`slack`, `discord`); any other is its starter key's (`widget` for anon, `api` for server).
   */
  questionsByChannel(
    projectId: number,
    start: string,
    end: string,
  ): MaybePromise<Array<{ channel: string; questions: number }>>;
  /** AI messages of the range and how many were rated good and bad. */
  answerRatings(
    projectId: number,
    start: string,
    end: string,
  ): MaybePromise<{ answers: number; good: number; bad: number }>;
  /** Human messages per version asked about (null: none named). */
  questionsPerVersion(
    projectId: number,
    start: string,
    end: string,
  ): MaybePromise<Array<{ version: string | null; questions: number }>>;
  /** Start and end of the conversations of the range that ended. */
  endedConversations(
    projectId: number,
    start: string,
    end: string,
  ): MaybePromise<Array<{ createdAt: string; endedAt: string }>>;
  /**
   * Questions asked in the range (of `version` when given) whose answer had no source, began with
   * `notCovered`, or was rated bad.
   */
  gapCandidates(
    projectId: number,
    range: { start: string; end: string; version?: string; notCovered: string },
  ): MaybePromise<GapCandidate[]>;
}

/** A chat platform the service answers on. */
export type Platform = 'slack' | 'discord';

/** One platform's stored configuration: `settings` is the JSON object as stored (secrets sealed). */
export interface IntegrationRecord {
  projectId: number;
  platform: Platform;
  settings: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  lastEventAt: string | null;
  lastEvent: string | null;
}

/**
 * The chat integrations' records: configurations, handled events (deduplication), and which
 * conversation a platform thread is. Timestamps are what the caller gives (ISO 8601 UTC).
 */
export interface IntegrationRepository {
  get(projectId: number, platform: Platform): MaybePromise<IntegrationRecord | undefined>;
  /** The project's configurations by platform. */
  list(projectId: number): MaybePromise<IntegrationRecord[]>;
  /** Creates or replaces the settings; the creation time and the last event seen are kept. */
  put(
    projectId: number,
    platform: Platform,
    settings: Record<string, string>,
    at: string,
  ): MaybePromise<void>;
  /** Whether there was one to delete. */
  delete(projectId: number, platform: Platform): MaybePromise<boolean>;
  /** Notes the time and kind of the last verified request. */
  touch(projectId: number, platform: Platform, event: string, at: string): MaybePromise<void>;
  /**
   * Records an event as handled at `at`; false when it already was. The insert is the check, so
   * two processes receiving the same delivery agree on which one answers. When it is new, events
   * handled before `forgetBefore` are deleted.
   */
  firstDelivery(
    projectId: number,
    platform: Platform,
    eventKey: string,
    at: string,
    forgetBefore: string,
  ): MaybePromise<boolean>;
  conversationOf(projectId: number, platform: Platform, threadKey: string): MaybePromise<number | undefined>;
  /** Links the thread to the conversation, replacing an earlier link. */
  linkThread(
    projectId: number,
    platform: Platform,
    threadKey: string,
    conversationId: number,
    at: string,
  ): MaybePromise<void>;
}

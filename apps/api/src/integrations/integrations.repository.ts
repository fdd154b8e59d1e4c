import { Inject, Injectable } from '@nestjs/common';
import type { IntegrationRecord, IntegrationRepository, Platform } from '@kbqa/core';
import { INTEGRATIONS } from '../database/conversations.providers';

export type { Platform };

/** Handled events are kept this long: Slack retries for about an hour, Discord never resends. */
const EVENT_MEMORY_MS = 24 * 3_600_000;

/**
 * The integrations' records (configurations, handled events for deduplication, which
 * conversation a platform thread is) with the service's policy: timestamps are ISO 8601 UTC
 * taken now, event kinds and keys are cut to their column's useful length, handled events are
 * forgotten after EVENT_MEMORY_MS.
 */
@Injectable()
export class IntegrationsRepository {
  constructor(@Inject(INTEGRATIONS) private readonly records: IntegrationRepository) {}

  async get(projectId: number, platform: Platform): Promise<IntegrationRecord | undefined> {
    return this.records.get(projectId, platform);
  }

  async list(projectId: number): Promise<IntegrationRecord[]> {
    return this.records.list(projectId);
  }

  /** Creates or replaces the configuration; the last event seen is kept across a change. */
  async put(projectId: number, platform: Platform, settings: Record<string, string>): Promise<void> {
    await this.records.put(projectId, platform, settings, new Date().toISOString());
  }

  /** Whether there was one to delete. */
  async delete(projectId: number, platform: Platform): Promise<boolean> {
    return this.records.delete(projectId, platform);
  }

  /** Notes the time and kind of the last verified request, for the dashboard. */
  async touch(projectId: number, platform: Platform, event: string): Promise<void> {
    await this.records.touch(projectId, platform, event.slice(0, 100), new Date().toISOString());
  }

  /**
   * Records an event as handled; false when it already was (a retry or a replay). The insert is
   * the check, so two processes receiving the same delivery at once agree on which one answers.
   */
  async firstDelivery(projectId: number, platform: Platform, eventKey: string): Promise<boolean> {
    const now = Date.now();
    return this.records.firstDelivery(
      projectId,
      platform,
      eventKey.slice(0, 300),
      new Date(now).toISOString(),
      new Date(now - EVENT_MEMORY_MS).toISOString(),
    );
  }

  async conversationOf(
    projectId: number,
    platform: Platform,
    threadKey: string,
  ): Promise<number | undefined> {
    return this.records.conversationOf(projectId, platform, threadKey);
  }

  async linkThread(
    projectId: number,
    platform: Platform,
    threadKey: string,
    conversationId: number,
  ): Promise<void> {
    await this.records.linkThread(projectId, platform, threadKey, conversationId, new Date().toISOString());
  }
}

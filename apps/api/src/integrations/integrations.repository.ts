import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../database/database.module';
import { runSql } from '../database/sql';

export type Platform = 'slack' | 'discord';

/** One platform's stored configuration: `settings` is the JSON object as stored (secrets sealed). */
export interface IntegrationRow {
  projectId: number;
  platform: Platform;
  settings: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  lastEventAt: string | null;
  lastEvent: string | null;
}

/** Handled events are kept this long: Slack retries for about an hour, Discord never resends. */
const EVENT_MEMORY_MS = 24 * 3_600_000;

/**
 * The integrations' records, in plain SQL that both stores run (`?` placeholders, ON CONFLICT):
 * configurations, handled events (deduplication), and which conversation a platform thread is.
 * Timestamps are ISO 8601 UTC.
 */
@Injectable()
export class IntegrationsRepository {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async get(projectId: number, platform: Platform): Promise<IntegrationRow | undefined> {
    const rows = await runSql<RawRow[]>(
      this.dataSource,
      `SELECT project_id, platform, settings, created_at, updated_at, last_event_at, last_event
       FROM chat_integrations WHERE project_id = ? AND platform = ?`,
      [projectId, platform],
    );
    return rows[0] && toRow(rows[0]);
  }

  async list(projectId: number): Promise<IntegrationRow[]> {
    const rows = await runSql<RawRow[]>(
      this.dataSource,
      `SELECT project_id, platform, settings, created_at, updated_at, last_event_at, last_event
       FROM chat_integrations WHERE project_id = ? ORDER BY platform`,
      [projectId],
    );
    return rows.map(toRow);
  }

  /** Creates or replaces the configuration; the last event seen is kept across a change. */
  async put(projectId: number, platform: Platform, settings: Record<string, string>): Promise<void> {
    const now = new Date().toISOString();
    await runSql(
      this.dataSource,
      `INSERT INTO chat_integrations (project_id, platform, settings, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project_id, platform) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
      [projectId, platform, JSON.stringify(settings), now, now],
    );
  }

  /** Whether there was one to delete. */
  async delete(projectId: number, platform: Platform): Promise<boolean> {
    const found = await this.get(projectId, platform);
    if (!found) return false;
    await runSql(this.dataSource, 'DELETE FROM chat_integrations WHERE project_id = ? AND platform = ?', [
      projectId,
      platform,
    ]);
    return true;
  }

  /** Notes the time and kind of the last verified request, for the dashboard. */
  async touch(projectId: number, platform: Platform, event: string): Promise<void> {
    await runSql(
      this.dataSource,
      'UPDATE chat_integrations SET last_event_at = ?, last_event = ? WHERE project_id = ? AND platform = ?',
      [new Date().toISOString(), event.slice(0, 100), projectId, platform],
    );
  }

  /**
   * Records an event as handled; false when it already was (a retry or a replay). The insert is
   * the check, so two processes receiving the same delivery at once agree on which one answers.
   */
  async firstDelivery(projectId: number, platform: Platform, eventKey: string): Promise<boolean> {
    const now = Date.now();
    const inserted = await runSql<unknown[]>(
      this.dataSource,
      `INSERT INTO integration_events (project_id, platform, event_key, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_id, platform, event_key) DO NOTHING RETURNING event_key`,
      [projectId, platform, eventKey.slice(0, 300), new Date(now).toISOString()],
    );
    const first = rowCount(inserted) > 0;
    // Pruned as events come, an indexed range delete: no timer to run or stop.
    if (first) {
      await runSql(this.dataSource, 'DELETE FROM integration_events WHERE created_at < ?', [
        new Date(now - EVENT_MEMORY_MS).toISOString(),
      ]);
    }
    return first;
  }

  async conversationOf(
    projectId: number,
    platform: Platform,
    threadKey: string,
  ): Promise<number | undefined> {
    const rows = await runSql<Array<{ conversation_id: number | string }>>(
      this.dataSource,
      'SELECT conversation_id FROM integration_threads WHERE project_id = ? AND platform = ? AND thread_key = ?',
      [projectId, platform, threadKey],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].conversation_id);
  }

  async linkThread(
    projectId: number,
    platform: Platform,
    threadKey: string,
    conversationId: number,
  ): Promise<void> {
    await runSql(
      this.dataSource,
      `INSERT INTO integration_threads (project_id, platform, thread_key, conversation_id, created_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project_id, platform, thread_key) DO UPDATE SET conversation_id = excluded.conversation_id`,
      [projectId, platform, threadKey, conversationId, new Date().toISOString()],
    );
  }
}

interface RawRow {
  project_id: number;
  platform: Platform;
  settings: string;
  created_at: string;
  updated_at: string;
  last_event_at: string | null;
  last_event: string | null;
}

function toRow(r: RawRow): IntegrationRow {
  return {
    projectId: r.project_id,
    platform: r.platform,
    settings: JSON.parse(r.settings) as Record<string, string>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastEventAt: r.last_event_at,
    lastEvent: r.last_event,
  };
}

/** Rows a RETURNING statement gave: an array on SQLite, `[rows, count]` from TypeORM's pg driver. */
function rowCount(result: unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0].length;
  return result.length;
}

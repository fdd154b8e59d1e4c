import { indexUrl, nowTimestamp } from '@kbqa/core';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Source kinds that `ingestData` brings in (raw documents and taught answers have no index). */
const LOADER_KINDS = ['website-crawler', 'docusaurus', 'github', 'youtube', 'url', 'sitemap'];

/**
 * Indexes: one row per `ingestData` root of a project (type + URL + options), the schedule of
 * its auto sync, and, on each source, the index it belongs to with what a sync compares against
 * (HTTP validators, lastmod, blob id, links, content hash).
 *
 * Existing data becomes indexes: every task that still holds its request (its payload) names
 * one; sources of loader kinds that no such task covers are grouped into an index per site (the
 * origin's root), per repository, or per page or video.
 */
export class Indexes1733600000000 implements MigrationInterface {
  name = 'Indexes1733600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE indexes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      url TEXT NOT NULL,
      options TEXT NOT NULL DEFAULT '{}',
      auto_sync INTEGER NOT NULL DEFAULT 0,
      next_sync_at TEXT,
      last_synced_at TEXT,
      last_task_id INTEGER,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (project_id, type, url))`);
    await q.query('CREATE INDEX indexes_due ON indexes(auto_sync, next_sync_at)');
    await q.query('ALTER TABLE sources ADD COLUMN index_id INTEGER');
    await q.query('ALTER TABLE sources ADD COLUMN version TEXT');
    await q.query('ALTER TABLE sources ADD COLUMN content_hash TEXT');
    await q.query('CREATE INDEX sources_index ON sources(index_id)');
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN index_id INTEGER');
    await q.query('ALTER TABLE ingestion_tasks ADD COLUMN counts TEXT');
    await this.migrateData(q);
  }

  private async migrateData(q: QueryRunner): Promise<void> {
    const now = nowTimestamp();
    const ensure = async (projectId: number, type: string, url: string, options: string): Promise<number> => {
      await q.query(
        `INSERT OR IGNORE INTO indexes (project_id, type, url, options, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [projectId, type, url, options, now, now],
      );
      const rows = (await q.query('SELECT id FROM indexes WHERE project_id = ? AND type = ? AND url = ?', [
        projectId,
        type,
        url,
      ])) as Array<{ id: number }>;
      return rows[0]!.id;
    };
    const tasks = (await q.query(
      `SELECT id, project_id, kind, payload, finished_at FROM ingestion_tasks
       WHERE kind <> 'documents' ORDER BY created_at`,
    )) as Array<{
      id: number;
      project_id: number;
      kind: string;
      payload: string;
      finished_at: string | null;
    }>;
    for (const task of tasks) {
      let request: { url?: unknown; includePaths?: unknown; excludePaths?: unknown } = {};
      try {
        request = JSON.parse(task.payload) as typeof request;
      } catch {
        continue;
      }
      if (typeof request.url !== 'string') continue;
      const options = JSON.stringify({
        includePaths: request.includePaths,
        excludePaths: request.excludePaths,
      });
      const indexId = await ensure(task.project_id, task.kind, indexUrl(request.url), options);
      await q.query('UPDATE ingestion_tasks SET index_id = ? WHERE id = ?', [indexId, task.id]);
      await q.query(
        'UPDATE indexes SET last_task_id = ?, last_synced_at = coalesce(?, last_synced_at) WHERE id = ?',
        [task.id, task.finished_at, indexId],
      );
    }
    // Sources whose task no longer holds its request: one index per site, repository or page.
    const sources = (await q.query(
      `SELECT s.id, s.project_id, s.kind, s.source,
         (SELECT link FROM documents d WHERE d.source_id = s.id LIMIT 1) AS link
       FROM sources s WHERE s.index_id IS NULL AND s.kind IN (${LOADER_KINDS.map(() => '?').join(', ')})`,
      LOADER_KINDS,
    )) as Array<{ id: number; project_id: number; kind: string; source: string; link: string | null }>;
    for (const s of sources) {
      // An index whose URL the source is under takes it (the longest such URL); else a new one.
      const candidates = (await q.query('SELECT id, url FROM indexes WHERE project_id = ? AND type = ?', [
        s.project_id,
        s.kind,
      ])) as Array<{ id: number; url: string }>;
      const owner = candidates
        .filter((c) => s.source.startsWith(c.url.replace(/\/$/, '')))
        .sort((a, b) => b.url.length - a.url.length)[0];
      const root = legacyRoot(s.kind, s.source);
      if (!owner && !root) continue;
      const indexId = owner?.id ?? (await ensure(s.project_id, s.kind, root!, '{}'));
      await q.query('UPDATE sources SET index_id = ? WHERE id = ?', [indexId, s.id]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN counts');
    await q.query('ALTER TABLE ingestion_tasks DROP COLUMN index_id');
    await q.query('DROP INDEX sources_index');
    await q.query('ALTER TABLE sources DROP COLUMN content_hash');
    await q.query('ALTER TABLE sources DROP COLUMN version');
    await q.query('ALTER TABLE sources DROP COLUMN index_id');
    await q.query('DROP TABLE indexes');
  }
}

/** The root of an index a source stored before indexes existed most likely came from. */
function legacyRoot(kind: string, source: string): string | undefined {
  let u: URL;
  try {
    u = new URL(source);
  } catch {
    return undefined;
  }
  if (kind === 'url' || kind === 'youtube') return indexUrl(source);
  if (kind === 'github') {
    const [owner, repo] = u.pathname.split('/').filter(Boolean);
    return owner && repo ? `${u.origin}/${owner}/${repo}` : undefined;
  }
  if (kind === 'sitemap') return `${u.origin}/sitemap.xml`;
  return `${u.origin}/`;
}

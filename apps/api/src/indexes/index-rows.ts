import { indexUrl, type LoadRequest, type SourceType } from '@kbqa/core';
import { IndexEntity, nowTimestamp } from '@kbqa/store-sqlite';
import type { Repository } from 'typeorm';

/** The load options an index keeps (what `ingestData` was called with besides type and URL). */
export interface IndexOptions {
  includePaths?: string[];
  excludePaths?: string[];
  versionPattern?: string;
  defaultVersion?: string;
}

/**
 * The index of `type` + URL in a project, created on its first `ingestData` and given the
 * options of the latest call (a re-sync with other include paths loads those from then on).
 */
export async function upsertIndex(
  indexes: Repository<IndexEntity>,
  projectId: number,
  type: SourceType,
  request: LoadRequest,
): Promise<IndexEntity> {
  const url = indexUrl(request.url);
  const options: IndexOptions = {};
  if (request.includePaths?.length) options.includePaths = request.includePaths;
  if (request.excludePaths?.length) options.excludePaths = request.excludePaths;
  if (request.versionPattern) options.versionPattern = request.versionPattern;
  if (request.defaultVersion) options.defaultVersion = request.defaultVersion;
  const now = nowTimestamp();
  await indexes
    .createQueryBuilder()
    .insert()
    .values({
      projectId,
      type,
      url,
      options: JSON.stringify(options),
      autoSync: false,
      nextSyncAt: null,
      lastSyncedAt: null,
      lastTaskId: null,
      createdAt: now,
      updatedAt: now,
    })
    .orUpdate(['options', 'updated_at'], ['project_id', 'type', 'url'])
    .execute();
  return indexes.findOneByOrFail({ projectId, type, url });
}

/** The load request a sync of the index makes. */
export function indexRequest(index: IndexEntity): LoadRequest {
  const options = JSON.parse(index.options) as IndexOptions;
  return { url: index.url, ...options };
}

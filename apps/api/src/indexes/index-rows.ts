import {
  type IndexOptions,
  type IndexRecord,
  type IndexRepository,
  indexUrl,
  type LoadRequest,
  type SourceType,
  nowTimestamp,
} from '@kbqa/core';

/**
 * The index of `type` + URL in a project, created on its first `ingestData` and given the
 * options of the latest call (a re-sync with other include paths loads those from then on).
 */
export function upsertIndex(
  indexes: IndexRepository,
  projectId: number,
  type: SourceType,
  request: LoadRequest,
): Promise<IndexRecord> {
  const options: IndexOptions = {};
  if (request.includePaths?.length) options.includePaths = request.includePaths;
  if (request.excludePaths?.length) options.excludePaths = request.excludePaths;
  if (request.versionPattern) options.versionPattern = request.versionPattern;
  if (request.defaultVersion) options.defaultVersion = request.defaultVersion;
  return indexes.upsert(projectId, type, indexUrl(request.url), options, nowTimestamp());
}

/** The load request a sync of the index makes. */
export function indexRequest(index: IndexRecord): LoadRequest {
  return { url: index.url, ...index.options };
}

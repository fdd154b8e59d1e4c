import type { SearchHit } from '@kbqa/core';

/**
 * The stored fields of a chunk a search hit carries; select them with {@link HIT_COLUMNS}. The
 * heading path is JSON text in SQLite, an array (jsonb) in PostgreSQL.
 */
export interface HitRow<HeadingPath extends string | readonly string[] = string> {
  id: number;
  document_id: number;
  source_id: number;
  source: string;
  content: string;
  title: string;
  heading_path: HeadingPath;
  link: string;
}

/** SELECT list for a {@link HitRow}, over `chunks c JOIN sources s` (both stores name them so). */
export const HIT_COLUMNS =
  'c.id, c.document_id, c.source_id, s.source, c.content, c.title, c.heading_path, c.link';

/** A row's heading path: parsed from JSON text, or copied (rows may be held in a cache and shared). */
export function headingPathOf(row: Pick<HitRow<string | readonly string[]>, 'heading_path'>): string[] {
  const path = row.heading_path;
  return typeof path === 'string' ? (JSON.parse(path) as string[]) : [...path];
}

/** A search hit from its stored row and its relevance. */
export function toHit(
  row: HitRow<string | readonly string[]>,
  score: number,
  headingPath = headingPathOf(row),
): SearchHit {
  return {
    chunkId: row.id,
    documentId: row.document_id,
    sourceId: row.source_id,
    source: row.source,
    content: row.content,
    title: row.title,
    headingPath,
    link: row.link,
    score,
  };
}

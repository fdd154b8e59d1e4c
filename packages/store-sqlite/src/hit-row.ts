import type { SearchHit } from '@kbqa/core';

/** The stored fields of a chunk a search hit carries; select them with {@link HIT_COLUMNS}. */
export interface HitRow {
  id: number;
  document_id: number;
  source_id: number;
  source: string;
  content: string;
  title: string;
  heading_path: string;
  link: string;
}

/** SELECT list for a {@link HitRow}, over `chunks c JOIN sources s`. */
export const HIT_COLUMNS =
  'c.id, c.document_id, c.source_id, s.source, c.content, c.title, c.heading_path, c.link';

/** A search hit from its stored row and its relevance. */
export function toHit(
  row: HitRow,
  score: number,
  headingPath = JSON.parse(row.heading_path) as string[],
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

import type BetterSqlite3 from 'better-sqlite3';
import { splitProseAndCode } from '@kbqa/ranking';

// The migrations that rebuilt the FTS table split bodies with it from here.
export { splitProseAndCode };

/** Columns of `chunks_fts`, in order; `FTS_WEIGHTS` in lexical-ranker.ts follows it. */
export const FTS_COLUMNS = ['project', 'title', 'headings', 'content', 'code'] as const;

/** The columns query terms are matched in; `project` only scopes a query to one project. */
const TEXT_COLUMNS = `{${FTS_COLUMNS.filter((c) => c !== 'project').join(' ')}}`;

/**
 * The token of a project in the `project` column. Scoping inside FTS5 (a posting-list
 * intersection) instead of joining every match to `chunks` to check its project made lexical
 * search markedly faster.
 */
export function projectToken(projectId: number): string {
  return `p${projectId}`;
}

/** Could name a project token: `p` then a digit anywhere (`p1`, `_p2`, `http2`), caught widely. */
const MAY_NAME_PROJECT = /p\d/i;

/**
 * A MATCH expression over the text columns only (a query word like `p1` never hits `project`).
 * The column filter is written only when a term could be a project token: it makes FTS5 read
 * every position list of every matching row to drop `project` hits, which no other term can
 * have (about 15% of a common-word query on 60k chunks, for the same rows and the same BM25).
 */
export function textMatch(match: string): string {
  return MAY_NAME_PROJECT.test(match) ? `${TEXT_COLUMNS} : (${match})` : `(${match})`;
}

/** A MATCH expression limited to one project's chunks. */
export function projectMatch(projectId: number, match: string): string {
  return `project : "${projectToken(projectId)}" AND ${textMatch(match)}`;
}

/** Inserts the FTS row of one chunk from its stored fields (title, heading path, markdown). */
export interface FtsInserter {
  run(rowid: number, projectId: number, title: string, headings: string, content: string): void;
}

export function ftsInserter(db: BetterSqlite3.Database): FtsInserter {
  const insert = db.prepare(
    'INSERT INTO chunks_fts (rowid, project, title, headings, content, code) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return {
    run(rowid, projectId, title, headings, content) {
      const body = splitProseAndCode(content);
      insert.run(rowid, projectToken(projectId), title, headings, body.prose, body.code);
    },
  };
}

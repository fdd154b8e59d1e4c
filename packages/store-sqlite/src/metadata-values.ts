import type BetterSqlite3 from 'better-sqlite3';

/**
 * Reads of document metadata fields outside search: the distinct values a project's documents
 * hold (its documentation versions) and the value of a few documents (the version of each cited
 * passage). JSON booleans are left out, as the `where` filter leaves them out.
 */
export class MetadataValues {
  private readonly distinct: BetterSqlite3.Statement<
    [string, string, number, number],
    { v: string | number }
  >;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.distinct = db.prepare(
      `SELECT DISTINCT v FROM (
         SELECT CASE WHEN json_type(metadata, ?) IN ('text', 'integer', 'real') THEN json_extract(metadata, ?) END AS v
         FROM documents WHERE project_id = ?
       ) WHERE v IS NOT NULL LIMIT ?`,
    );
  }

  values(projectId: number, field: string, limit: number): Array<string | number> {
    const path = jsonPath(field);
    return this.distinct.all(path, path, projectId, limit).map((r) => r.v);
  }

  ofDocuments(projectId: number, documentIds: number[], field: string): Map<number, string | number> {
    const out = new Map<number, string | number>();
    if (documentIds.length === 0) return out;
    const path = jsonPath(field);
    const rows = this.db
      .prepare<unknown[], { id: number; v: string | number | null }>(
        `SELECT id, CASE WHEN json_type(metadata, ?) IN ('text', 'integer', 'real') THEN json_extract(metadata, ?) END AS v
         FROM documents WHERE project_id = ? AND id IN (${documentIds.map(() => '?').join(', ')})`,
      )
      .all(path, path, projectId, ...documentIds);
    for (const r of rows) if (r.v !== null) out.set(r.id, r.v);
    return out;
  }
}

function jsonPath(field: string): string {
  return `$."${field.replace(/"/g, '')}"`;
}

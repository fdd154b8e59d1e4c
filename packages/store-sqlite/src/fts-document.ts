import type BetterSqlite3 from 'better-sqlite3';

/** Columns of `chunks_fts`, in order; `FTS_WEIGHTS` in chunk-index.ts follows it. */
export const FTS_COLUMNS = ['title', 'headings', 'content', 'code'] as const;

/** The body of a chunk as indexed: prose and code apart, so each column gets its own weight. */
export interface FtsBody {
  prose: string;
  code: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits markdown into prose and fenced code. Code in documentation is long and repetitive
 * (config files, comments, boilerplate), so at full weight a code sample that mentions a word
 * many times outranks the paragraph that explains it; indexed in its own column it still
 * matches, with less weight. An unclosed fence runs to the end, as the chunker reads it.
 */
export function splitProseAndCode(markdown: string): FtsBody {
  const prose: string[] = [];
  const code: string[] = [];
  let open: string | undefined;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (open !== undefined) {
      code.push(line);
      if (fence && fence[0] === open[0] && fence.length >= open.length) open = undefined;
    } else if (fence) {
      open = fence;
      code.push(line);
    } else {
      prose.push(line);
    }
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}

/** Inserts the FTS row of one chunk from its stored fields (title, heading path, markdown). */
export interface FtsInserter {
  run(rowid: number, title: string, headings: string, content: string): void;
}

export function ftsInserter(db: BetterSqlite3.Database): FtsInserter {
  const insert = db.prepare(
    'INSERT INTO chunks_fts (rowid, title, headings, content, code) VALUES (?, ?, ?, ?, ?)',
  );
  return {
    run(rowid, title, headings, content) {
      const body = splitProseAndCode(content);
      insert.run(rowid, title, headings, body.prose, body.code);
    },
  };
}

import Database from 'better-sqlite3';
import { porterStem } from '@kbqa/ranking';

describe(porterStem.name, () => {
  it('agrees with the FTS5 porter tokenizer', () => {
    const words = (
      'abilities abolish actually agreement allowed applying authentication autocompletion believable ' +
      'breaking callbacks conditional decorators decorating encapsulation encapsulated generously ' +
      'hopefulness initialization listening loggers multiply nodejs operational parsing proceeding ' +
      'replied schemas sensibility serialization serverless successfully triggered validity yielding'
    ).split(' ');
    const db = new Database(':memory:');
    try {
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter ascii');
               CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');`);
      const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
      words.forEach((w, i) => insert.run(i + 1, w));
      const stems = (db.prepare('SELECT term FROM v').all() as { term: string }[]).map((r) => r.term);
      expect(new Set(words.map(porterStem))).toEqual(new Set(stems));
    } finally {
      db.close();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex, type ChunkDraft, type SearchQuery } from '@kbqa/core';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { openDataSource, rawDatabase } from './data-source';
import { scoreOf, TermScoreCache, termScores } from './term-scores';

describe(scoreOf.name, () => {
  it('sums one chunk over the lists it is in, undefined when in none', () => {
    const a = termScores([
      [4, 0.1],
      [2, 0.2],
    ]);
    const b = termScores([
      [4, 0.7],
      [9, 1],
    ]);
    expect(scoreOf([a, b], 4)).toBe(0.1 + 0.7);
    expect(scoreOf([a, b], 9)).toBe(1);
    expect(scoreOf([a, b], 5)).toBeUndefined();
  });
});

describe(TermScoreCache.name, () => {
  const list = (n: number) => termScores(Array.from({ length: n }, (_, i) => [i, 1]));

  it('drops the least recently used lists past its bound, and everything when the generation moves', () => {
    const cache = new TermScoreCache(10);
    let loads = 0;
    const get = (key: string, n: number) =>
      cache.get(key, () => {
        loads += 1;
        return list(n);
      });
    cache.sync(1);
    get('a', 4);
    get('b', 4);
    get('a', 4); // a is now the most recently used
    get('c', 4); // evicts b
    expect(loads).toBe(3);
    get('a', 4);
    expect(loads).toBe(3);
    get('b', 4);
    expect(loads).toBe(4);
    expect(cache.size).toBeLessThanOrEqual(10);
    get('huge', 11); // larger than the bound: loaded, not kept
    get('huge', 11);
    expect(loads).toBe(6);
    cache.sync(1);
    get('a', 4);
    expect(loads).toBe(6);
    cache.sync(2);
    get('a', 4);
    expect(loads).toBe(7);
  });
});

describe('term score lists shared between caches', () => {
  it('lets another cache at the same generation adopt a loaded list, in shared memory, and no other', () => {
    const other = new TermScoreCache();
    const told: Array<[string, number]> = [];
    const cache = new TermScoreCache(100, (key, generation, list) => {
      told.push([key, generation]);
      other.adopt(key, generation, list);
    });
    const list = termScores([
      [3, 0.5],
      [1, 0.25],
    ]);
    expect(list.ids.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([...list.ids]).toEqual([1, 3]);
    other.sync(4);
    cache.sync(4);
    cache.get('a', () => list);
    expect(told).toEqual([['a', 4]]);
    const adopted = other.get('a', () => {
      throw new Error('loaded again');
    });
    expect(adopted.scores).toBe(list.scores);
    // A list of an older generation is not taken.
    other.sync(5);
    cache.get('b', () => list);
    expect(told).toEqual([
      ['a', 4],
      ['b', 4],
    ]);
    let loads = 0;
    other.get('b', () => (loads++, list));
    expect(loads).toBe(1);
    // One of a newer generation replaces what the cache held, and is kept.
    other.adopt('c', 6, list);
    other.sync(6);
    other.get('c', () => (loads++, list));
    other.get('b', () => (loads++, list));
    expect(loads).toBe(2);
    // A cache that never searched takes lists too.
    const fresh = new TermScoreCache();
    fresh.adopt('d', 7, list);
    fresh.sync(7);
    fresh.get('d', () => (loads++, list));
    expect(loads).toBe(2);
  });
});

/** A small documentation-like corpus over a narrow vocabulary, so common words repeat. */
function corpus(seed: number, chunks: number): ChunkDraft[][] {
  const words = (
    'plugin hook route reply request server schema decorate register handler logger error ' +
    'timeout option listen port body parser content type validation serialize encapsulation ' +
    'context instance lifecycle async await promise stream header cookie cors origin'
  ).split(' ');
  let s = seed;
  const pick = () => words[(s = (s * 16807) % 2147483647) % words.length]!;
  const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
  const docs: ChunkDraft[][] = [];
  for (let d = 0; d * 5 < chunks; d++) {
    docs.push(
      Array.from({ length: 5 }, (_, i) => {
        const content = `${sentence(12)}.\n\n\`\`\`js\n${sentence(6)}\n\`\`\`\n${sentence(20)}.`;
        return {
          ordinal: i,
          content,
          headingPath: [sentence(2)],
          title: sentence(2),
          link: `https://docs.example/${d}#${i}`,
          kind: 'content',
          contentHash: sha256Hex(content),
        };
      }),
    );
  }
  return docs;
}

/** Writes one page of one chunk (`title` also its heading when `heading` is set) as source `source`. */
function writePage(
  index: SqliteChunkIndex,
  projectId: number,
  page: { source: string; title: string; link: string; content: string; heading?: boolean },
): void {
  const { source, title, link, content } = page;
  index.replaceSource({
    projectId,
    source,
    kind: 'documents',
    documents: [
      {
        document: { source, content },
        chunks: [
          {
            ordinal: 0,
            content,
            headingPath: page.heading ? [title] : [],
            title,
            link,
            kind: 'content',
            contentHash: sha256Hex(content),
          },
        ],
      },
    ],
  });
}

describe('lexical search from kept term scores', () => {
  let dir: string;
  let ds: DataSource;
  const projects: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kbqa-term-scores-'));
    ds = await openDataSource({ file: path.join(dir, 'kbqa.sqlite') });
    const db = rawDatabase(ds);
    const writer = new SqliteChunkIndex(db, undefined, { termCacheEntries: 0 });
    for (const [p, seed] of [
      [0, 11],
      [1, 29],
    ] as const) {
      projects.push(
        Number(
          db.prepare("INSERT INTO projects (name, created_at) VALUES (?, 'now')").run(`p${p}`)
            .lastInsertRowid,
        ),
      );
      corpus(seed, 300).forEach((chunks, d) =>
        writer.replaceSource({
          projectId: projects[p]!,
          source: `page-${d}`,
          kind: 'documents',
          documents: [{ document: { source: `page-${d}`, content: 'x' }, chunks }],
        }),
      );
    }
  });
  afterAll(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const queries: Array<Pick<SearchQuery, 'text' | 'context'>> = [
    { text: 'How do I register a plugin?' },
    { text: 'reply header cookie' },
    { text: 'what is the request lifecycle of a route handler' },
    { text: 'schema validation error' },
    { text: 'and the timeout?', context: 'server listen port' },
    { text: 'how do I restrict it to one origin', context: 'enable cors plugin' },
    { text: 'stream', context: 'reply serialize' },
    { text: 'async await promise hook', context: 'encapsulation context' },
    { text: 'reply.send in a handler' },
  ];

  it('ranks and scores exactly as FTS5 does, in both projects, with and without context', async () => {
    const db = rawDatabase(ds);
    const kept = new SqliteChunkIndex(db);
    const fts = new SqliteChunkIndex(db, undefined, { termCacheEntries: 0 });
    let compared = 0;
    for (const projectId of projects) {
      for (const q of queries) {
        for (const topK of [3, 10]) {
          const query: SearchQuery = { projectId, ...q, topK, mode: 'lexical' };
          const expected = await fts.search(query);
          expect(expected.length).toBeGreaterThan(0);
          // Twice: from lists loaded by this query, then from the cache.
          expect(await kept.search(query)).toEqual(expected);
          expect(await kept.search(query)).toEqual(expected);
          const ids = expected.map((h) => h.chunkId).concat([1, 2, 3]);
          expect(kept.lexicalScores(query, ids)).toEqual(fts.lexicalScores(query, ids));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(projects.length * queries.length * 2);
  });

  it('sees chunks another connection writes: the cache is emptied when the chunk table changes', async () => {
    const kept = new SqliteChunkIndex(rawDatabase(ds));
    const query: SearchQuery = { projectId: projects[0]!, text: 'cookie header', topK: 5, mode: 'lexical' };
    const before = await kept.search(query);
    const other = await openDataSource({ file: path.join(dir, 'kbqa.sqlite') });
    try {
      const writer = new SqliteChunkIndex(rawDatabase(other), undefined, { termCacheEntries: 0 });
      const content = 'cookie header cookie header: the cookie header, set on the header of a cookie.';
      writePage(writer, projects[0]!, {
        source: 'cookies',
        title: 'Cookie header',
        link: 'https://docs.example/cookies',
        content,
        heading: true,
      });
      const after = await kept.search(query);
      expect(after[0]!.source).toBe('cookies');
      expect(after).not.toEqual(before);
      expect(after).toEqual(await writer.search(query));
      // A deletion too: idf and average length change for every term.
      writer.deleteSource(projects[0]!, 'cookies');
      const deleted = await kept.search(query);
      expect(deleted.map((h) => h.chunkId)).toEqual(before.map((h) => h.chunkId));
      expect(deleted).toEqual(await writer.search(query));
    } finally {
      await other.destroy();
    }
  });

  it('ranks with FTS5 while writes go on, and reloads the lists once writes pause', async () => {
    const db = rawDatabase(ds);
    const loads: string[] = [];
    const kept = new SqliteChunkIndex(db, undefined, { onTermList: (key) => loads.push(key) });
    const fts = new SqliteChunkIndex(db, undefined, { termCacheEntries: 0 });
    const query: SearchQuery = {
      projectId: projects[1]!,
      text: 'reply header cookie',
      topK: 5,
      mode: 'lexical',
    };
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      expect(await kept.search(query)).toEqual(await fts.search(query));
      expect(loads.length).toBeGreaterThan(0);
      const write = (n: number) => {
        const content = `cookie ${n}: a reply header set again`;
        writePage(fts, projects[1]!, {
          source: `write-${n}`,
          title: 'Writes',
          link: `https://docs.example/w${n}`,
          content,
        });
      };
      // Writes every half second: every search meets a new generation and FTS5 ranks it.
      loads.length = 0;
      for (let n = 0; n < 4; n++) {
        write(n);
        now += 500;
        expect(await kept.search(query)).toEqual(await fts.search(query));
      }
      expect(loads).toEqual([]);
      // Quiet for the pause: the lists are loaded again and serve the same ranking.
      now += 2_000;
      expect(await kept.search(query)).toEqual(await fts.search(query));
      expect(loads.length).toBeGreaterThan(0);
      for (let n = 0; n < 4; n++) fts.deleteSource(projects[1]!, `write-${n}`);
    } finally {
      clock.mockRestore();
    }
  });

  it('warms, once writes pause, the lists a write dropped, most recently used first', async () => {
    const db = rawDatabase(ds);
    const loads: string[] = [];
    const kept = new SqliteChunkIndex(db, undefined, { onTermList: (key) => loads.push(key) });
    const fts = new SqliteChunkIndex(db, undefined, { termCacheEntries: 0 });
    const first: SearchQuery = {
      projectId: projects[0]!,
      text: 'schema validation',
      topK: 5,
      mode: 'lexical',
    };
    const second: SearchQuery = { projectId: projects[0]!, text: 'cookie stream', topK: 5, mode: 'lexical' };
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      await kept.search(first);
      await kept.search(second);
      const used = [...loads];
      expect(used.length).toBeGreaterThanOrEqual(4);
      const content = 'a stream of cookies, validated';
      writePage(fts, projects[0]!, {
        source: 'warm',
        title: 'Warm',
        link: 'https://docs.example/warm',
        content,
      });
      loads.length = 0;
      // Right after the write: nothing reloaded yet.
      expect(kept.warmTermLists(1_000)).toBe(false);
      expect(loads).toEqual([]);
      now += 2_000;
      // A budget of 0 reads one list per call, the most recently used first.
      expect(kept.warmTermLists(0)).toBe(true);
      expect(loads).toEqual([used[used.length - 1]]);
      while (kept.warmTermLists(0));
      expect([...loads].sort()).toEqual([...used].sort());
      // The searches now find every list loaded, and rank as FTS5 does.
      loads.length = 0;
      expect(await kept.search(first)).toEqual(await fts.search(first));
      expect(await kept.search(second)).toEqual(await fts.search(second));
      expect(loads).toEqual([]);
      fts.deleteSource(projects[0]!, 'warm');
    } finally {
      clock.mockRestore();
    }
  });
});

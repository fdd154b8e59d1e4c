import { ANSWER_FLOOR, sha256Hex, type ChunkDraft, type LoadedDocument } from '@kbqa/core';
import type { DataSource } from 'typeorm';
import { SqliteChunkIndex } from './chunk-index';
import { openDataSource, rawDatabase } from './data-source';
import { buildMatchExpression, prunedMatchExpression } from './fts-query';
import { FtsCodeColumn1733100000000 } from './migrations/1733100000000-fts-code-column';
import { FtsProjectColumn1733200000000 } from './migrations/1733200000000-fts-project-column';

function draft(content: string, ordinal = 0, headingPath: string[] = []): ChunkDraft {
  return {
    ordinal,
    content,
    headingPath,
    title: 'T',
    link: 'L',
    kind: 'content',
    contentHash: sha256Hex(content),
  };
}

function doc(source: string, metadata?: LoadedDocument['metadata']): LoadedDocument {
  return { source, content: 'x', metadata };
}

describe(SqliteChunkIndex.name, () => {
  let ds: DataSource;
  let index: SqliteChunkIndex;
  let projectId: number;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    index = new SqliteChunkIndex(rawDatabase(ds));
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run();
    projectId = 1;
  });
  afterEach(() => ds.destroy());

  const ftsRows = () =>
    (rawDatabase(ds).prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;

  it('replaces a source in place: no duplicate chunks or FTS rows', () => {
    const input = {
      projectId,
      source: 's',
      kind: 'documents' as const,
      documents: [{ document: doc('s'), chunks: [draft('alpha beta'), draft('gamma', 1)] }],
    };
    const first = index.replaceSource(input);
    const second = index.replaceSource(input);
    expect(second.sourceId).toBe(first.sourceId);
    expect(index.countChunks(projectId)).toBe(2);
    expect(ftsRows()).toBe(2);
  });

  it('removes chunks and FTS rows with the source', async () => {
    index.replaceSource({
      projectId,
      source: 's',
      kind: 'documents',
      documents: [{ document: doc('s'), chunks: [draft('alpha')] }],
    });
    expect(index.deleteSource(projectId, 's')).toBe(1);
    expect(ftsRows()).toBe(0);
    expect(await index.search({ projectId, text: 'alpha', topK: 5, mode: 'lexical' })).toEqual([]);
  });

  it('deletes a source named by a link that one of its chunks cites', () => {
    const video = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
    index.replaceSource({
      projectId,
      source: video,
      kind: 'youtube',
      documents: [
        {
          document: doc(video),
          chunks: [
            { ...draft('intro'), link: `${video}&t=0s` },
            { ...draft('later', 1), link: `${video}&t=95s` },
          ],
        },
      ],
    });
    expect(index.deleteSource(projectId, `${video}&t=95s`)).toBe(1);
    expect(index.countChunks(projectId)).toBe(0);
    expect(index.deleteSource(projectId, `${video}&t=95s`)).toBe(0);
  });

  it('keeps taught sources on delete-all', () => {
    index.replaceSource({
      projectId,
      source: 'a',
      kind: 'documents',
      documents: [{ document: doc('a'), chunks: [draft('a')] }],
    });
    index.replaceSource({
      projectId,
      source: 'faq',
      kind: 'teach',
      documents: [{ document: doc('faq'), chunks: [draft('q')] }],
    });
    expect(index.deleteAllSources(projectId)).toBe(1);
    expect(index.listSources(projectId).map((s) => s.source)).toEqual(['faq']);
  });

  it('filters lexical results by document metadata inside the query', async () => {
    for (let v = 1; v <= 20; v++) {
      index.replaceSource({
        projectId,
        source: `v${v}`,
        kind: 'documents',
        documents: [
          {
            document: doc(`v${v}`, { version: v, tag: v % 2 ? 'odd' : 'even' }),
            chunks: [draft(`plugin hooks ${'x'.repeat(v)}`)],
          },
        ],
      });
    }
    const hits = await index.search({
      projectId,
      text: 'plugin hooks',
      topK: 5,
      mode: 'lexical',
      filters: [
        { field: 'version', op: '$gte', value: 15 },
        { field: 'tag', op: '$in', value: ['odd'] },
      ],
    });
    expect(hits.map((h) => h.source).sort()).toEqual(['v15', 'v17', 'v19']);
  });

  it("keeps a large project's lexical search to its own chunks when it searches unscoped", async () => {
    // 20,060 chunks, 95% in project 1: above PRUNE_FROM_ROWS and UNSCOPED_FROM_SHARE, so the
    // match runs without the project token and other projects' rows are dropped after.
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('q', 'now')").run();
    const filler = (n: number, word: string) =>
      Array.from({ length: n }, (_, i) => draft(`${word} filler ${i}`, i));
    const ingest = (project: number, source: string, chunks: ChunkDraft[]) =>
      index.replaceSource({
        projectId: project,
        source,
        kind: 'documents',
        documents: [{ document: doc(source), chunks }],
      });
    ingest(projectId, 'bulk', filler(19_000, 'plain'));
    ingest(projectId, 'own', [draft('zebra zebra stripes', 0), draft('zebra stripes', 1)]);
    // Project 2 holds the best zebra chunks of the index, more than the unscoped read takes.
    ingest(
      2,
      'other',
      Array.from({ length: 60 }, (_, i) => draft(`zebra zebra zebra zebra ${i}`, i)),
    );
    ingest(2, 'bulk', filler(1_000, 'other'));
    const hits = await index.search({ projectId, text: 'zebra', topK: 10, mode: 'lexical' });
    expect(hits.map((h) => h.content)).toEqual(['zebra zebra stripes', 'zebra stripes']);
    // Few enough of project 2's rows to read past: the unscoped result itself is kept.
    rawDatabase(ds)
      .prepare(
        "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE project_id = 2 AND ordinal >= 5 AND content LIKE 'zebra%')",
      )
      .run();
    const again = await index.search({ projectId, text: 'zebra', topK: 10, mode: 'lexical' });
    expect(again.map((h) => h.content)).toEqual(['zebra zebra stripes', 'zebra stripes']);
    expect((await index.search({ projectId: 2, text: 'zebra', topK: 3, mode: 'lexical' })).length).toBe(3);
  });

  it('gives relevance scores in [0, 1], higher for better matches', async () => {
    index.replaceSource({
      projectId,
      source: 'a',
      kind: 'documents',
      documents: [
        {
          document: doc('a'),
          chunks: [draft('decorators decorate the fastify instance'), draft('other words entirely', 1)],
        },
      ],
    });
    const hits = await index.search({ projectId, text: 'fastify decorators', topK: 5, mode: 'lexical' });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeLessThan(1);
  });
  describe('relevance calibration', () => {
    const site = [
      ['install', '# Installing Acme\n\nInstall Acme with `npm install acme`. Acme runs on Node.js 20.'],
      ['config', '# Configuring Acme\n\nAcme reads acme.json. You install plugins for Acme in it.'],
      ['deploy', '# Deploying Acme\n\nBuild Acme, then install it on the server. Acme listens on port 3000.'],
      ['faq', '# Acme FAQ\n\nAcme is free. Install questions go to the forum; Acme answers them.'],
    ] as const;
    beforeEach(() => {
      for (const [source, content] of site) {
        index.replaceSource({
          projectId,
          source,
          kind: 'documents',
          documents: [{ document: doc(source), chunks: [{ ...draft(content), title: source }] }],
        });
      }
    });

    it('scores a right answer on a tiny site above the answer floor, though its words are on every page', async () => {
      const hits = await index.search({
        projectId,
        text: 'How do I install Acme?',
        topK: 4,
        mode: 'lexical',
      });
      expect(hits[0]!.source).toBe('install');
      expect(hits[0]!.score).toBeGreaterThanOrEqual(ANSWER_FLOOR);
      expect(hits[0]!.score).toBeLessThanOrEqual(1);
    });

    it('scores an unrelated question below the answer floor, even when a common word matches', async () => {
      const hits = await index.search({
        projectId,
        text: 'How do I install a dishwasher drain hose?',
        topK: 4,
        mode: 'lexical',
      });
      expect(hits.length).toBeGreaterThan(0);
      for (const hit of hits) expect(hit.score).toBeLessThan(ANSWER_FLOOR);
    });

    it('never scores a hit above one ranked before it', async () => {
      const hits = await index.search({
        projectId,
        text: 'install Acme plugins on port 3000',
        topK: 4,
        mode: 'lexical',
      });
      const scores = hits.map((h) => h.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });
  });

  describe('context terms', () => {
    const pages = [
      ['cors', 'Enable CORS with the cors plugin. Its origin option takes the allowed origin.'],
      ['graphql', 'GraphQL enums restrict a field to one of a set of values, like an origin of a record.'],
      ['passport', 'Passport strategies restrict routes to logged-in users.'],
    ] as const;
    beforeEach(() => {
      for (const [source, content] of pages) {
        index.replaceSource({
          projectId,
          source,
          kind: 'documents',
          documents: [{ document: doc(source), chunks: [draft(content)] }],
        });
      }
    });
    const search = (text: string, context?: string) =>
      index.search({ projectId, text, context, topK: 3, mode: 'lexical' });

    it('puts the passage on the conversation topic first for a follow-up', async () => {
      const without = await search('and how do I restrict it to one origin?');
      expect(without[0]!.source).toBe('graphql');
      const hits = await search('and how do I restrict it to one origin?', 'enable CORS');
      expect(hits[0]!.source).toBe('cors');
    });

    it('only boosts passages matching the question, so a change of topic still wins', async () => {
      const hits = await search('How do Passport strategies work?', 'enable CORS');
      expect(hits[0]!.source).toBe('passport');
      expect(hits.map((h) => h.source)).not.toContain('cors');
    });

    it('weighs context terms below the question terms', async () => {
      const own = await search('restrict origin enable cors');
      const context = await search('restrict origin', 'enable cors');
      expect(context[0]!.source).toBe('cors');
      expect(context[0]!.score).toBeLessThan(own[0]!.score);
    });

    it('searches the context when the question has no word of its own', async () => {
      const hits = await search('and then?', 'Passport strategies');
      expect(hits[0]!.source).toBe('passport');
    });
  });

  describe('definition topic', () => {
    const page = (source: string, link: string, heading: string, contents: string[]) =>
      index.replaceSource({
        projectId,
        source,
        kind: 'documents',
        documents: [
          {
            document: doc(source),
            chunks: contents.map((content, i) => ({ ...draft(content, i, [heading]), title: link, link })),
          },
        ],
      });
    beforeEach(() => {
      page('widgets', 'docs/Widgets.md', 'Widgets', [
        'The widget API builds screens out of small parts.',
        'Widgets nest: a widget holds other widgets, and widgets of widgets render in order.',
        'Removing widgets: a removed widget takes the widgets it holds with it.',
        'Widgets can be hidden; hidden widgets keep their widgets.',
      ]);
      page('layout', 'docs/Widgets-and-Layout.md', 'Widgets and Layout', [
        'Layout places things on a grid.',
        'Widgets in a layout: widgets fill cells, and widgets span widgets of a row.',
      ]);
    });
    const search = (topic?: string) =>
      index.search({ projectId, text: 'what do widgets do?', topic, topK: 3, mode: 'lexical' });

    it("puts the opening passage of the topic's own page first among that page's passages", async () => {
      const without = await search();
      expect(without.map((h) => h.content)).not.toContain(
        'The widget API builds screens out of small parts.',
      );
      const hits = await search('widgets');
      const own = hits.filter((h) => h.link === 'docs/Widgets.md');
      expect(own[0]!.content).toBe('The widget API builds screens out of small parts.');
    });

    it('passes over an opening banner without prose to the first passage that has some', async () => {
      page('gadgets', 'docs/Gadgets.md', 'Gadgets', [
        '<h1 align="center">Acme</h1>\n\n![logo](logo.png)',
        'A gadget is a widget that keeps state between renders.',
        'Gadgets: gadgets of gadgets, gadget gadgets, gadgets and gadgets.',
      ]);
      const hits = await index.search({
        projectId,
        text: 'what are gadgets?',
        topic: 'gadgets',
        topK: 3,
        mode: 'lexical',
      });
      const own = hits.filter((h) => h.link === 'docs/Gadgets.md');
      expect(own[0]!.content).toBe('A gadget is a widget that keeps state between renders.');
    });

    it('leaves the order of a page whose name holds the topic among other words', async () => {
      const layout = async (topic?: string) =>
        (await index.search({ projectId, text: 'what do widgets do?', topic, topK: 6, mode: 'lexical' }))
          .filter((h) => h.link === 'docs/Widgets-and-Layout.md')
          .map((h) => h.content);
      const without = await layout();
      expect(without[0]).not.toBe('Layout places things on a grid.');
      expect(await layout('widgets')).toEqual(without);
    });

    it('keeps scores from rising down the list', async () => {
      const hits = await search('widgets');
      for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    });
  });

  describe('lexical ranking', () => {
    /** Indexes each text as one chunk of its own source (named by position) and searches. */
    async function rank(texts: string[], question: string): Promise<string[]> {
      texts.forEach((text, i) =>
        index.replaceSource({
          projectId,
          source: `s${i}`,
          kind: 'documents',
          documents: [{ document: doc(`s${i}`), chunks: [draft(text)] }],
        }),
      );
      const hits = await index.search({ projectId, text: question, topK: 10, mode: 'lexical' });
      return hits.map((h) => h.source);
    }

    it('matches a camelCase identifier in body text', async () => {
      const ranked = await rank(
        ['Pass enableCors: true to the factory.', 'cors is handled by a plugin'],
        'enableCors',
      );
      expect(ranked).toEqual(['s0']);
    });

    it('ranks the passage naming a dotted identifier before one with its parts apart', async () => {
      const ranked = await rank(
        [
          'The reply object has many properties; res used to be one of them, the reply knows.',
          'In v4 reply.res moved to reply.raw.',
        ],
        'what happened to reply.res',
      );
      expect(ranked[0]).toBe('s1');
    });

    it('ranks the passage covering more of the question above one repeating a single term', async () => {
      const ranked = await rank(
        [
          'Run only this test: only the test marked only runs, only when asked, only.',
          'A hook declared in the route options runs for that route only.',
        ],
        'hook that only runs for one route',
      );
      expect(ranked[0]).toBe('s1');
    });

    it('weighs a word in prose above the same word in a code sample', async () => {
      const ranked = await rank(
        [
          'Setup:\n\n```nginx\nssl_certificate /etc/cert.pem;\n```',
          'Setup: the certificate goes in the https option.',
        ],
        'certificate',
      );
      expect(ranked).toEqual(['s1', 's0']);
    });

    it('keeps relevance in [0, 1] and the same for the same passage and question', async () => {
      const text =
        'Hooks let you listen to specific events in the application or request/response lifecycle.';
      await rank([text], 'request lifecycle hooks');
      const again = await index.search({
        projectId,
        text: 'request lifecycle hooks',
        topK: 1,
        mode: 'lexical',
      });
      const first = await index.search({
        projectId,
        text: 'request lifecycle hooks',
        topK: 1,
        mode: 'lexical',
      });
      expect(first[0]!.score).toBeGreaterThan(0);
      expect(first[0]!.score).toBeLessThan(1);
      expect(again[0]!.score).toBe(first[0]!.score);
    });
  });

  it('rebuilds the full-text index from stored chunks in the FTS migrations, both ways', async () => {
    index.replaceSource({
      projectId,
      source: 's',
      kind: 'documents',
      documents: [
        {
          document: doc('s'),
          chunks: [draft('Prose words.\n\n```js\nconst listenTimeout = 1\n```', 0, ['Server'])],
        },
      ],
    });
    const runner = ds.createQueryRunner();
    try {
      const code = new FtsCodeColumn1733100000000();
      const project = new FtsProjectColumn1733200000000();
      const columns = () =>
        rawDatabase(ds).prepare('SELECT * FROM pragma_table_info(?)').all('chunks_fts').length;
      await project.down(runner);
      expect(columns()).toBe(4);
      await code.down(runner);
      expect(columns()).toBe(3);
      await code.up(runner);
      expect(columns()).toBe(4);
      await project.up(runner);
      expect(columns()).toBe(5);
    } finally {
      await runner.release();
    }
    index = new SqliteChunkIndex(rawDatabase(ds));
    for (const text of ['listenTimeout', 'prose', 'server']) {
      expect(await index.search({ projectId, text, topK: 5, mode: 'lexical' })).toHaveLength(1);
    }
  });
});

describe('lexical search scoped by project inside the index', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = await openDataSource({ file: ':memory:' });
  });
  afterAll(() => ds.destroy());

  it("returns only the project's chunks, and a word like p1 does not match a whole project", async () => {
    const db = rawDatabase(ds);
    const index = new SqliteChunkIndex(db);
    const ids: number[] = [];
    for (const name of ['a', 'b']) {
      ids.push(
        Number(
          db.prepare("INSERT INTO projects (name, created_at) VALUES (?, '2026-01-01')").run(name)
            .lastInsertRowid,
        ),
      );
    }
    const [a, b] = ids as [number, number];
    for (const projectId of [a, b]) {
      index.replaceSource({
        projectId,
        source: 'same',
        kind: 'documents',
        documents: [
          {
            document: doc('same'),
            chunks: [draft('Hooks run in order.', 0, ['Hooks']), draft('Unrelated text.', 1, ['Other'])],
          },
        ],
      });
    }
    const hits = await index.search({ projectId: a, text: 'hooks', topK: 10, mode: 'lexical' });
    expect(hits).toHaveLength(1);
    expect(index.listSources(a).map((s) => s.id)).toContain(hits[0]!.sourceId);
    expect(await index.search({ projectId: b, text: `p${a} p${b}`, topK: 10, mode: 'lexical' })).toEqual([]);
  });

  it('stops leaving out the project term as soon as a second project has a chunk', async () => {
    const db = rawDatabase(ds);
    const index = new SqliteChunkIndex(db);
    db.prepare('DELETE FROM chunks_fts').run();
    db.prepare('DELETE FROM chunks').run();
    const [a, b] = ['c', 'd'].map((name) =>
      Number(
        db.prepare("INSERT INTO projects (name, created_at) VALUES (?, '2026-01-01')").run(name)
          .lastInsertRowid,
      ),
    ) as [number, number];
    const put = (projectId: number, text: string) =>
      index.replaceSource({
        projectId,
        source: 'only',
        kind: 'documents',
        documents: [{ document: doc('only'), chunks: [draft(text, 0, ['Hooks'])] }],
      });
    put(a, 'Hooks run in order, plugins load first.');
    const alone = await index.search({ projectId: a, text: 'hooks plugins', topK: 10, mode: 'lexical' });
    expect(alone).toHaveLength(1);
    // The same store object, right after: no cached answer of the project check may survive.
    put(b, 'Hooks of another project, with plugins too.');
    const hits = await index.search({ projectId: a, text: 'hooks plugins', topK: 10, mode: 'lexical' });
    expect(hits.map((h) => h.chunkId)).toEqual(alone.map((h) => h.chunkId));
    const context = await index.search({
      projectId: a,
      text: 'hooks',
      context: 'plugins',
      topK: 10,
      mode: 'lexical',
    });
    expect(context.map((h) => h.chunkId)).toEqual(alone.map((h) => h.chunkId));
  });
});

describe('full-text segment merging', () => {
  it('does not merge inside writes, and mergeStep merges the segments writes leave', async () => {
    const ds = await openDataSource({ file: ':memory:' });
    try {
      const db = rawDatabase(ds);
      const projectId = Number(
        db.prepare("INSERT INTO projects (name, created_at) VALUES ('m', '2026-01-01')").run()
          .lastInsertRowid,
      );
      const index = new SqliteChunkIndex(db);
      // The structure record (id 10) lists segments; its size grows with their number.
      const structureBytes = () =>
        (db.prepare('SELECT length(block) AS n FROM chunks_fts_data WHERE id = 10').get() as { n: number }).n;
      for (let i = 0; i < 40; i++) {
        index.replaceSource({
          projectId,
          source: `s${i}`,
          kind: 'documents',
          documents: [{ document: doc(`s${i}`), chunks: [draft(`Segment ${i} words about hooks.`)] }],
        });
      }
      const automerge = db.prepare("SELECT v FROM chunks_fts_config WHERE k = 'automerge'").get() as {
        v: number;
      };
      expect(automerge.v).toBe(0);
      const before = structureBytes();
      for (let i = 0; i < 20; i++) index.mergeStep(100);
      expect(structureBytes()).toBeLessThan(before / 2);
      expect(await index.search({ projectId, text: 'hooks', topK: 50, mode: 'lexical' })).toHaveLength(40);
    } finally {
      await ds.destroy();
    }
  });
});

describe(buildMatchExpression.name, () => {
  it('quotes every term so user text is never FTS syntax', () => {
    expect(buildMatchExpression('how do I use "NEAR" OR * enableCors?')).toBe('"near" OR "enablecors"');
    expect(buildMatchExpression('???')).toBeUndefined();
  });
});

describe(prunedMatchExpression.name, () => {
  const df: Record<string, number> = {
    '"plugin"': 900,
    '"request"': 950,
    '"prefix"': 40,
    '"encapsulation"': 12,
  };

  it('requires a rare term and keeps every term in the score', () => {
    expect(prunedMatchExpression(['"plugin"', '"prefix"', '"encapsulation"'], (t) => df[t]!, 100)).toBe(
      '("encapsulation" OR "prefix") AND ("plugin" OR "prefix" OR "encapsulation")',
    );
  });

  it('requires the rarest term when every term is common, and ORs when all are rare', () => {
    expect(prunedMatchExpression(['"request"', '"plugin"'], (t) => df[t]!, 100)).toBe(
      '("plugin") AND ("request" OR "plugin")',
    );
    expect(prunedMatchExpression(['"prefix"', '"encapsulation"'], (t) => df[t]!, 100)).toBe(
      '"prefix" OR "encapsulation"',
    );
  });
});

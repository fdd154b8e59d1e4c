import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { openDataSource, rawDatabase } from './data-source';
import { SqliteRequestRecords } from './request-records';

describe(SqliteRequestRecords.name, () => {
  let ds: DataSource;
  let db: BetterSqlite3.Database;
  let records: SqliteRequestRecords;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    db = rawDatabase(ds);
    db.prepare("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')").run();
    records = new SqliteRequestRecords(db);
  });
  afterEach(() => ds.destroy());

  const addKey = (projectId: number, hash: string, revokedAt: string | null = null) =>
    db
      .prepare(
        `INSERT INTO api_keys (project_id, kind, prefix, key_hash, created_at, revoked_at)
         VALUES (?, 'anon', 'kbqa_pk_x', ?, 'now', ?)`,
      )
      .run(projectId, hash, revokedAt);

  it('finds an active key by its hash, and no revoked or unknown one', () => {
    addKey(2, 'aa');
    addKey(1, 'bb', '2026-01-01T00:00:00.000000');
    expect(records.findActiveKey('aa')).toEqual({ id: 1, projectId: 2, kind: 'anon', keyHash: 'aa' });
    expect(records.findActiveKey('bb')).toBeUndefined();
    expect(records.findActiveKey('cc')).toBeUndefined();
  });

  it('records when a key was last used', () => {
    addKey(1, 'aa');
    const read = () => db.prepare('SELECT last_used_at FROM api_keys WHERE id = 1').get();
    expect(read()).toEqual({ last_used_at: null });
    records.touchKey(1, '2026-03-04T05:06:07.000000');
    expect(read()).toEqual({ last_used_at: '2026-03-04T05:06:07.000000' });
  });

  it('creates conversations and stores messages with their sources and completeness', () => {
    const c = records.createConversation(1, 'support');
    const human = records.addMessage({
      projectId: 1,
      conversationId: c,
      sender: 'Human',
      text: 'q?',
      replyTo: null,
      sources: [],
      complete: true,
    });
    const ai = records.addMessage({
      projectId: 1,
      conversationId: c,
      sender: 'AI',
      text: 'partial',
      replyTo: human,
      sources: [{ chunk_id: 7 }],
      complete: false,
    });
    expect(db.prepare('SELECT project_id, role_info FROM conversations WHERE id = ?').get(c)).toEqual({
      project_id: 1,
      role_info: 'support',
    });
    expect(
      db.prepare('SELECT sender, reply_to, sources, complete FROM messages WHERE id = ?').get(ai),
    ).toEqual({ sender: 'AI', reply_to: human, sources: '[{"chunk_id":7}]', complete: 0 });
  });

  describe('exportPairs', () => {
    /** A question and its answer of `projectId`, stored at `day` (UTC), the answer rated `rating`. */
    const pair = (projectId: number, day: string, rating: number, question: string) => {
      const c = records.createConversation(projectId, null);
      const h = records.addMessage({
        projectId,
        conversationId: c,
        sender: 'Human',
        text: question,
        replyTo: null,
        sources: [],
        complete: true,
      });
      const a = records.addMessage({
        projectId,
        conversationId: c,
        sender: 'AI',
        text: `answer to ${question}`,
        replyTo: h,
        sources: [],
        complete: true,
      });
      db.prepare('UPDATE messages SET created_at = ?, rating_value = ? WHERE id = ?').run(
        `${day}T12:00:00.000000`,
        rating,
        a,
      );
      return a;
    };

    it("pairs each of the project's answers with its question, oldest first", () => {
      const first = pair(1, '2026-03-01', 0, 'one');
      pair(2, '2026-03-01', 0, 'other project');
      const second = pair(1, '2026-03-02', 1, 'two');
      expect(records.exportPairs(1, {})).toEqual([
        expect.objectContaining({ messageId: first, humanQuery: 'one', aiResponse: 'answer to one' }),
        expect.objectContaining({ messageId: second, humanQuery: 'two', aiResponse: 'answer to two' }),
      ]);
    });

    it('filters by rating and by inclusive UTC days', () => {
      pair(1, '2026-03-01', 1, 'up');
      pair(1, '2026-03-02', -1, 'down');
      pair(1, '2026-03-03', 1, 'up later');
      const questions = (filters: Parameters<SqliteRequestRecords['exportPairs']>[1]) =>
        records.exportPairs(1, filters).map((p) => p.humanQuery);
      expect(questions({ rating: 1 })).toEqual(['up', 'up later']);
      expect(questions({ startDate: '2026-03-02', endDate: '2026-03-02' })).toEqual(['down']);
      expect(questions({ rating: 1, startDate: '2026-03-02' })).toEqual(['up later']);
    });

    it("exports each answer's tool calls as stored, and [] for an answer that made none", () => {
      const without = pair(1, '2026-03-01', 0, 'plain');
      const c = records.createConversation(1, null);
      const h = records.addMessage({
        projectId: 1,
        conversationId: c,
        sender: 'Human',
        text: 'stock?',
        replyTo: null,
        sources: [],
        complete: true,
      });
      const used = [{ id: 'a', internal_run_id: 'r', tool_name: 'stock', has_error: false, date: 'd' }];
      const withTools = records.addMessage({
        projectId: 1,
        conversationId: c,
        sender: 'AI',
        text: '3 left',
        replyTo: h,
        sources: [],
        complete: true,
        toolsUsed: used,
      });
      const byId = new Map(records.exportPairs(1, {}).map((p) => [p.messageId, p.toolsUsed]));
      expect(byId.get(without)).toBe('[]');
      expect(JSON.parse(byId.get(withTools)!)).toEqual(used);
    });

    it('gives an empty question when the question is gone', () => {
      const a = pair(1, '2026-03-01', 0, 'deleted');
      db.pragma('foreign_keys = OFF');
      db.prepare("DELETE FROM messages WHERE sender = 'Human'").run();
      expect(records.exportPairs(1, {})).toEqual([expect.objectContaining({ messageId: a, humanQuery: '' })]);
    });
  });
});

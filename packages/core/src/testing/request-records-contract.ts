import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ExportFilters, NewMessage, RequestRecords } from '../store';

/**
 * One empty records database for one test: projects 1 and 2 exist, nothing else. `sql` runs a
 * statement on the store's own tables (`?` placeholders; the fixture adapts them to its driver),
 * for what RequestRecords neither reads nor writes: adding keys, rating, dating messages.
 */
export interface RequestRecordsContractFixture {
  records: RequestRecords;
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  teardown(): Promise<void>;
}

/**
 * The behaviour every {@link RequestRecords} implementation shares, on the tables of the API's
 * records (api_keys, conversations, messages): run by the SQLite and the PostgreSQL store.
 */
export function describeRequestRecordsContract(
  name: string,
  open: () => Promise<RequestRecordsContractFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`${name} (RequestRecords contract)`, () => {
    let f: RequestRecordsContractFixture;
    let records: RequestRecords;
    beforeEach(async () => {
      f = await open();
      records = f.records;
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);

    const addKey = (projectId: number, hash: string, revokedAt: string | null = null) =>
      f.sql(
        `INSERT INTO api_keys (project_id, kind, prefix, key_hash, created_at, revoked_at)
         VALUES (?, 'anon', 'kbqa_pk_x', ?, 'now', ?)`,
        [projectId, hash, revokedAt],
      );
    const message = (m: Partial<NewMessage> & Pick<NewMessage, 'conversationId' | 'sender' | 'text'>) =>
      records.addMessage({ projectId: 1, replyTo: null, sources: [], complete: true, ...m });

    test('finds an active key by its hash, and no revoked or unknown one', async () => {
      await addKey(2, 'aa');
      await addKey(1, 'bb', '2026-01-01T00:00:00.000000');
      const [aa] = await f.sql("SELECT id FROM api_keys WHERE key_hash = 'aa'");
      expect(await records.findActiveKey('aa')).toEqual({
        id: aa!.id,
        projectId: 2,
        kind: 'anon',
        keyHash: 'aa',
      });
      expect(await records.findActiveKey('bb')).toBeUndefined();
      expect(await records.findActiveKey('cc')).toBeUndefined();
    });

    test('records when a key was last used', async () => {
      await addKey(1, 'aa');
      const id = (await records.findActiveKey('aa'))!.id;
      const read = () => f.sql('SELECT last_used_at FROM api_keys WHERE id = ?', [id]);
      expect(await read()).toEqual([{ last_used_at: null }]);
      await records.touchKey(id, '2026-03-04T05:06:07.000000');
      expect(await read()).toEqual([{ last_used_at: '2026-03-04T05:06:07.000000' }]);
    });

    test('creates conversations and stores messages with their sources and completeness', async () => {
      const c = await records.createConversation(1, 'support');
      const other = await records.createConversation(1, null);
      expect(other).not.toBe(c);
      const human = await message({ conversationId: c, sender: 'Human', text: 'q?' });
      const ai = await message({
        conversationId: c,
        sender: 'AI',
        text: 'partial',
        replyTo: human,
        sources: [{ chunk_id: 7 }],
        complete: false,
      });
      expect(await f.sql('SELECT project_id, role_info FROM conversations WHERE id = ?', [c])).toEqual([
        { project_id: 1, role_info: 'support' },
      ]);
      const [row] = await f.sql('SELECT sender, reply_to, sources, complete FROM messages WHERE id = ?', [
        ai,
      ]);
      // Completeness is a boolean column: 0/1 in SQLite, false/true in PostgreSQL.
      expect({ ...row, complete: Boolean(row!.complete) }).toEqual({
        sender: 'AI',
        reply_to: human,
        sources: '[{"chunk_id":7}]',
        complete: false,
      });
    });

    test('starts a conversation with its first message in one call', async () => {
      const before = await records.createConversation(1, null);
      const started = await records.startConversation(2, 'widget', {
        sender: 'Human',
        text: 'first?',
        replyTo: null,
        sources: [],
        complete: true,
      });
      expect(started.conversationId).not.toBe(before);
      expect(
        await f.sql('SELECT project_id, role_info FROM conversations WHERE id = ?', [started.conversationId]),
      ).toEqual([{ project_id: 2, role_info: 'widget' }]);
      const [row] = await f.sql(
        'SELECT project_id, conversation_id, sender, text, reply_to, sources, complete, tools_used FROM messages WHERE id = ?',
        [started.messageId],
      );
      expect({ ...row, complete: Boolean(row!.complete) }).toEqual({
        project_id: 2,
        conversation_id: started.conversationId,
        sender: 'Human',
        text: 'first?',
        reply_to: null,
        sources: '[]',
        complete: true,
        tools_used: '[]',
      });
      // The conversation goes on as any other.
      const answer = await message({
        projectId: 2,
        conversationId: started.conversationId,
        sender: 'AI',
        text: 'yes',
        replyTo: started.messageId,
      });
      expect(answer).not.toBe(started.messageId);
    });

    test("stores a conversation's channel, the key kind's when none is said", async () => {
      const first = { sender: 'Human' as const, text: 'q', replyTo: null, sources: [], complete: true };
      const ids = [
        await records.createConversation(1, null),
        await records.createConversation(1, null, 'anon'),
        await records.createConversation(1, null, 'server', 'slack'),
        (await records.startConversation(1, null, first)).conversationId,
        (await records.startConversation(1, null, first, 'anon')).conversationId,
        (await records.startConversation(1, null, first, 'anon', 'mcp')).conversationId,
        (await records.startConversation(1, null, first, 'server', 'discord')).conversationId,
      ];
      const channels = await Promise.all(
        ids.map(async (id) => (await f.sql('SELECT channel FROM conversations WHERE id = ?', [id]))[0]),
      );
      expect(channels.map((r) => r?.channel)).toEqual([
        'api',
        'widget',
        'slack',
        'api',
        'widget',
        'mcp',
        'discord',
      ]);
    });

    test('names new conversations and messages with random ids from 2^32, not sequential ones', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = await records.startConversation(1, null, {
          sender: 'Human',
          text: `q${i}`,
          replyTo: null,
          sources: [],
          complete: true,
        });
        const c = await records.createConversation(1, null);
        const m = await message({ conversationId: c, sender: 'Human', text: `again ${i}` });
        ids.push(started.conversationId, started.messageId, c, m);
      }
      for (const id of ids) {
        expect(Number.isSafeInteger(id)).toBe(true);
        expect(id).toBeGreaterThanOrEqual(2 ** 32);
        expect(id).toBeLessThan(2 ** 48);
      }
      expect(new Set(ids).size).toBe(ids.length);
      // Sequential conversation ids would increase; 20 random ones do so 1 time in 20!.
      const conversations = ids.filter((_, i) => i % 2 === 0);
      expect([...conversations].sort((a, b) => a - b)).not.toEqual(conversations);
      const [row] = await f.sql('SELECT id, conversation_id FROM messages WHERE id = ?', [ids[1]]);
      expect(row).toEqual({ id: ids[1], conversation_id: ids[0] });
    });

    test('gives concurrent calls each their own rows and ids (as concurrent chats make them)', async () => {
      await addKey(1, 'k1');
      await addKey(2, 'k2');
      await addKey(2, 'gone', '2026-01-01T00:00:00.000000');
      const keys = await Promise.all(
        ['k1', 'gone', 'k2', 'k1', 'none'].map(async (h) => records.findActiveKey(h)),
      );
      expect(keys.map((k) => k && [k.keyHash, k.projectId])).toEqual([
        ['k1', 1],
        undefined,
        ['k2', 2],
        ['k1', 1],
        undefined,
      ]);
      const existing = await records.createConversation(2, null);
      const chats = Array.from({ length: 12 }, (_, i) => i);
      const started = await Promise.all(
        chats.map(async (i) =>
          i % 3 === 2
            ? {
                conversationId: existing,
                messageId: await message({
                  projectId: 2,
                  conversationId: existing,
                  sender: 'Human',
                  text: `q${i}`,
                }),
              }
            : records.startConversation(1 + (i % 2), `role${i}`, {
                sender: 'Human',
                text: `q${i}`,
                replyTo: null,
                sources: [],
                complete: true,
              }),
        ),
      );
      const answers = await Promise.all(
        started.map(async (s, i) =>
          message({
            projectId: i % 3 === 2 ? 2 : 1 + (i % 2),
            conversationId: s.conversationId,
            sender: 'AI',
            text: `a${i}`,
            replyTo: s.messageId,
            sources: [{ chunk_id: i }],
          }),
        ),
      );
      const newConversations = started.filter((_, i) => i % 3 !== 2).map((s) => s.conversationId);
      expect(new Set([...newConversations, existing]).size).toBe(newConversations.length + 1);
      expect(new Set([...started.map((s) => s.messageId), ...answers]).size).toBe(chats.length * 2);
      for (const i of chats) {
        const [question] = await f.sql('SELECT conversation_id, text FROM messages WHERE id = ?', [
          started[i]!.messageId,
        ]);
        expect(question).toEqual({ conversation_id: started[i]!.conversationId, text: `q${i}` });
        const [answer] = await f.sql(
          'SELECT conversation_id, reply_to, text, sources FROM messages WHERE id = ?',
          [answers[i]],
        );
        expect(answer).toEqual({
          conversation_id: started[i]!.conversationId,
          reply_to: started[i]!.messageId,
          text: `a${i}`,
          sources: `[{"chunk_id":${i}}]`,
        });
        if (i % 3 !== 2) {
          expect(
            await f.sql('SELECT project_id, role_info FROM conversations WHERE id = ?', [
              started[i]!.conversationId,
            ]),
          ).toEqual([{ project_id: 1 + (i % 2), role_info: `role${i}` }]);
        }
      }
    });

    describe('exportPairs', () => {
      /** A question and its answer of `projectId`, stored at `day` (UTC), the answer rated `rating`. */
      const pair = async (projectId: number, day: string, rating: number, question: string) => {
        const c = await records.createConversation(projectId, null);
        const h = await message({ projectId, conversationId: c, sender: 'Human', text: question });
        const a = await message({
          projectId,
          conversationId: c,
          sender: 'AI',
          text: `answer to ${question}`,
          replyTo: h,
        });
        await f.sql('UPDATE messages SET created_at = ?, rating_value = ? WHERE id = ?', [
          `${day}T12:00:00.000000`,
          rating,
          a,
        ]);
        return a;
      };
      const questions = async (filters: ExportFilters) =>
        (await records.exportPairs(1, filters)).map((p) => p.humanQuery);

      test("pairs each of the project's answers with its question, oldest first", async () => {
        const first = await pair(1, '2026-03-01', 0, 'one');
        await pair(2, '2026-03-01', 0, 'other project');
        const second = await pair(1, '2026-03-02', 1, 'two');
        const exported = await records.exportPairs(1, {});
        expect(exported).toEqual([
          expect.objectContaining({ messageId: first, humanQuery: 'one', aiResponse: 'answer to one' }),
          expect.objectContaining({ messageId: second, humanQuery: 'two', aiResponse: 'answer to two' }),
        ]);
        expect(exported[0]).toMatchObject({ timestamp: '2026-03-01T12:00:00.000000', toolsUsed: '[]' });
        expect(typeof exported[0]!.conversationId).toBe('number');
      });

      test('filters by rating and by inclusive UTC days', async () => {
        await pair(1, '2026-03-01', 1, 'up');
        await pair(1, '2026-03-02', -1, 'down');
        await pair(1, '2026-03-03', 1, 'up later');
        expect(await questions({ rating: 1 })).toEqual(['up', 'up later']);
        expect(await questions({ startDate: '2026-03-02', endDate: '2026-03-02' })).toEqual(['down']);
        expect(await questions({ rating: 1, startDate: '2026-03-02' })).toEqual(['up later']);
      });

      test("exports each answer's tool calls as stored, and [] for an answer that made none", async () => {
        const without = await pair(1, '2026-03-01', 0, 'plain');
        const c = await records.createConversation(1, null);
        const h = await message({ conversationId: c, sender: 'Human', text: 'stock?' });
        const used = [{ id: 'a', internal_run_id: 'r', tool_name: 'stock', has_error: false, date: 'd' }];
        const withTools = await message({
          conversationId: c,
          sender: 'AI',
          text: '3 left',
          replyTo: h,
          toolsUsed: used,
        });
        const byId = new Map((await records.exportPairs(1, {})).map((p) => [p.messageId, p.toolsUsed]));
        expect(byId.get(without)).toBe('[]');
        expect(JSON.parse(byId.get(withTools)!)).toEqual(used);
      });

      test('gives an empty question when the question is gone', async () => {
        const a = await pair(1, '2026-03-01', 0, 'deleted');
        await f.sql("DELETE FROM messages WHERE sender = 'Human'");
        expect(await records.exportPairs(1, {})).toEqual([
          expect.objectContaining({ messageId: a, humanQuery: '' }),
        ]);
      });
    });
  });
}

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type {
  AnalyticsRepository,
  ConversationRepository,
  IntegrationRepository,
  TaughtAnswerRepository,
} from '../records/conversations';
import { taughtSource } from '../records/conversations';
import type { ChunkStore } from '../store';
import { contractDraft } from './chunk-store-contract';

/**
 * One empty records database for one test: projects 1 and 2 exist, nothing else. `sql` runs a
 * statement on the store's own tables (`?` placeholders; the fixture adapts them to its driver)
 * to lay out rows with chosen times; `chunks` is the store's chunk store, which indexes taught pairs.
 */
export interface ConversationsRecordsContractFixture {
  conversations: ConversationRepository;
  taught: TaughtAnswerRepository;
  analytics: AnalyticsRepository;
  integrations: IntegrationRepository;
  chunks: ChunkStore;
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  teardown(): Promise<void>;
}

const DAY = (d: number, time = '12:00:00.000000') => `2026-03-${String(d).padStart(2, '0')}T${time}`;

/**
 * The behaviour every store's conversation, taught-answer, analytics and integration records share:
 * run by the SQLite and the PostgreSQL store.
 */
export function describeConversationsRecordsContract(
  name: string,
  open: () => Promise<ConversationsRecordsContractFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`${name} (conversations records contract)`, () => {
    let f: ConversationsRecordsContractFixture;
    beforeEach(async () => {
      f = await open();
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);

    const conversation = (
      id: number,
      c: {
        projectId?: number;
        startedBy?: 'anon' | 'server';
        channel?: string;
        at?: string;
        endedAt?: string | null;
      } = {},
    ) =>
      f.sql(
        `INSERT INTO conversations (id, project_id, role_info, started_by, channel, created_at, ended_at)
         VALUES (?, ?, NULL, ?, ?, ?, ?)`,
        [
          id,
          c.projectId ?? 1,
          c.startedBy ?? 'server',
          c.channel ?? (c.startedBy === 'anon' ? 'widget' : 'api'),
          c.at ?? DAY(1),
          c.endedAt ?? null,
        ],
      );
    const message = (
      id: number,
      m: {
        conversationId: number;
        sender: 'Human' | 'AI';
        text: string;
        projectId?: number;
        replyTo?: number;
        sources?: string;
        version?: string;
        rating?: number;
        at?: string;
      },
    ) =>
      f.sql(
        `INSERT INTO messages (id, project_id, conversation_id, sender, text, reply_to, sources, tools_used,
           version, rating_value, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?)`,
        [
          id,
          m.projectId ?? 1,
          m.conversationId,
          m.sender,
          m.text,
          m.replyTo ?? null,
          m.sources ?? '[{"chunk_id":1}]',
          m.version ?? null,
          m.rating ?? 0,
          m.at ?? DAY(1),
        ],
      );

    describe('ConversationRepository', () => {
      test('finds a conversation in its project only, or in any project when none is said', async () => {
        await conversation(10, { projectId: 2, startedBy: 'anon', at: DAY(2) });
        const expected = {
          id: 10,
          projectId: 2,
          roleInfo: null,
          startedBy: 'anon',
          createdAt: DAY(2),
          endedAt: null,
        };
        expect(await f.conversations.findConversation(10, 2)).toEqual(expected);
        expect(await f.conversations.findConversation(10)).toEqual(expected);
        expect(await f.conversations.findConversation(10, 1)).toBeUndefined();
        expect(await f.conversations.findConversation(11)).toBeUndefined();
      });

      test('changes the role info, and ends a conversation once', async () => {
        await conversation(10);
        await f.conversations.setRoleInfo(10, 'support');
        await f.conversations.endConversation(10, DAY(3));
        await f.conversations.endConversation(10, DAY(4));
        expect(await f.conversations.findConversation(10)).toMatchObject({
          roleInfo: 'support',
          endedAt: DAY(3),
        });
      });

      test("reads a conversation's messages oldest first, then by id, with every stored field", async () => {
        await conversation(10);
        await message(30, {
          conversationId: 10,
          sender: 'Human',
          text: 'second',
          at: DAY(1, '12:00:01.000000'),
        });
        await message(20, {
          conversationId: 10,
          sender: 'Human',
          text: 'third',
          at: DAY(1, '12:00:01.000000'),
        });
        await message(40, { conversationId: 10, sender: 'Human', text: 'first', version: 'v2' });
        await f.sql(
          `INSERT INTO messages (id, project_id, conversation_id, sender, text, reply_to, sources, tools_used,
             rating_value, complete, created_at)
           VALUES (50, 1, 10, 'AI', 'cut', 40, '[{"chunk_id":7}]', '[{"tool_name":"t"}]', -1, FALSE, ?)`,
          [DAY(1, '12:00:02.000000')],
        );
        const messages = await f.conversations.messagesOf(1, 10);
        expect(messages.map((m) => m.text)).toEqual(['first', 'third', 'second', 'cut']);
        expect(messages[0]).toEqual({
          id: 40,
          projectId: 1,
          conversationId: 10,
          sender: 'Human',
          text: 'first',
          replyTo: null,
          sources: '[{"chunk_id":1}]',
          toolsUsed: '[]',
          version: 'v2',
          ratingValue: 0,
          complete: true,
          createdAt: DAY(1),
        });
        expect(messages[3]).toMatchObject({
          id: 50,
          sender: 'AI',
          replyTo: 40,
          sources: '[{"chunk_id":7}]',
          toolsUsed: '[{"tool_name":"t"}]',
          ratingValue: -1,
          complete: false,
        });
        expect(await f.conversations.messagesOf(2, 10)).toEqual([]);
        expect((await f.conversations.allMessagesOf(10)).map((m) => m.id)).toEqual([40, 20, 30, 50]);
      });

      test("reads a conversation's last messages newest first", async () => {
        await conversation(10);
        for (let i = 1; i <= 5; i++) {
          await message(100 - i, { conversationId: 10, sender: 'Human', text: `q${i}`, at: DAY(i) });
        }
        const recent = await f.conversations.recentMessages(1, 10, 3);
        expect(recent.map((m) => m.text)).toEqual(['q5', 'q4', 'q3']);
        expect(await f.conversations.recentMessages(2, 10, 3)).toEqual([]);
      });

      test("finds and rates the project's answers only", async () => {
        await conversation(10);
        await message(1, { conversationId: 10, sender: 'Human', text: 'q' });
        await message(2, { conversationId: 10, sender: 'AI', text: 'a', replyTo: 1 });
        expect(await f.conversations.findAnswer(1, 2)).toMatchObject({
          id: 2,
          conversationId: 10,
          text: 'a',
        });
        expect(await f.conversations.findAnswer(1, 1)).toBeUndefined();
        expect(await f.conversations.findAnswer(2, 2)).toBeUndefined();
        expect(await f.conversations.rateAnswer(1, 2, -1)).toBe(true);
        expect(await f.conversations.rateAnswer(1, 1, 1)).toBe(false);
        expect(await f.conversations.rateAnswer(2, 2, 1)).toBe(false);
        expect(await f.conversations.rateAnswer(1, 3, 1)).toBe(false);
        const ratings = await f.sql('SELECT id, rating_value FROM messages ORDER BY id');
        expect(ratings.map((r) => [Number(r.id), r.rating_value])).toEqual([
          [1, 0],
          [2, -1],
        ]);
      });

      test('lists conversations newest first with their counts, a page of them and the total', async () => {
        await conversation(10, { at: DAY(1) });
        await conversation(11, { at: DAY(3), endedAt: DAY(3, '13:00:00.000000') });
        await conversation(12, { at: DAY(2) });
        await conversation(13, { at: DAY(2) });
        await conversation(14, { projectId: 2, at: DAY(2) });
        await message(1, {
          conversationId: 11,
          sender: 'Human',
          text: 'later',
          at: DAY(3, '12:00:01.000000'),
        });
        await message(2, { conversationId: 11, sender: 'Human', text: 'first one', at: DAY(3) });
        await message(3, { conversationId: 11, sender: 'AI', text: 'a', rating: 1 });
        await message(4, { conversationId: 11, sender: 'AI', text: 'b', rating: -1 });
        await message(5, { conversationId: 11, sender: 'AI', text: 'c', rating: 1 });
        const all = await f.conversations.listConversations(1, { words: [], limit: 10, offset: 0 });
        expect(all.total).toBe(4);
        expect(all.conversations.map((c) => c.id)).toEqual([11, 13, 12, 10]);
        expect(all.conversations[0]).toEqual({
          id: 11,
          createdAt: DAY(3),
          endedAt: DAY(3, '13:00:00.000000'),
          messages: 5,
          firstQuestion: 'first one',
          good: 2,
          bad: 1,
        });
        expect(all.conversations[3]).toMatchObject({ messages: 0, firstQuestion: null, good: 0, bad: 0 });
        const page = await f.conversations.listConversations(1, { words: [], limit: 2, offset: 1 });
        expect(page.total).toBe(4);
        expect(page.conversations.map((c) => c.id)).toEqual([13, 12]);
        const ranged = await f.conversations.listConversations(1, {
          start: DAY(2, '00:00:00.000000'),
          end: DAY(2, '23:59:59.999999'),
          words: [],
          limit: 10,
          offset: 0,
        });
        expect(ranged.conversations.map((c) => c.id)).toEqual([13, 12]);
      });

      test('lists conversations by the ratings of their answers', async () => {
        for (const [id, at] of [
          [10, 1],
          [11, 2],
          [12, 3],
          [13, 4],
        ] as const)
          await conversation(id, { at: DAY(at) });
        await message(1, { conversationId: 10, sender: 'AI', text: 'a', rating: 1 });
        await message(2, { conversationId: 11, sender: 'AI', text: 'a', rating: -1 });
        await message(3, { conversationId: 12, sender: 'AI', text: 'a', rating: 1 });
        await message(4, { conversationId: 12, sender: 'AI', text: 'a', rating: -1 });
        await message(5, { conversationId: 13, sender: 'AI', text: 'a' });
        const ids = async (rating: 'good' | 'bad' | 'unrated') =>
          (
            await f.conversations.listConversations(1, { rating, words: [], limit: 10, offset: 0 })
          ).conversations.map((c) => c.id);
        expect(await ids('good')).toEqual([12, 10]);
        expect(await ids('bad')).toEqual([12, 11]);
        expect(await ids('unrated')).toEqual([13]);
      });

      test('finds conversations whose messages hold every word, each in any message, wildcards as text', async () => {
        await conversation(10, { at: DAY(1) });
        await conversation(11, { at: DAY(2) });
        await conversation(12, { at: DAY(3) });
        await message(1, { conversationId: 10, sender: 'Human', text: 'How do I Reset my password?' });
        await message(2, { conversationId: 10, sender: 'AI', text: 'Open the settings page.' });
        await message(3, { conversationId: 11, sender: 'Human', text: 'password rules' });
        await message(4, { conversationId: 12, sender: 'Human', text: 'a 100% discount_code' });
        const ids = async (words: string[]) =>
          (await f.conversations.listConversations(1, { words, limit: 10, offset: 0 })).conversations.map(
            (c) => c.id,
          );
        expect(await ids(['password'])).toEqual([11, 10]);
        expect(await ids(['reset', 'settings'])).toEqual([10]);
        expect(await ids(['reset', 'rules'])).toEqual([]);
        expect(await ids(['%'])).toEqual([12]);
        expect(await ids(['a_1'])).toEqual([]);
        expect(await ids(['discount_code'])).toEqual([12]);
        expect(
          (await f.conversations.listConversations(1, { words: ['password'], limit: 1, offset: 0 })).total,
        ).toBe(2);
      });
    });

    describe('TaughtAnswerRepository', () => {
      const index = async (projectId: number, id: number, question: string, answer: string) => {
        const source = taughtSource(id);
        const [result] = await f.chunks.replaceSources([
          {
            projectId,
            source,
            kind: 'teach',
            documents: [
              {
                document: { source, title: question, content: answer, link: source },
                chunks: [contractDraft(answer, 0), contractDraft(`${answer} (more)`, 1)],
              },
            ],
          },
        ]);
        return result!;
      };

      test('stores pairs, and lists and reads them only while their source exists', async () => {
        const a = await f.taught.insert({ projectId: 1, question: 'Q a', answer: 'A a', at: DAY(1) });
        const b = await f.taught.insert({ projectId: 1, question: 'Q b', answer: 'A b', at: DAY(2) });
        const other = await f.taught.insert({ projectId: 2, question: 'Q c', answer: 'A c', at: DAY(2) });
        expect(await f.taught.list(1)).toEqual([]);
        expect(await f.taught.get(a)).toBeUndefined();
        await index(1, b, 'Q b', 'A b');
        await index(1, a, 'Q a', 'A a');
        await index(2, other, 'Q c', 'A c');
        expect(b).toBeGreaterThan(a);
        expect(await f.taught.list(1)).toEqual([
          {
            id: a,
            projectId: 1,
            question: 'Q a',
            answer: 'A a',
            source: `taught:${a}`,
            createdAt: DAY(1),
            updatedAt: DAY(1),
          },
          expect.objectContaining({ id: b, source: `taught:${b}` }),
        ]);
        expect(await f.taught.get(other)).toMatchObject({ projectId: 2, question: 'Q c' });
        await f.chunks.deleteSource(1, `taught:${a}`);
        expect((await f.taught.list(1)).map((p) => p.id)).toEqual([b]);
        expect(await f.taught.get(a)).toBeUndefined();
      });

      test('changes a pair, and deletes it only in its project when one is said', async () => {
        const a = await f.taught.insert({ projectId: 1, question: 'Q', answer: 'A', at: DAY(1) });
        await index(1, a, 'Q', 'A');
        await f.taught.update(a, { question: 'Q2', answer: 'A2', at: DAY(5) });
        expect(await f.taught.get(a)).toMatchObject({
          question: 'Q2',
          answer: 'A2',
          createdAt: DAY(1),
          updatedAt: DAY(5),
        });
        await f.taught.delete(a, 2);
        expect(await f.taught.get(a)).toBeDefined();
        await f.taught.delete(a, 1);
        expect(await f.taught.get(a)).toBeUndefined();
        const b = await f.taught.insert({ projectId: 1, question: 'Q', answer: 'A', at: DAY(1) });
        await index(1, b, 'Q', 'A');
        await f.taught.delete(b);
        expect(await f.taught.list(1)).toEqual([]);
      });

      test("gives each project's pairs with the first chunk of their source, asked together or alone", async () => {
        const a = await f.taught.insert({ projectId: 1, question: 'Q a', answer: 'A a', at: DAY(1) });
        const b = await f.taught.insert({ projectId: 2, question: 'Q b', answer: 'A b', at: DAY(1) });
        const unindexed = await f.taught.insert({ projectId: 1, question: 'Q u', answer: 'A u', at: DAY(1) });
        const indexedA = await index(1, a, 'Q a', 'A a');
        await index(2, b, 'Q b', 'A b');
        const [sourceA] = await f.sql('SELECT id FROM sources WHERE source = ?', [`taught:${a}`]);
        const [chunkA] = await f.sql('SELECT id, document_id FROM chunks WHERE id = ?', [
          Math.min(...indexedA.chunkIds),
        ]);
        const [one, two, none] = await Promise.all([
          f.taught.candidates(1),
          f.taught.candidates(2),
          f.taught.candidates(3),
        ]);
        expect(one).toEqual([
          {
            id: a,
            question: 'Q a',
            answer: 'A a',
            source: `taught:${a}`,
            sourceId: Number(sourceA!.id),
            chunkId: Number(chunkA!.id),
            documentId: Number(chunkA!.document_id),
          },
        ]);
        expect(two.map((c) => c.id)).toEqual([b]);
        expect(none).toEqual([]);
        expect((await f.taught.candidates(1)).map((c) => c.id)).not.toContain(unindexed);
      });
    });

    describe('AnalyticsRepository', () => {
      const START = DAY(2, '00:00:00.000000');
      const END = DAY(3, '23:59:59.999999');

      test('counts questions per day, channel and version, and answers per rating, in the range', async () => {
        await conversation(10, { startedBy: 'anon', at: DAY(2) });
        await conversation(11, { at: DAY(2) });
        await conversation(12, { channel: 'slack', at: DAY(3) });
        await conversation(13, { projectId: 2, at: DAY(2) });
        await message(1, { conversationId: 10, sender: 'Human', text: 'q', at: DAY(2), version: 'v1' });
        await message(2, { conversationId: 10, sender: 'AI', text: 'a', at: DAY(2), rating: 1 });
        await message(3, { conversationId: 11, sender: 'Human', text: 'q', at: DAY(3), version: 'v1' });
        await message(4, { conversationId: 11, sender: 'AI', text: 'a', at: DAY(3), rating: -1 });
        await message(5, { conversationId: 12, sender: 'Human', text: 'q', at: DAY(3) });
        await message(6, { conversationId: 12, sender: 'Human', text: 'q', at: DAY(3) });
        await message(7, { conversationId: 12, sender: 'AI', text: 'a', at: DAY(3) });
        await message(8, { conversationId: 11, sender: 'Human', text: 'too early', at: DAY(1) });
        await message(9, { conversationId: 11, sender: 'Human', text: 'too late', at: DAY(4) });
        await message(10, {
          conversationId: 13,
          sender: 'Human',
          text: 'other project',
          projectId: 2,
          at: DAY(2),
        });
        const sorted = <T>(rows: T[]) =>
          [...rows].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
        expect(sorted(await f.analytics.questionsPerDay(1, START, END))).toEqual([
          { day: '2026-03-02', questions: 1 },
          { day: '2026-03-03', questions: 3 },
        ]);
        // Each question counts under the channel its conversation was started in.
        expect(sorted(await f.analytics.questionsByChannel(1, START, END))).toEqual([
          { channel: 'api', questions: 1 },
          { channel: 'slack', questions: 2 },
          { channel: 'widget', questions: 1 },
        ]);
        expect(await f.analytics.answerRatings(1, START, END)).toEqual({ answers: 3, good: 1, bad: 1 });
        expect(await f.analytics.answerRatings(2, START, END)).toEqual({ answers: 0, good: 0, bad: 0 });
        expect(sorted(await f.analytics.questionsPerVersion(1, START, END))).toEqual([
          { version: 'v1', questions: 2 },
          { version: null, questions: 2 },
        ]);
      });

      test('gives the start and end of the ended conversations of the range', async () => {
        await conversation(10, { at: DAY(2), endedAt: DAY(2, '12:05:00.000000') });
        await conversation(11, { at: DAY(3) });
        await conversation(12, { at: DAY(1), endedAt: DAY(2) });
        await conversation(13, { projectId: 2, at: DAY(2), endedAt: DAY(2) });
        expect(await f.analytics.endedConversations(1, START, END)).toEqual([
          { createdAt: DAY(2), endedAt: DAY(2, '12:05:00.000000') },
        ]);
      });

      test('finds the questions of the range answered without a source, not covered, or rated bad', async () => {
        const notCovered = 'That is not in the documentation.';
        await conversation(10, { at: DAY(2) });
        const pair = async (
          id: number,
          answer: string,
          a: { sources?: string; rating?: number; version?: string; at?: string } = {},
        ) => {
          await message(id, {
            conversationId: 10,
            sender: 'Human',
            text: `question ${id}`,
            at: a.at ?? DAY(2),
            version: a.version,
          });
          await message(id + 1, {
            conversationId: 10,
            sender: 'AI',
            text: answer,
            replyTo: id,
            sources: a.sources,
            rating: a.rating,
            at: a.at ?? DAY(2),
          });
        };
        await pair(100, 'fine');
        await pair(110, 'nothing found', { sources: '[]', version: 'v2' });
        await pair(120, `${notCovered} You may want to read: x`);
        await pair(130, 'wrong', { rating: -1 });
        await pair(140, 'nothing found, too early', { sources: '[]', at: DAY(1) });
        const gaps = await f.analytics.gapCandidates(1, { start: START, end: END, notCovered });
        expect([...gaps].sort((x, y) => x.question.localeCompare(y.question))).toEqual([
          { question: 'question 110', askedAt: DAY(2), noSource: true, ratedBad: false },
          { question: 'question 120', askedAt: DAY(2), noSource: true, ratedBad: false },
          { question: 'question 130', askedAt: DAY(2), noSource: false, ratedBad: true },
        ]);
        const ofVersion = await f.analytics.gapCandidates(1, {
          start: START,
          end: END,
          notCovered,
          version: 'v2',
        });
        expect(ofVersion.map((g) => g.question)).toEqual(['question 110']);
      });
    });

    describe('IntegrationRepository', () => {
      test('stores, replaces, notes the last event of, and deletes configurations', async () => {
        expect(await f.integrations.get(1, 'slack')).toBeUndefined();
        await f.integrations.put(1, 'slack', { token: 'sealed' }, DAY(1));
        await f.integrations.put(1, 'discord', { key: 'k' }, DAY(1));
        await f.integrations.put(2, 'slack', { token: 'other' }, DAY(1));
        await f.integrations.touch(1, 'slack', 'app_mention', DAY(2));
        await f.integrations.put(1, 'slack', { token: 'new' }, DAY(3));
        expect(await f.integrations.get(1, 'slack')).toEqual({
          projectId: 1,
          platform: 'slack',
          settings: { token: 'new' },
          createdAt: DAY(1),
          updatedAt: DAY(3),
          lastEventAt: DAY(2),
          lastEvent: 'app_mention',
        });
        expect((await f.integrations.list(1)).map((i) => i.platform)).toEqual(['discord', 'slack']);
        expect(await f.integrations.delete(1, 'slack')).toBe(true);
        expect(await f.integrations.delete(1, 'slack')).toBe(false);
        expect((await f.integrations.list(1)).map((i) => i.platform)).toEqual(['discord']);
        expect(await f.integrations.get(2, 'slack')).toMatchObject({ settings: { token: 'other' } });
      });

      test('answers an event once per project and platform, and forgets events older than it is told', async () => {
        expect(await f.integrations.firstDelivery(1, 'slack', 'e1', DAY(1), DAY(1))).toBe(true);
        expect(await f.integrations.firstDelivery(1, 'slack', 'e1', DAY(1), DAY(1))).toBe(false);
        expect(await f.integrations.firstDelivery(1, 'discord', 'e1', DAY(1), DAY(1))).toBe(true);
        expect(await f.integrations.firstDelivery(2, 'slack', 'e1', DAY(1), DAY(1))).toBe(true);
        const together = await Promise.all(
          [1, 2, 3].map(async () => f.integrations.firstDelivery(1, 'slack', 'e2', DAY(1), DAY(1))),
        );
        expect(together.filter(Boolean)).toHaveLength(1);
        // A new event a day later forgets those of before: e1 would be answered again.
        expect(await f.integrations.firstDelivery(1, 'slack', 'e3', DAY(2), DAY(2))).toBe(true);
        expect(await f.integrations.firstDelivery(1, 'slack', 'e1', DAY(2), DAY(2))).toBe(true);
        expect(await f.integrations.firstDelivery(1, 'slack', 'e3', DAY(2), DAY(2))).toBe(false);
      });

      test('links platform threads to conversations, a later link replacing an earlier one', async () => {
        await conversation(10);
        await conversation(11);
        expect(await f.integrations.conversationOf(1, 'slack', 'T1')).toBeUndefined();
        await f.integrations.linkThread(1, 'slack', 'T1', 10, DAY(1));
        expect(await f.integrations.conversationOf(1, 'slack', 'T1')).toBe(10);
        expect(await f.integrations.conversationOf(1, 'discord', 'T1')).toBeUndefined();
        expect(await f.integrations.conversationOf(2, 'slack', 'T1')).toBeUndefined();
        await f.integrations.linkThread(1, 'slack', 'T1', 11, DAY(2));
        expect(await f.integrations.conversationOf(1, 'slack', 'T1')).toBe(11);
        const big = 2 ** 32 - 5;
        await conversation(big);
        await f.integrations.linkThread(1, 'slack', 'T2', big, DAY(2));
        expect(await f.integrations.conversationOf(1, 'slack', 'T2')).toBe(big);
      });
    });
  });
}

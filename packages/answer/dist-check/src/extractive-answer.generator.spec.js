"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const core_1 = require("@kbqa/core");
const corpus_1 = require("../test/corpus");
const extractive_answer_generator_1 = require("./extractive-answer.generator");
function source(n, title, content, score = 0.8) {
    return { n, title, content, score, link: `https://tidepool.example/docs/${n}` };
}
function request(question, sources, signal = new AbortController().signal) {
    return { question, sources, history: [], signal };
}
async function collect(iterable) {
    const pieces = [];
    for await (const piece of iterable)
        pieces.push(piece);
    return pieces;
}
async function answer(question, sources) {
    return (await collect(new extractive_answer_generator_1.ExtractiveAnswerGenerator().generate(request(question, sources)))).join('');
}
// Sections of the repository's docs corpus (fixtures/docs-corpus), each holding a known answer.
const plugins = () => (0, corpus_1.section)('reference/plugins.md', 'Plugin options');
const scope = () => (0, corpus_1.readDoc)('reference/plugins.md').split('## Plugin options')[0] ?? '';
const reply = () => (0, corpus_1.section)('reference/reply.md', 'Introduction');
const alternatives = () => (0, corpus_1.section)('reference/middleware.md', 'Middleware alternatives');
const firstServer = () => (0, corpus_1.section)('guides/getting-started.md', 'Your first server');
/** Every citation marker in a text. */
function citations(text) {
    return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}
describe(extractive_answer_generator_1.ExtractiveAnswerGenerator.name, () => {
    describe('with a curated (taught) answer first', () => {
        const taught = (content) => ({
            ...source(1, 'How do I reset my password?', content, 1),
            curated: true,
        });
        it('answers with the taught answer verbatim, cited, and nothing else', async () => {
            const text = await answer('how can I reset my password', [
                taught('Open Settings > Security and click Reset password.'),
                source(2, 'Reply', reply()),
            ]);
            expect(text).toBe('Open Settings > Security and click Reset password. [1]');
        });
        it('cites a taught answer ending in a code block on a line of its own', async () => {
            const content = 'Run:\n\n```sh\nkbqa reset\n```';
            expect(await answer('reset password', [taught(content)])).toBe(`${content}\n\n[1]`);
        });
        it('ignores a curated flag on a source that is not first', async () => {
            const text = await answer('What does register create by default?', [
                source(7, 'Plugins', scope()),
                { ...source(8, 'Taught', 'Something else entirely.'), curated: true },
            ]);
            expect(text).not.toContain('Something else entirely');
        });
    });
    it('answers with the sentence that answers the question, cited with the source number', async () => {
        const text = await answer('What does register create by default?', [
            source(4, 'Reply', reply()),
            source(7, 'Plugins', scope()),
            source(9, 'Middleware', alternatives()),
        ]);
        expect(text).toContain('By default, `register` creates an _isolated context_ for the plugin');
        expect(text).toMatch(/_isolated context_[^[]*\[7\]/);
        expect(new Set(citations(text))).toEqual(new Set([7]));
    });
    it('prefers the sentence that answers among related ones', async () => {
        const text = await answer('How do I set the status code of a reply?', [
            source(1, 'Getting started', firstServer()),
            source(2, 'Reply', reply()),
        ]);
        const firstSentence = text.split('\n')[0] ?? '';
        expect(firstSentence.startsWith('`.status(code)` - Sets the status code [2].')).toBe(true);
    });
    it('cites each sentence with the number of the source it comes from', async () => {
        const sources = [source(2, 'Middleware', alternatives()), source(5, 'Reply', reply())];
        const cors = await answer('Which plugin replaces the cors middleware?', sources);
        expect(cors).toContain('`@tidepool/cors` replaces the `cors` middleware');
        expect(new Set(citations(cors))).toEqual(new Set([2]));
        const status = await answer('How do I set the status code of a reply?', sources);
        expect(status).toContain('`.status(code)` - Sets the status code [5].');
        expect(new Set(citations(status))).toEqual(new Set([5]));
    });
    it('keeps code identifiers and fenced code blocks intact', async () => {
        const content = plugins();
        const text = await answer('How do I register a plugin with options using app.register?', [
            source(1, 'Plugins', content),
        ]);
        expect(text).toContain('`app.register`');
        const blocks = text.match(/```[\s\S]*?```/g) ?? [];
        expect(blocks).toHaveLength(1);
        for (const block of blocks)
            expect(content).toContain(block);
        expect(text).not.toMatch(/app\. register|parent\. db/);
    });
    it('quotes no code block when the question does not ask how', async () => {
        const text = await answer('What options does app.register support?', [source(1, 'Plugins', plugins())]);
        expect(text).not.toContain('```');
        expect(citations(text).length).toBeGreaterThan(0);
    });
    it('says the documentation does not cover the question when there are no sources', async () => {
        expect(await answer('How do I register a plugin?', [])).toBe(extractive_answer_generator_1.NOT_COVERED_ANSWER);
    });
    it('says the documentation does not cover an unrelated question instead of quoting unrelated text', async () => {
        const sources = [
            source(1, 'Plugins', plugins()),
            source(2, 'Reply', reply()),
            source(3, 'Getting started', firstServer()),
        ];
        expect(await answer('What is a good pizza dough recipe?', sources)).toBe(extractive_answer_generator_1.NOT_COVERED_ANSWER);
        expect(await answer('How long should I bake bread in a server oven?', sources)).toBe(extractive_answer_generator_1.NOT_COVERED_ANSWER);
    });
    it('streams the answer in several pieces', async () => {
        const generator = new extractive_answer_generator_1.ExtractiveAnswerGenerator();
        const pieces = await collect(generator.generate(request('What does the reply object expose?', [source(1, 'Reply', reply())])));
        expect(pieces.length).toBeGreaterThan(1);
    });
    it('stops with an ABORTED error when the signal aborts between pieces', async () => {
        const controller = new AbortController();
        const generator = new extractive_answer_generator_1.ExtractiveAnswerGenerator();
        const iterator = generator
            .generate(request('What does the reply object expose?', [source(1, 'Reply', reply())], controller.signal))[Symbol.asyncIterator]();
        const first = await iterator.next();
        expect(first.done).toBe(false);
        controller.abort();
        await expect(iterator.next()).rejects.toMatchObject({ code: 'ABORTED' });
    });
    it('refuses to start when the signal is already aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        const generator = new extractive_answer_generator_1.ExtractiveAnswerGenerator();
        await expect(collect(generator.generate(request('What is Fastify?', [], controller.signal)))).rejects.toBeInstanceOf(core_1.KbqaError);
    });
    describe('summarize', () => {
        it('stays within maxChars and keeps sentences in document order', async () => {
            const text = (0, corpus_1.readDoc)('guides/getting-started.md');
            const summary = await new extractive_answer_generator_1.ExtractiveAnswerGenerator().summarize(text, 400, new AbortController().signal);
            expect(summary.length).toBeGreaterThan(50);
            expect(summary.length).toBeLessThanOrEqual(400);
            expect(summary).not.toContain('```');
        });
        it('cuts the best sentence when no sentence fits', async () => {
            const summary = await new extractive_answer_generator_1.ExtractiveAnswerGenerator().summarize('Fastify is a web framework highly focused on providing the best developer experience.', 30, new AbortController().signal);
            expect(summary.length).toBeLessThanOrEqual(30);
            expect(summary.endsWith('…')).toBe(true);
        });
    });
    describe('condenseQuestion', () => {
        const signal = new AbortController().signal;
        const history = [{ prompt: 'How do I use fastify.register with plugins?', response: 'Call it [1].' }];
        it('prepends key terms of the last prompt to a short follow-up', async () => {
            const condensed = await new extractive_answer_generator_1.ExtractiveAnswerGenerator().condenseQuestion('what about its options?', history, signal);
            expect(condensed).toBe('fastify.register plugins: what about its options?');
        });
        it('keeps a standalone question and any question without history as they are', async () => {
            const generator = new extractive_answer_generator_1.ExtractiveAnswerGenerator();
            const standalone = 'How do I add a hook that runs before every request handler?';
            expect(await generator.condenseQuestion(standalone, history, signal)).toBe(standalone);
            expect(await generator.condenseQuestion('and in v5?', [], signal)).toBe('and in v5?');
            expect(await generator.condenseQuestion('and in v5?', history, signal)).toBe('fastify.register plugins: and in v5?');
        });
    });
});
describe(extractive_answer_generator_1.cite.name, () => {
    it('puts the marker before the final punctuation, ends a bare sentence and turns a dangling colon into a full stop', () => {
        expect((0, extractive_answer_generator_1.cite)('Sets the status code.', 1)).toBe('Sets the status code [1].');
        expect((0, extractive_answer_generator_1.cite)('Call `reply.send()`', 2)).toBe('Call `reply.send()` [2].');
        expect((0, extractive_answer_generator_1.cite)('Like so:', 3)).toBe('Like so [3].');
        expect((0, extractive_answer_generator_1.cite)('Like so:', 3, true)).toBe('Like so [3]:');
    });
});
//# sourceMappingURL=extractive-answer.generator.spec.js.map
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const openai_prompts_1 = require("./openai.prompts");
describe(openai_prompts_1.buildAnswerMessages.name, () => {
    it('tells the model the documentation has nothing when there are no sources', () => {
        const [system] = (0, openai_prompts_1.buildAnswerMessages)({ question: 'q', sources: [], history: [] });
        expect(system?.content).toContain('none matched this question');
    });
    it("puts a curated answer first, marked as the operator's, and says to answer with it", () => {
        const [system] = (0, openai_prompts_1.buildAnswerMessages)({
            question: 'How do I reset my password?',
            sources: [
                {
                    n: 1,
                    title: 'How do I reset my password?',
                    content: 'Open Settings > Security.',
                    link: 'taught:3',
                    score: 1,
                    curated: true,
                },
                {
                    n: 2,
                    title: 'Accounts',
                    content: 'Accounts have passwords.',
                    link: 'https://x/accounts',
                    score: 0.4,
                },
            ],
            history: [],
        });
        const content = system.content;
        expect(content).toContain("Source [1] is the operator's curated answer to this question");
        expect(content).toContain('[1] Curated answer to: How do I reset my password? — taught:3\nOpen Settings > Security.');
        expect(content.indexOf('[1] Curated')).toBeLessThan(content.indexOf('[2] Accounts'));
    });
    it('marks nothing as curated without a curated source', () => {
        const [system] = (0, openai_prompts_1.buildAnswerMessages)({
            question: 'q',
            sources: [{ n: 1, title: 'Accounts', content: 'c', link: 'l', score: 0.4 }],
            history: [],
        });
        expect(system.content).not.toContain('curated');
    });
    it('keeps only the last turns of a long history', () => {
        const history = Array.from({ length: 5 }, (_, i) => ({ prompt: `p${i}`, response: `r${i}` }));
        const messages = (0, openai_prompts_1.buildAnswerMessages)({ question: 'q', sources: [], history }, 2);
        expect(messages.slice(1).map((m) => m.content)).toEqual(['p3', 'r3', 'p4', 'r4', 'q']);
    });
});
describe(openai_prompts_1.buildCondenseMessages.name, () => {
    it('puts the conversation and the follow-up in one user message', () => {
        const messages = (0, openai_prompts_1.buildCondenseMessages)('and in v5?', [
            { prompt: 'How do hooks work?', response: 'Like this.' },
        ]);
        expect(messages[1]?.content).toBe('Conversation:\nUser: How do hooks work?\nAssistant: Like this.\n\nFollow-up question: and in v5?');
    });
});
describe(openai_prompts_1.parseCondensed.name, () => {
    it('strips labels and quotes, and falls back to the question on an empty reply', () => {
        expect((0, openai_prompts_1.parseCondensed)('Question: "How do hooks work in v5?"\n', 'and in v5?')).toBe('How do hooks work in v5?');
        expect((0, openai_prompts_1.parseCondensed)('   ', 'and in v5?')).toBe('and in v5?');
    });
});
//# sourceMappingURL=openai.prompts.spec.js.map
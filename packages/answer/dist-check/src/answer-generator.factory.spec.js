"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const core_1 = require("@kbqa/core");
const answer_generator_factory_1 = require("./answer-generator.factory");
const extractive_answer_generator_1 = require("./extractive-answer.generator");
const openai_answer_generator_1 = require("./openai-answer.generator");
describe(answer_generator_factory_1.createAnswerGenerator.name, () => {
    it('builds the extractive generator', () => {
        const generator = (0, answer_generator_factory_1.createAnswerGenerator)({ kind: 'extractive' });
        expect(generator).toBeInstanceOf(extractive_answer_generator_1.ExtractiveAnswerGenerator);
        expect(generator.id).toBe('extractive');
    });
    it('builds an OpenAI-compatible generator named after its model', () => {
        const generator = (0, answer_generator_factory_1.createAnswerGenerator)({
            kind: 'openai',
            baseUrl: 'http://127.0.0.1:11434/v1/',
            model: 'llama3.2',
            timeoutMs: 1000,
        });
        expect(generator).toBeInstanceOf(openai_answer_generator_1.OpenAiAnswerGenerator);
        expect(generator.id).toBe('openai:llama3.2');
    });
    it('rejects a base URL that is not http or https', () => {
        expect(() => (0, answer_generator_factory_1.createAnswerGenerator)({ kind: 'openai', baseUrl: 'file:///etc', model: 'm' })).toThrow(core_1.KbqaError);
        expect(() => (0, answer_generator_factory_1.createAnswerGenerator)({ kind: 'openai', baseUrl: 'not a url', model: 'm' })).toThrow(core_1.KbqaError);
    });
});
//# sourceMappingURL=answer-generator.factory.spec.js.map
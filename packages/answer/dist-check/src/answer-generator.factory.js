"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createAnswerGenerator = createAnswerGenerator;
const extractive_answer_generator_1 = require("./extractive-answer.generator");
const openai_answer_generator_1 = require("./openai-answer.generator");
/** Builds the configured generator; the extractive one needs no model and is the default. */
function createAnswerGenerator(config) {
    switch (config.kind) {
        case 'extractive': {
            const { kind: _kind, ...options } = config;
            return new extractive_answer_generator_1.ExtractiveAnswerGenerator(options);
        }
        case 'openai': {
            const { kind: _kind, ...options } = config;
            return new openai_answer_generator_1.OpenAiAnswerGenerator(options);
        }
    }
}
//# sourceMappingURL=answer-generator.factory.js.map
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const question_type_util_1 = require("./question-type.util");
describe(question_type_util_1.detectQuestionType.name, () => {
    it.each([
        ['What is a decorator?', 'definition'],
        ['What are hooks?', 'definition'],
        ['Explain encapsulation', 'definition'],
        ['How do I register a plugin?', 'how-to'],
        ['How to set up TypeScript', 'how-to'],
        ["What's the best way to log requests?", 'how-to'],
        ['What is the difference between onRequest and preHandler hooks?', 'comparison'],
        ['reply.send vs return in async handlers', 'comparison'],
        ['How does fastify.inject differ from a real HTTP request?', 'comparison'],
        ['What does the bodyLimit option do?', 'option'],
        ['What does `trustProxy` do?', 'option'],
        ['Why does my hook run twice?', 'troubleshooting'],
        ['I get FST_ERR_CTP_BODY_TOO_LARGE when posting a file', 'troubleshooting'],
        ['My decorator is undefined in a sibling plugin', 'troubleshooting'],
        ['Can I use Express middleware?', 'yes-no'],
        ['Is HTTP/2 supported?', 'yes-no'],
        ['What is the default body limit?', 'other'],
        ['Which plugins handle CORS?', 'other'],
    ])('reads "%s" as %s', (question, type) => {
        expect((0, question_type_util_1.detectQuestionType)(question)).toBe(type);
    });
});
describe(question_type_util_1.analyzeQuestion.name, () => {
    it('carries the topic of a definition and an option, and the sides of a comparison', () => {
        expect((0, question_type_util_1.analyzeQuestion)('What is a decorator?').topic).toBe('decorator');
        expect((0, question_type_util_1.analyzeQuestion)('What does the bodyLimit option do?').topic).toBe('bodyLimit');
        expect((0, question_type_util_1.analyzeQuestion)('What is the difference between onRequest and preHandler hooks?').sides).toEqual([
            'onRequest',
            'preHandler hooks',
        ]);
        expect((0, question_type_util_1.analyzeQuestion)('reply.send vs return').sides).toEqual(['reply.send', 'return']);
    });
});
//# sourceMappingURL=question-type.util.spec.js.map
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const sse_parser_1 = require("./sse.parser");
describe(sse_parser_1.SseParser.name, () => {
    it('returns the data of complete events however the text is split', () => {
        const text = ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\ndata: two\ndata: lines\n\nevent: x\ndata:[DONE]\r\r';
        const expected = ['{"a":1}', 'two\nlines', '[DONE]'];
        for (let size = 1; size <= text.length; size++) {
            const parser = new sse_parser_1.SseParser();
            const events = [];
            for (let i = 0; i < text.length; i += size)
                events.push(...parser.push(text.slice(i, i + size)));
            events.push(...parser.end());
            expect(events).toEqual(expected);
        }
    });
    it('returns an event the stream ended without a blank line', () => {
        const parser = new sse_parser_1.SseParser();
        expect(parser.push('data: last')).toEqual([]);
        expect(parser.end()).toEqual(['last']);
    });
});
//# sourceMappingURL=sse.parser.spec.js.map
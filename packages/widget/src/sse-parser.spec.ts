import { SseParser } from './sse-parser';

describe(SseParser.name, () => {
  it('returns the data of complete events however the text is split', () => {
    const text =
      ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\ndata: two\ndata: lines\n\nevent: x\ndata:[DONE]\r\r';
    const expected = ['{"a":1}', 'two\nlines', '[DONE]'];
    for (let size = 1; size <= text.length; size++) {
      const parser = new SseParser();
      const events: string[] = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      events.push(...parser.end());
      expect(events).toEqual(expected);
    }
  });

  it('returns an event the stream ended without a blank line', () => {
    const parser = new SseParser();
    expect(parser.push('data: last')).toEqual([]);
    expect(parser.end()).toEqual(['last']);
  });
});

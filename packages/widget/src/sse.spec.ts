import { controlName, ChatStreamParser } from './sse';

describe(ChatStreamParser.name, () => {
  it('yields events only once their blank line arrives, across arbitrary splits', () => {
    const parser = new ChatStreamParser();
    const wire =
      'data: {"chunk":"<|source|>","metadata":[]}\n\ndata: {"chunk":"Hel"}\n\ndata: {"chunk":"lo"}\r\n\r\n';
    const events = [];
    for (let i = 0; i < wire.length; i += 7) events.push(...parser.push(wire.slice(i, i + 7)));
    expect(events).toEqual([{ chunk: '<|source|>', metadata: [] }, { chunk: 'Hel' }, { chunk: 'lo' }]);
  });

  it('skips comments and data that is not a chat event', () => {
    const parser = new ChatStreamParser();
    expect(parser.push(': ping\n\ndata: not json\n\ndata: {"x":1}\n\ndata: {"chunk":"ok"}\n\n')).toEqual([
      { chunk: 'ok' },
    ]);
  });
});

describe(controlName.name, () => {
  it('names control events and leaves answer text alone', () => {
    expect(controlName('<|message_id|>')).toBe('message_id');
    expect(controlName('<|source|>')).toBe('source');
    expect(controlName('use <|source|> here')).toBeUndefined();
    expect(controlName('Hello')).toBeUndefined();
  });
});

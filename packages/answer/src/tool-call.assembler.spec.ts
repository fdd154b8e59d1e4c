import { parseToolArguments, ToolCallAssembler } from './tool-call.assembler';

describe(ToolCallAssembler.name, () => {
  it('assembles streamed fragments by index, arguments split anywhere', () => {
    const calls = new ToolCallAssembler();
    calls.push([{ index: 0, id: 'call_a', type: 'function', function: { name: 'stock', arguments: '' } }]);
    calls.push([{ index: 0, function: { arguments: '{"sk' } }]);
    calls.push([
      { index: 1, id: 'call_b', type: 'function', function: { name: 'order', arguments: '{"n":' } },
    ]);
    calls.push([{ index: 0, function: { arguments: 'u":"A-1"}' } }]);
    calls.push([{ index: 1, function: { arguments: '7}' } }]);
    expect(calls.size).toBe(2);
    expect(calls.result()).toEqual([
      { id: 'call_a', name: 'stock', arguments: '{"sku":"A-1"}' },
      { id: 'call_b', name: 'order', arguments: '{"n":7}' },
    ]);
  });

  it('orders calls by index, not by arrival', () => {
    const calls = new ToolCallAssembler();
    calls.push([{ index: 2, id: 'c2', function: { name: 'b', arguments: '{}' } }]);
    calls.push([{ index: 0, id: 'c0', function: { name: 'a', arguments: '{}' } }]);
    expect(calls.result().map((c) => c.id)).toEqual(['c0', 'c2']);
  });

  it('takes whole calls of a non-streamed message, their position as index', () => {
    const calls = new ToolCallAssembler();
    calls.push([
      { id: 'x', type: 'function', function: { name: 'a', arguments: '{"q":1}' } },
      { id: 'y', type: 'function', function: { name: 'b', arguments: { q: 2 } } },
    ]);
    expect(calls.result()).toEqual([
      { id: 'x', name: 'a', arguments: '{"q":1}' },
      { id: 'y', name: 'b', arguments: '{"q":2}' },
    ]);
  });

  it('names calls without an id call_<index>, does not double a repeated name, and ignores junk', () => {
    const calls = new ToolCallAssembler();
    calls.push(null);
    calls.push('nope');
    calls.push([42, { index: 0, function: { name: 'get_', arguments: '' } }]);
    calls.push([{ index: 0, function: { name: 'stock' } }]);
    calls.push([{ index: 3, function: { name: 'same' } }]);
    calls.push([{ index: 3, function: { name: 'same' } }]);
    expect(calls.result()).toEqual([
      { id: 'call_0', name: 'get_stock', arguments: '' },
      { id: 'call_3', name: 'same', arguments: '' },
    ]);
  });
});

describe(parseToolArguments.name, () => {
  it('reads empty arguments as {} and refuses text that is not JSON', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolArguments('{"a":')).toEqual({ ok: false });
  });
});

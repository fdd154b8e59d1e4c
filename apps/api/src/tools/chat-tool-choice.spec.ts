import { chooseChatTools } from './chat-tool-choice';

const tool = (name: string, description = '') => ({ name, description });

describe('chooseChatTools', () => {
  it('offers every tool, in order, up to the limit', () => {
    const tools = [tool('b'), tool('a'), tool('c')];
    expect(chooseChatTools(tools, 'anything', 3)).toBe(tools);
  });

  it('past the limit, keeps the tools whose name or description has the question words', () => {
    const tools = [
      tool('listInvoices', 'Lists the invoices of a customer'),
      tool('refund_payment', 'Refunds a card payment'),
      tool('getWeather', 'Forecast for a city'),
      tool('cancelSubscription', 'Ends a plan at the end of the period'),
    ];
    const chosen = chooseChatTools(tools, 'How do I get a refund for my payment?', 2).map((t) => t.name);
    expect(chosen).toContain('refund_payment');
    expect(chosen).toHaveLength(2);
  });

  it('splits camelCase and snake_case names and reads plurals as one word', () => {
    const tools = [tool('a1'), tool('a2'), tool('getOrderStatus'), tool('a3')];
    expect(chooseChatTools(tools, 'status of my orders', 1).map((t) => t.name)).toEqual(['getOrderStatus']);
  });

  it('weighs a word every tool has at nothing, so a rarer word decides', () => {
    const tools = [
      tool('order_a', 'order tool for shoes'),
      tool('order_b', 'order tool for hats'),
      tool('order_c', 'order tool for gloves'),
    ];
    expect(chooseChatTools(tools, 'order some hats', 1).map((t) => t.name)).toEqual(['order_b']);
  });

  it('keeps the given order among the chosen, and the oldest on ties', () => {
    const tools = [tool('x1'), tool('x2'), tool('x3'), tool('label_print', 'label'), tool('x4')];
    expect(chooseChatTools(tools, 'print a label', 3).map((t) => t.name)).toEqual([
      'x1',
      'x2',
      'label_print',
    ]);
  });
});

import { hasToolCalls, isConversational } from './message';

describe('message predicates', () => {
  it('treats assistant text as conversational and assistant tool calls as not', () => {
    expect(isConversational({ role: 'assistant', content: 'done' })).toBe(true);
    const call = { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{}' }] };
    expect(hasToolCalls(call)).toBe(true);
    expect(isConversational(call)).toBe(false);
    expect(isConversational({ role: 'tool', content: 'x', toolCallId: 'c1' })).toBe(false);
  });
});

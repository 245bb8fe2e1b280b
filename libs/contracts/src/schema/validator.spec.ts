import { ToolCall } from '../events/message';
import { violationsOf } from './validator';

describe('schema validators', () => {
  const call = (id: string) => ({ id, name: 'read', arguments: '{}' });

  it('count string lengths in characters (code points), not UTF-16 units, as JSON Schema does', () => {
    const emoji = '😀'; // two UTF-16 units
    for (const mode of ['decode', 'check'] as const) {
      expect(violationsOf(ToolCall, call(emoji.repeat(200)), 'call', mode)).toEqual([]);
      expect(violationsOf(ToolCall, call(emoji.repeat(201)), 'call', mode)).toEqual([
        'call.id: must be shorter than or equal to 200 characters',
      ]);
      expect(violationsOf(ToolCall, call(''), 'call', mode)).toEqual([
        'call.id: must be longer than or equal to 1 characters',
      ]);
      expect(violationsOf(ToolCall, call(emoji), 'call', mode)).toEqual([]);
    }
  });

  it('decode drops unlisted properties in place; check leaves the value as it is', () => {
    const decoded = { ...call('c1'), extra: 1 };
    const checked = { ...call('c1'), extra: 1 };
    expect(violationsOf(ToolCall, decoded, '', 'decode')).toEqual([]);
    expect(violationsOf(ToolCall, checked, '', 'check')).toEqual([]);
    expect(decoded).toEqual(call('c1'));
    expect(checked).toEqual({ ...call('c1'), extra: 1 });
  });
});

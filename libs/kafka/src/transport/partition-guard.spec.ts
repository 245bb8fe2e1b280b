import { forwardedValue } from './partition-guard';

describe('forwardedValue', () => {
  const origin = { topic: 't', partition: 3, offset: '17' };

  it('gives a forwarded message an event id and a client message id from where it was first seen', () => {
    const value = Buffer.from(JSON.stringify({ type: 'message.appended', sessionId: 's', data: { role: 'user' } }));
    expect(JSON.parse(forwardedValue(value, origin)!.toString())).toEqual({
      type: 'message.appended',
      sessionId: 's',
      eventId: 't/3/17',
      data: { role: 'user', clientMessageId: 'fwd:p3:o17' },
    });
  });

  it('forwards a value that is not valid UTF-8 byte for byte (it is dead-lettered there, not re-encoded)', () => {
    const value = Buffer.concat([
      Buffer.from('{"type":"message.appended","sessionId":"s","data":{"role":"user","content":"caf'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    expect(forwardedValue(value, origin)!.equals(value)).toBe(true);
  });
});

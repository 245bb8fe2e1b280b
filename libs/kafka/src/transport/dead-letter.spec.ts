import { createEvent, decodeEvent, LIMITS, type EventEnvelope } from '@ctxledger/contracts';
import { encodeDeadLetter } from './dead-letter';

const base = createEvent(
  'event.dead-lettered',
  's1',
  { sourceTopic: 't.session-events', partition: 2, offset: '41', reason: 'not JSON', consumer: 'test', payload: '' },
  { eventId: 'dlq:test:t.session-events/2/41' },
) as EventEnvelope<'event.dead-lettered'>;

const decoded = (json: string) => {
  const result = decodeEvent(
    Buffer.from(json),
    { topic: 't.dead-letter', partition: 0, offset: '0', key: 's1' },
    'deadLetter',
  );
  if (!result.ok) throw new Error(result.reason);
  return result.event as EventEnvelope<'event.dead-lettered'>;
};

describe('encodeDeadLetter', () => {
  it('keeps a value of 900,000 characters whole (the limit used to be 64,000)', () => {
    const value = Buffer.from('x'.repeat(900_000));
    const json = encodeDeadLetter(base, value);
    const event = decoded(json);
    expect(event.data.payload).toBe(value.toString());
    expect(event.data.payloadCutFromBytes).toBeUndefined();
  });

  it('cuts a value JSON escaping inflates past one record to the longest beginning that fits, and says so', () => {
    const value = Buffer.from('"\\'.repeat(300_000)); // 600,000 bytes, 1,200,000 once escaped
    const json = encodeDeadLetter(base, value);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(LIMITS.maxEventBytes);
    expect(Buffer.byteLength(json)).toBeGreaterThan(LIMITS.maxEventBytes - 10);
    const event = decoded(json);
    expect(event.data.payloadCutFromBytes).toBe(600_000);
    expect(value.toString().startsWith(event.data.payload)).toBe(true);
    expect(event.data.payload.length).toBeGreaterThan(490_000);
  });

  it('never ends a cut payload on half a surrogate pair', () => {
    const value = Buffer.from('😀'.repeat(400_000)); // 1,600,000 bytes of UTF-8, 4 bytes per pair in JSON too
    const event = decoded(encodeDeadLetter(base, value));
    expect(event.data.payloadCutFromBytes).toBe(1_600_000);
    expect(event.data.payload.length % 2).toBe(0);
    expect(value.toString().startsWith(event.data.payload)).toBe(true);
  });

  it('an empty or missing value is an empty payload', () => {
    expect(decoded(encodeDeadLetter(base, null)).data.payload).toBe('');
  });
});

import fc from 'fast-check';
import { Partitioners } from 'kafkajs';
import { forwardedValue, keyPartition } from './partition-guard';

describe('keyPartition', () => {
  it("is the partition kafkajs's producer puts a keyed record on, for any partition count, asked once or again", () => {
    const producerPartition = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 64 }), (key, count) => {
        const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 0 }));
        const expected = producerPartition({ topic: 't', partitionMetadata, message: { key } } as never);
        expect(keyPartition('t', key, count)).toBe(expected);
        expect(keyPartition('other', key, count)).toBe(expected); // memoized: the topic plays no part
      }),
    );
    // One key under every partition count (a memo keyed by the key alone would answer the first count's partition).
    const spread = new Set<number>();
    for (let count = 1; count <= 64; count++) {
      const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 0 }));
      const expected = producerPartition({ topic: 't', partitionMetadata, message: { key: 'session-42' } } as never);
      expect(keyPartition('t', 'session-42', count)).toBe(expected);
      spread.add(expected);
    }
    expect(spread.size).toBeGreaterThan(10);
  });
});

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

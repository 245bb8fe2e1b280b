import { decodeEvent } from './codec';
import { jsonNestsDeeperThan } from './json-depth';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonNestsDeeperThan', () => {
  it('counts the nesting of arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeperThan(nested(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(Buffer.from(nested(65)), 64)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ content: '['.repeat(10_000) + '"\\' }), 2)).toBe(false);
  });
});

describe('decodeEvent on a deeply nested record (found by the fault tests: it threw and held the partition)', () => {
  const record = { topic: 't.session-events', partition: 0, offset: '7', key: 's1' };
  const event = (extra: string) =>
    `{"type":"message.appended","schemaVersion":1,"sessionId":"s1","data":{"role":"user","content":"hi"${extra}}}`;

  it('refuses it with the reason instead of throwing', () => {
    expect(decodeEvent(event(`,"x":${nested(5000)}`), record, 'sessionEvents')).toEqual({
      ok: false,
      reason: 'the value nests arrays/objects deeper than 64 levels',
    });
    expect(decodeEvent(event(`,"x":${nested(20)}`), record, 'sessionEvents').ok).toBe(true);
  });
});

import { jsonNestsDeeperThan, refuseDeepJson } from './json-depth';

const nested = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));

describe('jsonNestsDeeperThan', () => {
  it('counts the nesting of arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeperThan(nested(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(nested(65), 64)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":{"b":[1,{"c":2}]}}'), 4)).toBe(false);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":{"b":[1,{"c":2}]}}'), 3)).toBe(true);
    const inString = JSON.stringify({ content: '['.repeat(10_000) + '"\\' });
    expect(jsonNestsDeeperThan(Buffer.from(inString), 2)).toBe(false);
  });

  it('the verify hook refuses with status 400', () => {
    expect(() => refuseDeepJson(64)(undefined, undefined, nested(5000))).toThrow(
      expect.objectContaining({ status: 400, message: 'the JSON body nests deeper than 64 levels' }),
    );
    expect(() => refuseDeepJson(64)(undefined, undefined, Buffer.from('{"messages":[{"role":"user"}]}'))).not.toThrow();
  });
});

import { refuseDeepJson } from './json-depth';

const nested = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));

describe('refuseDeepJson', () => {
  it('refuses a body nested deeper than the limit with status 400, lets real bodies through', () => {
    expect(() => refuseDeepJson(64)(undefined, undefined, nested(5000))).toThrow(
      expect.objectContaining({ status: 400, message: 'the JSON body nests deeper than 64 levels' }),
    );
    expect(() => refuseDeepJson()(undefined, undefined, nested(64))).not.toThrow();
    expect(() =>
      refuseDeepJson()(undefined, undefined, Buffer.from('{"messages":[{"role":"user","content":"[[[["}]}')),
    ).not.toThrow();
  });
});

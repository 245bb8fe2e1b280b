import { firstInvalidUtf8Byte } from './utf8';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('UTF-8 checks', () => {
  it('finds the first ill-formed sequence, as strict as the standard', () => {
    expect(firstInvalidUtf8Byte(Buffer.from('café — 日本 😀'))).toBe(-1);
    expect(firstInvalidUtf8Byte(bytes('ab', [0xff]))).toBe(2);
    expect(firstInvalidUtf8Byte(bytes('ab', [0xc3, 0x28]))).toBe(2); // lead byte without its continuation
    expect(firstInvalidUtf8Byte(bytes('a', [0xc0, 0xaf]))).toBe(1); // overlong '/'
    expect(firstInvalidUtf8Byte(bytes('a', [0xed, 0xa0, 0x80]))).toBe(1); // a surrogate
    expect(firstInvalidUtf8Byte(bytes('a', [0xf4, 0x90, 0x80, 0x80]))).toBe(1); // above U+10FFFF
    expect(firstInvalidUtf8Byte(bytes('é', [0xe6, 0x97]))).toBe(2); // truncated at the end
    expect(firstInvalidUtf8Byte(bytes('😀', [0x80]))).toBe(4); // a stray continuation byte
  });
});

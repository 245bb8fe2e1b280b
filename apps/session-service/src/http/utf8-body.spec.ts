import { firstInvalidUtf8Byte, invalidUtf8Reason, jsonPathAtEnd } from './utf8-body';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('UTF-8 of a JSON body', () => {
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

  it('names the field being written where the prefix ends', () => {
    expect(jsonPathAtEnd('{"role":"user","content":"caf')).toEqual({ path: 'content', inKey: false });
    expect(jsonPathAtEnd('{"messages":[{"a":"x"},{"content":"a\\"b')).toEqual({
      path: 'messages.1.content',
      inKey: false,
    });
    expect(jsonPathAtEnd('{"messages":[{"role":"user","con')).toEqual({ path: 'messages.0', inKey: true });
    expect(jsonPathAtEnd('{"toolCalls":[{"id":"1","arguments":"{\\"p\\":[1,')).toEqual({
      path: 'toolCalls.0.arguments',
      inKey: false,
    });
    expect(jsonPathAtEnd('')).toEqual({ path: '', inKey: false });
  });

  it('explains a refused body', () => {
    expect(invalidUtf8Reason(bytes('{"role":"user","content":"caf', [0xe9], '"}'))).toBe(
      'content: not valid UTF-8 (byte 29 of the body)',
    );
    expect(invalidUtf8Reason(bytes('{"r', [0xe9], '":1}'))).toBe('a key is not valid UTF-8 (byte 3 of the body)');
    expect(invalidUtf8Reason(bytes([0xfe], '{}'))).toBe('the body is not valid UTF-8 (byte 0 of the body)');
    expect(invalidUtf8Reason(Buffer.from('{"content":"ok"}'))).toBeUndefined();
  });
});

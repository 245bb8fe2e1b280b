import { invalidUtf8Reason, jsonPathAtEnd } from './utf8-body';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('UTF-8 of a JSON body', () => {
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

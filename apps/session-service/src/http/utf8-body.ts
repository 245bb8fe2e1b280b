import { firstInvalidUtf8Byte } from '@ctxledger/contracts';

/**
 * Where the end of a (well-formed) JSON text prefix stands: the path of the value being written there, as the
 * validation names fields (`messages.1.content`; '' at the top), and whether it is inside an object key.
 * Tolerant: it only tracks brackets, strings, `:` and `,`.
 */
export function jsonPathAtEnd(prefix: string): { path: string; inKey: boolean } {
  const stack: Array<{ kind: 'object'; key?: string; expectKey: boolean } | { kind: 'array'; index: number }> = [];
  let inKey = false;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i];
    if (c === '"') {
      const top = stack[stack.length - 1];
      const isKey = top?.kind === 'object' && top.expectKey;
      let j = i + 1;
      let text = '';
      for (; j < prefix.length && prefix[j] !== '"'; j++) {
        if (prefix[j] === '\\') j++;
        else text += prefix[j];
      }
      if (j >= prefix.length) {
        inKey = isKey;
        break; // the prefix ends inside this string
      }
      if (isKey && top?.kind === 'object') {
        top.key = text;
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{') stack.push({ kind: 'object', expectKey: true });
    else if (c === '[') stack.push({ kind: 'array', index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      else if (top?.kind === 'object') {
        top.expectKey = true;
        delete top.key;
      }
    }
  }
  const parts: string[] = [];
  for (const level of stack) {
    if (level.kind === 'array') parts.push(String(level.index));
    else if (level.key !== undefined) parts.push(level.key);
  }
  return { path: parts.join('.'), inKey };
}

/**
 * Why a JSON body is refused for not being UTF-8, naming where (`messages.1.content: not valid UTF-8 (byte 42
 * of the body)`), or undefined when it is UTF-8. A decoder would silently put U+FFFD in its place.
 */
export function invalidUtf8Reason(body: Buffer): string | undefined {
  const at = firstInvalidUtf8Byte(body);
  if (at < 0) return undefined;
  const where = `not valid UTF-8 (byte ${at} of the body)`;
  const { path, inKey } = jsonPathAtEnd(body.subarray(0, at).toString('utf8'));
  if (inKey) return `${path ? `${path}: a key is` : 'a key is'} ${where}`;
  return path ? `${path}: ${where}` : `the body is ${where}`;
}

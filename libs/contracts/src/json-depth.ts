const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests arrays/objects deeper than `max` (a scan of the bytes, strings skipped;
 * stops at the first level over). Runs before anything recursive (class-transformer, class-validator)
 * walks a value: found by the fault tests, ~5,000 nested arrays overflowed their stacks — an HTTP 500, and
 * a Kafka record that threw out of the decoder and held its partition forever.
 */
export function jsonNestsDeeperThan(text: Buffer | string, max: number): boolean {
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

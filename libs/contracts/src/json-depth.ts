const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests arrays/objects deeper than `max` (a scan of the bytes, strings skipped;
 * stops at the first level over). Runs before anything recursive (class-transformer, class-validator)
 * walks a value: found by the fault tests, ~5,000 nested arrays overflowed their stacks — an HTTP 500, and
 * a Kafka record that threw out of the decoder and held its partition forever.
 */
export function jsonNestsDeeperThan(text: Buffer | string, max: number): boolean {
  // Most values open fewer brackets in all than the limit (a message: a handful): then none nests deeper, and a
  // native search for them is all it costs.
  if (openingBracketsAtMost(text, max)) return false;
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

/** Whether the text holds at most `max` opening brackets, those in strings included (an upper bound of depth). */
function openingBracketsAtMost(text: Buffer | string, max: number): boolean {
  let count = 0;
  if (typeof text === 'string') {
    for (const bracket of ['[', '{']) {
      for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++count > max) return false;
    }
  } else {
    for (const bracket of [0x5b, 0x7b]) {
      for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++count > max) return false;
    }
  }
  return true;
}

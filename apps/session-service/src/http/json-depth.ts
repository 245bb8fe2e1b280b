const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Deepest nesting of arrays and objects an HTTP JSON body may have (real requests nest a few levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays/objects deeper than `max` (a scan of the bytes, strings skipped;
 * stops at the first level over). Found by the fault fuzz: a body of ~5,000 nested arrays overflowed the
 * stack of the ValidationPipe's recursive walk and answered 500; it must be refused before any recursion.
 */
export function jsonNestsDeeperThan(body: Buffer, max: number): boolean {
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

/** body-parser `verify` hook: 400 (not a stack overflow and a 500) for a body nested deeper than `max`. */
export function refuseDeepJson(max = MAX_JSON_DEPTH) {
  return (_req: unknown, _res: unknown, body: Buffer): void => {
    if (jsonNestsDeeperThan(body, max)) {
      throw Object.assign(new Error(`the JSON body nests deeper than ${max} levels`), {
        status: 400,
        type: 'entity.too.deep',
      });
    }
  };
}

import { isUtf8 } from 'node:buffer';

/**
 * Offset of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or -1 when all of it is
 * well-formed (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no truncated
 * sequence at the end).
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  const cont = (i: number, lo = 0x80, hi = 0xbf) => i < bytes.length && bytes[i]! >= lo && bytes[i]! <= hi;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let next: number;
    if (b <= 0x7f) next = i + 1;
    else if (b >= 0xc2 && b <= 0xdf) next = cont(i + 1) ? i + 2 : -1;
    else if (b >= 0xe0 && b <= 0xef) {
      const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
      next = cont(i + 1, lo, hi) && cont(i + 2) ? i + 3 : -1;
    } else if (b >= 0xf0 && b <= 0xf4) {
      const [lo, hi] = b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      next = cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? i + 4 : -1;
    } else next = -1;
    if (next < 0) return i;
    i = next;
  }
  return -1; // not reached: isUtf8 said otherwise
}

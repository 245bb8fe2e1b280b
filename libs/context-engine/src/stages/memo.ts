import { LRUCache } from 'lru-cache';

/**
 * A bounded memo (least recently used out) of a pure function of a string: the same note is squeezed again at every
 * compaction of a long session, and reading its step lines back (`callOfStepLine`, `toolActivity`, `callOutcome`) was
 * 29 % of the compaction service's CPU on a 10,000-message session. Strings only (immutable; equal strings, equal
 * answers); `T` is never undefined.
 */
export function memoOfString<T extends NonNullable<unknown>>(fn: (s: string) => T, max = 4096): (s: string) => T {
  const cache = new LRUCache<string, T>({ max, memoMethod: (s) => fn(s) });
  return (s: string): T => cache.memo(s);
}

/**
 * A bounded memo of a pure function of a string: the same note is squeezed again at every compaction of a long
 * session, and reading its step lines back (`callOfStepLine`, `toolActivity`, `callOutcome`) was a third of the
 * compaction service's CPU on a 10,000-message session. Cleared whole when full: cheap, and the strings in use come
 * back at once. Strings only (immutable; equal strings, equal answers).
 */
export function memoOfString<T>(fn: (s: string) => T, max = 4096): (s: string) => T {
  const cache = new Map<string, T>();
  return (s: string): T => {
    const hit = cache.get(s);
    if (hit !== undefined || cache.has(s)) return hit as T;
    if (cache.size >= max) cache.clear();
    const value = fn(s);
    cache.set(s, value);
    return value;
  };
}

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data?: T;
  readonly error?: Error;
  readonly loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` whenever `deps` change; a reload keeps the data shown until the new answer arrives (live
 * updates do not flash), and an answer that arrives after a newer request started is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: Error) => mine === generation.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Calls `fn` every `ms` while `on` (and the tab is visible). */
export function useInterval(fn: () => void, ms: number, on = true): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!on) return;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, on]);
}

/** The location hash as a path ("#/s/abc/timeline" → "/s/abc/timeline"). */
export function useHashPath(): string {
  const read = () => decodeURI(location.hash.replace(/^#/, '') || '/');
  const [path, setPath] = useState(read);
  useEffect(() => {
    const on = () => setPath(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return path;
}

export const go = (path: string) => {
  location.hash = `#${path}`;
};

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, request } from './api';

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

/**
 * A session's stats, live: loaded once, then (while `live`) one request held open on `GET …/stats?after=` the
 * next offset (`waitMs`: the service answers as soon as a new message of the session is projected, 504 when
 * none came: asked again), and a plain read every `refreshMs` for what the session stream's offset does not
 * show (a block created or reverted is an event of the block stream). An answer older than the one shown is
 * dropped.
 */
export function useLiveStats<T extends { projectedOffset: string }>(
  base: string,
  live: boolean,
  { waitMs = 20_000, refreshMs = 3_000 } = {},
): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const shown = useRef<{ data?: T; seq: number }>({ seq: -1 });
  const seq = useRef(0);
  const accept = (data: T, mine: number) => {
    const cur = shown.current;
    const offset = Number(data.projectedOffset);
    const curOffset = cur.data ? Number(cur.data.projectedOffset) : -Infinity;
    if (offset > curOffset || (offset === curOffset && mine > cur.seq)) {
      shown.current = { data, seq: mine };
      setState({ data, loading: false });
    }
  };
  const refresh = useCallback(() => {
    const mine = ++seq.current;
    get<T>(`${base}/stats`).then(
      (data) => accept(data, mine),
      (error: Error) => setState((s) => ({ ...s, error, loading: false })),
    );
  }, [base]);
  useEffect(refresh, [refresh]);
  useInterval(refresh, refreshMs, live);
  useEffect(() => {
    if (!live) return;
    const stop = new AbortController();
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    void (async () => {
      while (!stop.signal.aborted) {
        const at = shown.current.data ? Number(shown.current.data.projectedOffset) + 1 : undefined;
        if (at === undefined) {
          await pause(250);
          continue;
        }
        const mine = ++seq.current;
        try {
          const data = await request<T>(`${base}/stats?after=${at}&waitMs=${waitMs}`, { signal: stop.signal });
          accept(data, mine);
        } catch (error) {
          if (stop.signal.aborted) return;
          if (!(error instanceof ApiError && error.status === 504)) await pause(refreshMs); // 504: nothing new yet
        }
      }
    })();
    return () => stop.abort();
  }, [base, live, waitMs, refreshMs]);
  return { ...state, reload: refresh };
}

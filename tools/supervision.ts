/**
 * How `npm start` restarts a service that crashed after it came up: after a delay that doubles with each crash in a
 * row (1 s, 2 s, 4 s … up to 30 s), where a service that stayed up for a minute starts counting again.
 */
export const RESTART_DELAY_MS = { first: 1000, max: 30_000 } as const;
/** A run at least this long ends a series of crashes. */
export const STABLE_RUN_MS = 60_000;

export interface CrashHistory {
  /** Crashes in a row so far, this one included (≥ 1). */
  readonly crashesInARow: number;
}

/** The delay before the restart that follows the `crashesInARow`-th crash in a row. */
export function restartDelayMs({ crashesInARow }: CrashHistory): number {
  return Math.min(RESTART_DELAY_MS.max, RESTART_DELAY_MS.first * 2 ** Math.max(0, crashesInARow - 1));
}

/** Crashes in a row after a run of `ranForMs` that ended in a crash, given `previous` crashes in a row before it. */
export function crashesInARowAfter(previous: number, ranForMs: number): number {
  return ranForMs >= STABLE_RUN_MS ? 1 : previous + 1;
}

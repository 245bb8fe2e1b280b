/** Capped exponential backoff: doubles from `initial` up to `max`. */
export interface Backoff {
  readonly initial: number;
  readonly max: number;
}

/** The delay before retry `attempt` (1-based), with jitter (half to all of the capped delay). */
export function backoffDelay(attempt: number, { initial, max }: Backoff): number {
  return Math.min(max, initial * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

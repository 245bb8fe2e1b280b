/**
 * Seeded randomness for the fault tests: a fixed default seed so CI is repeatable, FAULT_SEED to explore
 * others. Every test prints the seed it ran with.
 */
export const DEFAULT_FAULT_SEED = 20_261_123;

export function faultSeed(): number {
  const raw = process.env.FAULT_SEED;
  if (raw === undefined || raw === '') return DEFAULT_FAULT_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FAULT_SEED must be an integer, got ${raw}`);
  return seed;
}

/** mulberry32: small, fast, good enough to place faults. */
export class SeededRandom {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  /** In [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

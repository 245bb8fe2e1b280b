import fc from 'fast-check';
import { crashesInARowAfter, RESTART_DELAY_MS, restartDelayMs, STABLE_RUN_MS } from '../../tools/supervision';

describe("npm start's restart policy", () => {
  it('waits 1 s after a first crash, doubles with each crash in a row, and never waits more than 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => restartDelayMs({ crashesInARow: n }))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (n) => {
        const now = restartDelayMs({ crashesInARow: n });
        const next = restartDelayMs({ crashesInARow: n + 1 });
        return now >= RESTART_DELAY_MS.first && next >= now && next <= RESTART_DELAY_MS.max;
      }),
    );
  });

  it('a run of a minute ends a series of crashes; a shorter one continues it', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(10 * STABLE_RUN_MS), (previous, ranFor) => {
        const after = crashesInARowAfter(previous, ranFor);
        return ranFor >= STABLE_RUN_MS ? after === 1 : after === previous + 1;
      }),
    );
  });
});

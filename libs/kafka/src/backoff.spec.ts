import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('doubles from initial, is capped at max, and jitters within half to all of it', () => {
    const backoff = { initial: 100, max: 1000 };
    const capped = [100, 200, 400, 800, 1000, 1000];
    capped.forEach((cap, i) => {
      for (let n = 0; n < 50; n++) {
        const d = backoffDelay(i + 1, backoff);
        expect(d).toBeGreaterThanOrEqual(cap / 2);
        expect(d).toBeLessThanOrEqual(cap);
      }
    });
  });
});

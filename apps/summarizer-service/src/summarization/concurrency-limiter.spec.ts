import { ConcurrencyLimiter } from './concurrency-limiter';

describe('ConcurrencyLimiter', () => {
  it('runs at most `limit` tasks at once, in arrival order, and frees slots on failure', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 1) throw new Error('boom');
      return i;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => limiter.run(task(i))));
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(limiter.inFlight).toBe(0);
  });
});

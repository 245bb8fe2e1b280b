import { createRequire } from 'node:module';
import { fixKafkajsIdleLoop } from './kafkajs-idle-fix';

interface Queue {
  pending: Array<{ send: () => void; expectResponse: boolean; correlationId: number; pendingDuration?: number }>;
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  destroy(): void;
}
const RequestQueue = createRequire(__filename)('kafkajs/src/network/requestQueue') as new (
  options: Record<string, unknown>,
) => Queue;
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const queue = () =>
  new RequestQueue({ maxInFlightRequests: null, requestTimeout: 30_000, clientId: 'c', broker: 'b', logger: silent });

describe("kafkajs's request queue, fixed (fixKafkajsIdleLoop)", () => {
  // The spec runs the fix first: an idle queue would otherwise arm a 1 ms timer after every check, forever.
  beforeAll(() => expect(fixKafkajsIdleLoop()).toBe('fixed'));

  it('arms no timer when nothing is pending (an idle connection sleeps)', async () => {
    const q = queue();
    const check = jest.spyOn(q, 'checkPendingRequests');
    q.checkPendingRequests(); // what every answer does
    expect(q.throttleCheckTimeoutId).toBeNull();
    await new Promise((r) => setTimeout(r, 30));
    expect(check).toHaveBeenCalledTimes(1); // not once a millisecond
    q.destroy();
  });

  it('sends a request queued behind a client-side throttle when the throttle ends, not before', async () => {
    const q = queue();
    const send = jest.fn();
    q.throttledUntil = Date.now() + 40;
    q.pending.push({ send, expectResponse: true, correlationId: 1 });
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((r) => setTimeout(r, 15));
    expect(send).not.toHaveBeenCalled();
    await new Promise((r) => setTimeout(r, 60));
    expect(send).toHaveBeenCalledTimes(1);
    expect(q.pending).toHaveLength(0);
    expect(q.throttleCheckTimeoutId).toBeNull(); // and then sleeps again
    q.destroy();
  });

  it('still checks again when the throttle ended a moment ago while a request waits (no request left behind)', async () => {
    const q = queue();
    const send = jest.fn();
    q.throttledUntil = Date.now() - 1;
    // As if it had been queued a moment earlier, under the throttle that has just ended.
    q.pending.push({ send, expectResponse: true, correlationId: 2 });
    (q as unknown as { scheduleCheckPendingRequests(): void }).scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((r) => setTimeout(r, 40));
    expect(send).toHaveBeenCalledTimes(1);
    q.destroy();
  });

  it('is applied once', () => {
    expect(fixKafkajsIdleLoop()).toBe('fixed');
  });
});

/**
 * kafkajs 2.2.4 (the last release) keeps every idle connection busy: its RequestQueue re-arms the check of its
 * pending requests after each check, and when nothing is pending and nothing throttled the delay it computes is
 * negative, so the timer fires again within a millisecond, forever (kafkajs#1556; the fix, kafkajs#1667, is not
 * released). Measured here: each idle service spent 64–66 ms of CPU per second in that loop (`npm start`, no load,
 * `/proc/<pid>/task/*\/stat` over 20 s), and under load the loop's timers are a few per cent of every consumer.
 *
 * `fixKafkajsIdleLoop` replaces that one method on RequestQueue's prototype with the fixed one: with nothing pending
 * there is nothing to check (a request that has to wait is queued with a check of its own, `push`, and every answer
 * checks the queue, `fulfillRequest`); with requests pending the check comes when the client-side throttle ends,
 * or after kafkajs's own 10 ms when it has ended. Applied where our Kafka clients are made (KafkaModule), once; the
 * version check makes an upgrade of kafkajs fail its spec rather than patch code it was not written for.
 */
import { createRequire } from 'node:module';

const FIXED_VERSION = '2.2.4';
/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL. */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

let applied: 'fixed' | 'other-version' | undefined;

/** Idempotent. 'fixed', or 'other-version' (nothing changed) when the installed kafkajs is not 2.2.4. */
export function fixKafkajsIdleLoop(): 'fixed' | 'other-version' {
  if (applied) return applied;
  const require = createRequire(__filename);
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== FIXED_VERSION) return (applied = 'other-version');
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueLike };
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueLike) {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL,
    );
  };
  return (applied = 'fixed');
}

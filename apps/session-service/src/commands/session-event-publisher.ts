import type { AnyEvent } from '@ctxledger/contracts';

/** Where a session's events were appended: their partition and offsets (the last one is the waitToken). */
export interface Appended {
  readonly partition: number;
  readonly offsets: string[];
}

/** Raised before anything is sent when the events would not fit in one Kafka request. */
export { RequestTooLargeError as AppendTooLargeError } from '@ctxledger/kafka';

/**
 * The events were handed to the producer but not acknowledged (no answer within KAFKA_SEND_TIMEOUT_MS, or an
 * error from the broker or the connection): they may be written or not. The producer keeps retrying after the
 * answer, and a broker may have written a batch whose acknowledgement was lost: in a 20 s broker outage 32 of
 * 600 requests answered this way were stored all the same.
 */
export class AppendNotAcknowledgedError extends Error {
  constructor(
    message: string,
    /** Seconds after which a retry is worth it. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The port the write use cases append through: events of ONE session, all or none, in order. Validates every
 * event first and throws ContractViolationError / AppendTooLargeError before sending anything;
 * AppendNotAcknowledgedError when the outcome is unknown. Adapters: KafkaSessionEventPublisher (the service),
 * InMemorySessionEventPublisher (tests).
 */
export interface SessionEventPublisher {
  append(sessionId: string, events: readonly AnyEvent[]): Promise<Appended>;
}

export const SESSION_EVENT_PUBLISHER = Symbol('SessionEventPublisher');

import { encodeEvent, type AnyEvent } from '@ctxledger/contracts';
import { AppendNotAcknowledgedError, type Appended, type SessionEventPublisher } from '../session-event-publisher';

/**
 * The session stream in memory, one partition: appends validate every event as the Kafka adapter does
 * (ContractViolationError before anything is kept), then keep them all with consecutive offsets. `failNext`
 * makes the next append end as one Kafka did not acknowledge (nothing kept).
 */
export class InMemorySessionEventPublisher implements SessionEventPublisher {
  readonly appended: { readonly offset: string; readonly event: AnyEvent }[] = [];
  private failure?: AppendNotAcknowledgedError;

  failNext(retryAfterSeconds = 1): void {
    this.failure = new AppendNotAcknowledgedError(
      'Kafka is unavailable (in-memory publisher told to fail)',
      retryAfterSeconds,
    );
  }

  append(sessionId: string, events: readonly AnyEvent[]): Promise<Appended> {
    try {
      for (const event of events) {
        if (event.sessionId !== sessionId)
          throw new Error(`event of session ${event.sessionId} in an append to ${sessionId}`);
        encodeEvent(event); // throws ContractViolationError
      }
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const failure = this.failure;
    this.failure = undefined;
    if (failure) return Promise.reject(failure);
    const offsets = events.map((event) => {
      const offset = String(this.appended.length);
      this.appended.push({ offset, event });
      return offset;
    });
    return Promise.resolve({ partition: 0, offsets });
  }

  /** The events appended, in order. */
  events(): AnyEvent[] {
    return this.appended.map((a) => a.event);
  }
}

import { Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ContractViolationError, type AnyEvent } from '@ctxledger/contracts';
import { EventProducer, RequestTooLargeError } from '@ctxledger/kafka';

export interface Appended {
  readonly partition: number;
  readonly offsets: string[];
}

/** Raised before anything is sent when the events would not fit in one Kafka request. */
export { RequestTooLargeError as AppendTooLargeError } from '@ctxledger/kafka';

/**
 * Appends events of ONE session to the session stream in ONE produce request: one key, one partition, one
 * record batch — the broker takes all of it or none. Idempotent producer (no duplicates on its own retries).
 * When Kafka does not answer within KAFKA_SEND_TIMEOUT_MS the caller gets 503: the client retries with the
 * same Idempotency-Key / clientMessageIds, so a late success of the first try is not appended twice.
 */
@Injectable()
export class SessionEventPublisher {
  private readonly logger = new Logger(SessionEventPublisher.name);
  private readonly timeoutMs: number;

  constructor(
    private readonly producer: EventProducer,
    config: ConfigService,
  ) {
    this.timeoutMs = config.getOrThrow<number>('KAFKA_SEND_TIMEOUT_MS');
  }

  /** Validates every event first; throws ContractViolationError / AppendTooLargeError before sending. */
  async append(sessionId: string, events: readonly AnyEvent[]): Promise<Appended> {
    for (const event of events) {
      if (event.sessionId !== sessionId)
        throw new Error(`event of session ${event.sessionId} in an append to ${sessionId}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const sent = this.producer.send(
      events.map((event) => ({ stream: 'sessionEvents' as const, event })),
      { timeoutMs: this.timeoutMs },
    );
    try {
      const timeout = new Promise<never>((_, fail) => {
        timer = setTimeout(
          () => fail(new Error(`Kafka did not acknowledge within ${this.timeoutMs} ms`)),
          this.timeoutMs,
        );
      });
      sent.catch(() => undefined); // a late failure after the timeout answered is only logged below
      const [meta] = await Promise.race([sent, timeout]);
      const base = BigInt(meta!.baseOffset!);
      return { partition: meta!.partition, offsets: events.map((_, i) => (base + BigInt(i)).toString()) };
    } catch (error) {
      if (error instanceof RequestTooLargeError || error instanceof ContractViolationError) throw error;
      this.logger.warn(`append to session ${sessionId} failed: ${(error as Error).message}`);
      throw new ServiceUnavailableException(
        'Kafka is unavailable: the events were not acknowledged. Retry; with the same Idempotency-Key or clientMessageIds a late success is not appended twice',
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

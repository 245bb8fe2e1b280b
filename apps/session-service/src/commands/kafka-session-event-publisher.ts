import { Inject, Injectable, Logger } from '@nestjs/common';
import { ContractViolationError, type AnyEvent } from '@ctxledger/contracts';
import { EventProducer, RequestTooLargeError } from '@ctxledger/kafka';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';
import { AppendNotAcknowledgedError, type Appended, type SessionEventPublisher } from './session-event-publisher';

/**
 * The session-event publisher on Kafka. Appends events of ONE session to the session stream in ONE produce request: one key, one partition, one
 * record batch — the broker takes all of it or none. Idempotent producer (no duplicates on its own retries).
 * When Kafka does not acknowledge within KAFKA_SEND_TIMEOUT_MS, the outcome is unknown (AppendNotAcknowledgedError):
 * the client retries with the same Idempotency-Key / clientMessageIds, so a late success of the first try is
 * not appended twice.
 */
@Injectable()
export class KafkaSessionEventPublisher implements SessionEventPublisher {
  private readonly logger = new Logger(KafkaSessionEventPublisher.name);
  private readonly timeoutMs: number;

  constructor(
    private readonly producer: EventProducer,
    @Inject(SERVICE_ENV) env: SessionServiceEnv,
  ) {
    this.timeoutMs = env.KAFKA_SEND_TIMEOUT_MS;
  }

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
      this.logger.warn(`append to session ${sessionId} not acknowledged: ${(error as Error).message}`);
      throw new AppendNotAcknowledgedError(
        `Kafka is unavailable: the events were not acknowledged within ${this.timeoutMs} ms (${(error as Error).message}); ` +
          'they may have been written or not',
        Math.max(1, Math.ceil(this.timeoutMs / 1000)),
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

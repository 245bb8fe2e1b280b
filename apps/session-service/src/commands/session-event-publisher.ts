import {
  Inject,
  Injectable,
  Logger,
  ServiceUnavailableException,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Kafka, Producer } from 'kafkajs';
import { encodeEvent, LIMITS, type AnyEvent } from '@ctxledger/contracts';
import { KAFKA_CLIENT, KAFKA_SETTINGS, type KafkaSettings } from '@ctxledger/kafka';

export interface Appended {
  readonly partition: number;
  readonly offsets: string[];
}

/** Raised before anything is sent when the events would not fit in one Kafka request. */
export class AppendTooLargeError extends Error {}

/**
 * Appends events of ONE session to the session stream in ONE produce request: one key, one partition, one
 * record batch — the broker takes all of it or none. Idempotent producer (no duplicates on its own retries).
 * When Kafka does not answer within KAFKA_SEND_TIMEOUT_MS the caller gets 503: the client retries with the
 * same Idempotency-Key / clientMessageIds, so a late success of the first try is not appended twice.
 */
@Injectable()
export class SessionEventPublisher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionEventPublisher.name);
  private readonly producer: Producer;
  private readonly timeoutMs: number;

  constructor(
    @Inject(KAFKA_CLIENT) kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
    config: ConfigService,
  ) {
    this.timeoutMs = config.getOrThrow<number>('KAFKA_SEND_TIMEOUT_MS');
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
  }

  async onModuleInit(): Promise<void> {
    await this.producer.connect();
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.disconnect();
  }

  /** Encodes (validates) every event first; throws ContractViolationError / AppendTooLargeError before sending. */
  async append(sessionId: string, events: readonly AnyEvent[]): Promise<Appended> {
    const messages = events.map((event) => {
      if (event.sessionId !== sessionId)
        throw new Error(`event of session ${event.sessionId} in an append to ${sessionId}`);
      return { key: sessionId, value: encodeEvent(event) };
    });
    const bytes = messages.reduce((n, m) => n + Buffer.byteLength(m.value) + Buffer.byteLength(m.key), 0);
    if (bytes > LIMITS.maxEventBytes) {
      throw new AppendTooLargeError(
        `the request's events take ${bytes} bytes, over the ${LIMITS.maxEventBytes} bytes one Kafka request may carry; send fewer messages per request`,
      );
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, fail) => {
        timer = setTimeout(
          () => fail(new Error(`Kafka did not acknowledge within ${this.timeoutMs} ms`)),
          this.timeoutMs,
        );
      });
      const sent = this.producer.send({
        topic: this.settings.topics.sessionEvents,
        acks: -1,
        timeout: this.timeoutMs,
        messages,
      });
      sent.catch(() => undefined); // a late failure after the timeout answered is only logged below
      const [meta] = await Promise.race([sent, timeout]);
      const base = BigInt(meta!.baseOffset!);
      return { partition: meta!.partition, offsets: messages.map((_, i) => (base + BigInt(i)).toString()) };
    } catch (error) {
      this.logger.warn(`append to session ${sessionId} failed: ${(error as Error).message}`);
      throw new ServiceUnavailableException(
        'Kafka is unavailable: the events were not acknowledged. Retry; with the same Idempotency-Key or clientMessageIds a late success is not appended twice',
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

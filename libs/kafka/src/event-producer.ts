import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Kafka, Message, Producer, RecordMetadata } from 'kafkajs';
import { encodeEvent, LIMITS, type AnyEvent, type StreamName } from '@ctxledger/contracts';
import { correlationHeaders } from '@ctxledger/observability';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import type { KafkaSettings } from './kafka-settings';
import { producerConfig } from './producer-config';

/** Raised before anything is sent when the records would not fit in one Kafka request. */
export class RequestTooLargeError extends Error {}

export interface OutgoingRecord {
  readonly stream: StreamName;
  readonly event: AnyEvent;
}

/**
 * The one producer of a service (its settings and why: producer-config.ts). Every event is validated against its
 * contract before anything is sent, and keyed by its session id so a session stays on one partition.
 */
@Injectable()
export class EventProducer implements OnModuleInit, OnModuleDestroy {
  private readonly producer: Producer;

  constructor(
    @Inject(KAFKA_CLIENT) kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
  ) {
    this.producer = kafka.producer(
      producerConfig({
        // Bounded, so a send through an outage fails in about a second instead of hanging (the caller answers 503
        // and the client retries with its Idempotency-Key).
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      }),
    );
  }

  async onModuleInit(): Promise<void> {
    await this.producer.connect();
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.disconnect();
  }

  /**
   * Sends the records in one request (grouped by topic). Throws before sending: ContractViolationError when
   * one breaks its contract, RequestTooLargeError over the size limit; afterwards kafkajs' error when the
   * broker does not take them.
   */
  async send(records: readonly OutgoingRecord[], options: { timeoutMs?: number } = {}): Promise<RecordMetadata[]> {
    if (records.length === 0) return [];
    const byTopic = new Map<string, Message[]>();
    // The correlation id of the request or record being handled travels with every event it produces.
    const headers = correlationHeaders();
    const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
    let bytes = 0;
    for (const { stream, event } of records) {
      const topic = this.settings.topics[stream];
      const messages = byTopic.get(topic) ?? [];
      const value = encodeEvent(event);
      bytes += Buffer.byteLength(value) + Buffer.byteLength(event.sessionId) + headerBytes;
      messages.push({ key: event.sessionId, value, headers });
      byTopic.set(topic, messages);
    }
    if (bytes > LIMITS.maxEventBytes) {
      throw new RequestTooLargeError(
        `the events take ${bytes} bytes, over the ${LIMITS.maxEventBytes} bytes one Kafka request may carry; send fewer at once`,
      );
    }
    return this.producer.sendBatch({
      acks: -1,
      ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }
}

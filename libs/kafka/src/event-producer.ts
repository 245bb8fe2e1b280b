import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Kafka, Message, Producer, RecordMetadata } from 'kafkajs';
import { encodeEvent, LIMITS, type AnyEvent, type StreamName } from '@ctxledger/contracts';
import { CORRELATION_HEADER, correlationHeaders } from '@ctxledger/observability';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import type { KafkaSettings } from './kafka-settings';
import { producerConfig } from './producer-config';

/** Raised before anything is sent when the records would not fit in one Kafka request. */
export class RequestTooLargeError extends Error {}

export interface OutgoingRecord {
  readonly stream: StreamName;
  readonly event: AnyEvent;
  /** The correlation id its record carries; by default the current one (of the request or record being handled). */
  readonly correlationId?: string;
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
    const encoded = this.encode(records);
    const bytes = encoded.reduce((n, r) => n + r.bytes, 0);
    if (bytes > LIMITS.maxEventBytes) {
      throw new RequestTooLargeError(
        `the events take ${bytes} bytes, over the ${LIMITS.maxEventBytes} bytes one Kafka request may carry; send fewer at once`,
      );
    }
    return this.sendEncoded(encoded, options);
  }

  /**
   * Sends any number of records, in order: in one request when they fit in one, else in consecutive requests of
   * at most the size limit each (the next only once the previous is acknowledged). Checks every record against
   * its contract before anything is sent. A failure after the first request leaves the earlier ones sent: a
   * caller that retries sends them again (consumers recognize events by their ids).
   */
  async sendAll(records: readonly OutgoingRecord[], options: { timeoutMs?: number } = {}): Promise<RecordMetadata[]> {
    if (records.length === 0) return [];
    const encoded = this.encode(records);
    const sent: RecordMetadata[] = [];
    for (let start = 0; start < encoded.length;) {
      let end = start + 1;
      let bytes = encoded[start]!.bytes;
      while (end < encoded.length && bytes + encoded[end]!.bytes <= LIMITS.maxEventBytes)
        bytes += encoded[end++]!.bytes;
      sent.push(...(await this.sendEncoded(encoded.slice(start, end), options)));
      start = end;
    }
    return sent;
  }

  private encode(records: readonly OutgoingRecord[]): EncodedRecord[] {
    // The correlation id of the request or record being handled travels with every event it produces.
    const current = correlationHeaders();
    return records.map(({ stream, event, correlationId }) => {
      const headers = correlationId === undefined ? current : { [CORRELATION_HEADER]: correlationId };
      const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
      const value = encodeEvent(event);
      const bytes = Buffer.byteLength(value) + Buffer.byteLength(event.sessionId) + headerBytes;
      return { topic: this.settings.topics[stream], bytes, message: { key: event.sessionId, value, headers } };
    });
  }

  private sendEncoded(encoded: readonly EncodedRecord[], options: { timeoutMs?: number }): Promise<RecordMetadata[]> {
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of encoded) {
      const messages = byTopic.get(topic);
      if (messages) messages.push(message);
      else byTopic.set(topic, [message]);
    }
    return this.producer.sendBatch({
      acks: -1,
      ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }
}

interface EncodedRecord {
  readonly topic: string;
  readonly bytes: number;
  readonly message: Message;
}

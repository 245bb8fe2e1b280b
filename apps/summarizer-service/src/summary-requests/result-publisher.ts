import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Kafka, Producer } from 'kafkajs';
import { createEvent, encodeEvent, type AnyEvent, type EventEnvelope } from '@ctxledger/contracts';
import { KAFKA_CLIENT, KAFKA_SETTINGS, type KafkaSettings } from '@ctxledger/kafka';
import type { StoredSummary } from './summary-store';

export const RESULT_PUBLISHER = Symbol('RESULT_PUBLISHER');

/** Publishes a stored result on the session stream, keyed by session id. */
export interface ResultPublisher {
  publish(result: StoredSummary, request: EventEnvelope<'summary.requested'>): Promise<void>;
}

/**
 * The event id is deterministic from the request id and the attempt, so a republished result (after a crash
 * between send and commit) is recognizable as the same event by every consumer.
 */
export function resultEventId(result: Pick<StoredSummary, 'requestId' | 'attempt'>): string {
  return `summary:${result.requestId}#${result.attempt}`;
}

export function resultEvent(result: StoredSummary, request: EventEnvelope<'summary.requested'>): AnyEvent {
  const meta = {
    tenant: request.tenant,
    eventId: resultEventId(result),
    causationId: request.eventId,
    correlationId: request.correlationId ?? request.eventId,
    time: result.createdAt.toISOString(),
  };
  if (result.outcome === 'completed') {
    return createEvent(
      'summary.completed',
      result.sessionId,
      {
        requestId: result.requestId,
        summary: result.summary ?? '',
        provider: result.provider,
        ...(result.model !== undefined && { model: result.model }),
        ...(result.inputTokens !== undefined && { inputTokens: result.inputTokens }),
        ...(result.outputTokens !== undefined && { outputTokens: result.outputTokens }),
      },
      meta,
    );
  }
  return createEvent(
    'summary.failed',
    result.sessionId,
    { requestId: result.requestId, reason: result.reason ?? 'unknown', retryable: result.retryable ?? false },
    meta,
  );
}

@Injectable()
export class KafkaResultPublisher implements ResultPublisher, OnModuleInit, OnModuleDestroy {
  private readonly producer: Producer;

  constructor(
    @Inject(KAFKA_CLIENT) kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  }

  async onModuleInit(): Promise<void> {
    await this.producer.connect();
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.disconnect();
  }

  async publish(result: StoredSummary, request: EventEnvelope<'summary.requested'>): Promise<void> {
    const event = resultEvent(result, request);
    await this.producer.send({
      topic: this.settings.topics.sessionEvents,
      messages: [{ key: event.sessionId, value: encodeEvent(event) }],
    });
  }
}

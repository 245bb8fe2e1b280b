import { Injectable } from '@nestjs/common';
import { createEvent, type AnyEvent, type EventEnvelope } from '@ctxledger/contracts';
import { EventProducer } from '@ctxledger/kafka';
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
export class KafkaResultPublisher implements ResultPublisher {
  constructor(private readonly producer: EventProducer) {}

  async publish(result: StoredSummary, request: EventEnvelope<'summary.requested'>): Promise<void> {
    await this.producer.send([{ stream: 'sessionEvents', event: resultEvent(result, request) }]);
  }
}

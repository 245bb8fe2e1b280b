import type { Logger } from '@nestjs/common';
import type { KafkaMessage, Producer } from 'kafkajs';
import { createEvent, encodeEvent, ID_PATTERN, LIMITS, type EventEnvelope } from '@ctxledger/contracts';
import { CORRELATION_HEADER, runWithCorrelation, type Correlation } from '@ctxledger/observability';

type DeadLetter = EventEnvelope<'event.dead-lettered'>;

/**
 * The dead-letter event of a refused record, encoded, with the record's value whole as `payload` when the event
 * fits in one record (LIMITS.maxEventBytes, under the broker's default max.message.bytes of 1,048,588 that every
 * topic, the dead-letter one included, is created with). A value the event cannot carry whole (one near the limit,
 * or one JSON escaping inflates: quotes, backslashes, control characters) is cut to the longest beginning that fits,
 * and `payloadCutFromBytes` gives its whole size; the record itself stays at its source coordinates.
 */
export function encodeDeadLetter(event: DeadLetter, value: Buffer | null): string {
  const text = value?.toString() ?? '';
  const whole: DeadLetter = { ...event, data: { ...event.data, payload: text } };
  if (text.length <= LIMITS.maxEventBytes && Buffer.byteLength(JSON.stringify(whole)) <= LIMITS.maxEventBytes) {
    return encodeEvent(whole);
  }
  const cut = (payload: string): DeadLetter => ({
    ...event,
    data: { ...event.data, payload, payloadCutFromBytes: value?.length ?? 0 },
  });
  const room = LIMITS.maxEventBytes - Buffer.byteLength(JSON.stringify(cut('')));
  // The longest beginning whose JSON string (without its quotes) fits the room.
  let [fits, over] = [0, Math.min(text.length, LIMITS.maxEventBytes) + 1];
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (Buffer.byteLength(JSON.stringify(text.slice(0, mid))) - 2 <= room) fits = mid;
    else over = mid;
  }
  // Never end on the first half of a surrogate pair.
  const code = text.charCodeAt(fits - 1);
  if (fits > 0 && code >= 0xd800 && code <= 0xdbff) fits--;
  return encodeEvent(cut(text.slice(0, fits)));
}

/**
 * Publishes what a consumer could never process to the dead-letter topic, with the reason and the record whole
 * (encodeDeadLetter). Event ids are deterministic per consumer and record, so a redelivery does not double them.
 */
export class DeadLetterPublisher {
  constructor(
    private readonly producer: () => Producer,
    private readonly deadLetterTopic: string,
    /** Names the consumer in the events. */
    private readonly consumerName: string,
    private readonly logger: Logger,
  ) {}

  async publish(
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: string,
    correlation: Correlation,
  ): Promise<void> {
    const key = message.key?.toString();
    const sessionId = key && ID_PATTERN.test(key) && key.length <= 200 ? key : 'unknown';
    const event = createEvent('event.dead-lettered', sessionId, {
      sourceTopic: topic,
      partition,
      offset: message.offset,
      ...(key !== undefined && { key: key.slice(0, 1000) }),
      reason: reason.slice(0, 2000),
      consumer: this.consumerName,
      payload: '', // the value, whole if the event can carry it (encodeDeadLetter)
    });
    const eventId = `dlq:${this.consumerName}:${topic}/${partition}/${message.offset}`;
    await this.producer().send({
      topic: this.deadLetterTopic,
      messages: [
        {
          key: sessionId,
          value: encodeDeadLetter({ ...event, eventId }, message.value),
          headers: { [CORRELATION_HEADER]: correlation.correlationId },
        },
      ],
    });
    runWithCorrelation(correlation, () =>
      this.logger.warn(`dead-lettered ${topic}[${partition}]@${message.offset}: ${reason}`),
    );
  }
}

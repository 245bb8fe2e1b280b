import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { AnyEvent } from '@ctxledger/contracts';
import { testStack, unique } from './stack-settings';

export const testKafka = (clientId = 'test') =>
  new Kafka({ clientId, brokers: testStack().brokers, logLevel: logLevel.NOTHING });

/**
 * How long a test's reader lets the broker hold a fetch that finds nothing new. kafkajs's `disconnect()` waits for
 * the fetch in flight, which a broker holds this long when there is nothing to read: with kafkajs's default (5 s)
 * every reader a test stopped cost it 5 s (`fault-cluster`'s two `readTopic`s, 10 of its 62 s).
 */
const READER_MAX_WAIT_MS = 100;

/** A consumer of a group of its own (`unique(name)`) that a test reads with and stops at once. */
export const testConsumer = (kafka: Kafka, name: string): Consumer =>
  kafka.consumer({ groupId: unique(name), maxWaitTimeInMs: READER_MAX_WAIT_MS });

/**
 * Collects every event of a topic (from the beginning) in arrival order; `until` waits for a condition. With
 * `tolerant`, for topics with poison on them, records that are not JSON objects with a `type` are skipped.
 */
export class TopicCollector {
  readonly events: AnyEvent[] = [];
  private consumer?: Consumer;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly options: { tolerant?: boolean } = {},
  ) {}

  async start(): Promise<this> {
    this.consumer = testConsumer(this.kafka, 'collector');
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        const event = this.options.tolerant ? parseEvent(message.value) : JSON.parse(message.value!.toString());
        if (event) this.events.push(event);
      },
    });
    return this;
  }

  async until(condition: (events: AnyEvent[]) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(this.events)) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what} on ${this.topic} (${this.events.length} events)`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

function parseEvent(value: Buffer | null): AnyEvent | undefined {
  try {
    const parsed = JSON.parse(value?.toString() ?? 'null') as unknown;
    return parsed && typeof parsed === 'object' && 'type' in parsed ? (parsed as AnyEvent) : undefined;
  } catch {
    return undefined; // poison: not the collector's to judge
  }
}

/** Reads a topic from the beginning up to its current end (a snapshot of the log). */
export async function readTopic(
  kafka: Kafka,
  topic: string,
): Promise<Array<{ partition: number; offset: string; event: AnyEvent }>> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((e) => e.high !== e.low).map((e) => [e.partition, BigInt(e.high)]));
  const out: Array<{ partition: number; offset: string; event: AnyEvent }> = [];
  if (remaining.size === 0) return out;
  const consumer = testConsumer(kafka, 'reader');
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((done) => {
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        out.push({ partition, offset: message.offset, event: JSON.parse(message.value!.toString()) });
        if (BigInt(message.offset) + 1n >= (remaining.get(partition) ?? 0n)) remaining.delete(partition);
        if (remaining.size === 0) done();
      },
    });
  });
  await consumer.disconnect();
  return out.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}

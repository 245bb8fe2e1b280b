import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Kafka, logLevel, type Consumer, type IHeaders } from 'kafkajs';
import { allTopics, createEvent, topicNames, type AnyEvent } from '@ctxledger/contracts';
import {
  batchPattern,
  ensureTopics,
  EventProducer,
  KafkaEventTransport,
  type KafkaEventBatch,
  type KafkaSettings,
} from '@ctxledger/kafka';
import { CORRELATION_HEADER, currentCorrelation, runWithCorrelation, type Correlation } from '@ctxledger/observability';
import { testConsumer } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';

/**
 * The correlation id through the Kafka plumbing itself, on the real broker: EventProducer puts the current id in
 * a record header, KafkaEventTransport reads it back (or derives one) and runs the handler with it, so what the
 * handler produces carries it on; dead letters carry the id of the record they copy.
 */

const prefix = unique('corrkafka').replace(/-/g, '_');
const topics = topicNames(prefix);
const kafka = new Kafka({ clientId: 'correlation-test', brokers: testStack().brokers, logLevel: logLevel.NOTHING });
const settings = { brokers: testStack().brokers, clientId: 'correlation-test', topics, topicPrefix: prefix };
const producer = new EventProducer(kafka, settings as KafkaSettings);

/** What the handlers saw, by message content / block id. */
const seen = new Map<string, Correlation | undefined>();
const batches: Array<{ correlationIds?: readonly string[]; current?: Correlation; blockIds: string[] }> = [];

@Controller()
class Handlers {
  /** Records its correlation and produces a block event from inside the handler (as the compaction service does). */
  @EventPattern('message.appended')
  async onMessage(@Payload() event: AnyEvent): Promise<void> {
    if (event.type !== 'message.appended') return;
    seen.set(event.data.content, currentCorrelation() && { ...currentCorrelation()! });
    await new Promise((r) => setTimeout(r, 5)); // the context survives awaits and timers
    await producer.send([
      {
        stream: 'blocks',
        event: createEvent('block.reverted', event.sessionId, { blockId: `b-${event.data.content}` }),
      },
    ]);
  }

  @EventPattern(batchPattern('blocks'))
  onBlocks(@Payload() batch: KafkaEventBatch) {
    const current = currentCorrelation();
    batches.push({
      correlationIds: batch.correlationIds,
      ...(current && { current: { ...current } }),
      blockIds: batch.events.map((e) => (e.type === 'block.reverted' ? e.data.blockId : '?')),
    });
    return {};
  }
}

@Module({ controllers: [Handlers] })
class TestModule {}

interface Consumed {
  topic: string;
  partition: number;
  offset: string;
  headers: IHeaders;
  value: string;
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const header = (r: Consumed | undefined) => r?.headers[CORRELATION_HEADER]?.toString();

describe('correlation ids through EventProducer and KafkaEventTransport (real broker)', () => {
  let app: INestMicroservice | undefined;
  let reader: Consumer;
  const records: Consumed[] = [];
  const raw = kafka.producer();

  beforeAll(async () => {
    await ensureTopics(kafka, allTopics(prefix), 2);
    await producer.onModuleInit();
    await raw.connect();
    reader = testConsumer(kafka, 'correlation-reader');
    await reader.connect();
    await reader.subscribe({ topics: [topics.blocks, topics.deadLetter, topics.sessionEvents], fromBeginning: true });
    await reader.run({
      eachMessage: async ({ topic, partition, message }) =>
        void records.push({
          topic,
          partition,
          offset: message.offset,
          headers: message.headers ?? {},
          value: message.value?.toString() ?? '',
        }),
    });
    app = await NestFactory.createMicroservice(TestModule, {
      strategy: new KafkaEventTransport({
        kafka,
        topics,
        streams: ['sessionEvents', 'blocks'],
        groupId: unique('correlation-group'),
        consumerName: 'correlation-test',
        retryBackoffMs: { initial: 20, max: 100 },
      }),
      logger: false,
    });
    await app.listen();
  });

  afterAll(async () => {
    await app?.close();
    await reader.disconnect();
    await raw.disconnect();
    await producer.onModuleDestroy();
  });

  const blockRecord = (blockId: string) =>
    records.find((r) => r.topic === topics.blocks && r.value.includes(`"blockId":"${blockId}"`));
  const batchOf = (blockId: string) => batches.find((b) => b.blockIds.includes(blockId));

  it('an event produced inside a correlation carries it as a header; the handler runs with it and passes it on', async () => {
    await runWithCorrelation({ correlationId: 'corr-lib-1' }, () =>
      producer.send([
        {
          stream: 'sessionEvents',
          event: createEvent('message.appended', 'sess-a', { role: 'user', content: 'first' }),
        },
      ]),
    );
    const sent = await until(
      () => records.find((r) => r.topic === topics.sessionEvents && r.value.includes('"content":"first"')),
      'the produced record',
    );
    expect(header(sent)).toBe('corr-lib-1');

    const handled = await until(() => (seen.has('first') ? seen.get('first') : undefined), 'the handler');
    expect(handled).toEqual({ correlationId: 'corr-lib-1', sessionId: 'sess-a' });
    expect(header(await until(() => blockRecord('b-first'), 'the block event produced by the handler'))).toBe(
      'corr-lib-1',
    );
    // The batch handler of the blocks stream: one correlation in the batch → it runs with it.
    const batch = await until(() => batchOf('b-first'), 'the batch handler');
    expect(batch.correlationIds).toEqual(['corr-lib-1']);
    expect(batch.current).toEqual({ correlationId: 'corr-lib-1', sessionId: 'sess-a' });
  });

  it('outside any correlation the producer adds no header', async () => {
    await producer.send([
      { stream: 'sessionEvents', event: createEvent('message.appended', 'sess-b', { role: 'user', content: 'bare' }) },
    ]);
    const sent = await until(
      () => records.find((r) => r.topic === topics.sessionEvents && r.value.includes('"content":"bare"')),
      'the produced record',
    );
    expect(sent.headers[CORRELATION_HEADER]).toBeUndefined();
  });

  it('a raw record without the header (no eventId either) gets its topic/partition/offset as id, carried on', async () => {
    const value = JSON.stringify({
      type: 'message.appended',
      sessionId: 'sess-c',
      data: { role: 'user', content: 'raw' },
    });
    const [meta] = await raw.send({ topic: topics.sessionEvents, messages: [{ key: 'sess-c', value }] });
    const derived = `${topics.sessionEvents}/${meta!.partition}/${meta!.baseOffset}`;
    const handled = await until(() => (seen.has('raw') ? seen.get('raw') : undefined), 'the handler');
    expect(handled).toEqual({ correlationId: derived, sessionId: 'sess-c' });
    expect(header(await until(() => blockRecord('b-raw'), 'the block event'))).toBe(derived);
  });

  it('a raw record with its own eventId and an unusable header: the eventId is the id', async () => {
    const value = JSON.stringify({
      type: 'message.appended',
      eventId: 'evt-raw-2',
      sessionId: 'sess-d',
      data: { role: 'user', content: 'raw-2' },
    });
    await raw.send({
      topic: topics.sessionEvents,
      messages: [{ key: 'sess-d', value, headers: { [CORRELATION_HEADER]: 'not a safe id\n{"level":"error"}' } }],
    });
    const handled = await until(() => (seen.has('raw-2') ? seen.get('raw-2') : undefined), 'the handler');
    expect(handled).toEqual({ correlationId: 'evt-raw-2', sessionId: 'sess-d' });
    expect(header(await until(() => blockRecord('b-raw-2'), 'the block event'))).toBe('evt-raw-2');
  });

  it('a dead-lettered record: the dead letter carries the correlation id of the record it copies', async () => {
    await raw.send({
      topic: topics.sessionEvents,
      messages: [{ key: 'sess-e', value: 'not json', headers: { [CORRELATION_HEADER]: 'corr-dead-1' } }],
    });
    const [meta] = await raw.send({ topic: topics.sessionEvents, messages: [{ key: 'sess-e', value: 'still not' }] });
    const dead = (marker: string) =>
      records.find((r) => r.topic === topics.deadLetter && r.value.includes(`"payload":"${marker}"`));
    expect(header(await until(() => dead('not json'), 'the first dead letter'))).toBe('corr-dead-1');
    expect(header(await until(() => dead('still not'), 'the second dead letter'))).toBe(
      `${topics.sessionEvents}/${meta!.partition}/${meta!.baseOffset}`,
    );
  });
});

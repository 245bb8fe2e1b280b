import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern } from '@nestjs/microservices';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics, topicNames, type AnyEvent } from '@ctxledger/contracts';
import { ensureTopics, KafkaEventTransport } from '@ctxledger/kafka';
import { TopicCollector } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';

@Controller()
class Handlers {
  @EventPattern('message.appended')
  onMessage(): void {}
}

@Module({ controllers: [Handlers] })
class TestModule {}

type DeadLettered = Extract<AnyEvent, { type: 'event.dead-lettered' }>;

describe('a dead letter carries the refused record whole, up to what one record may hold', () => {
  const prefix = unique('dlq').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const kafka = new Kafka({ clientId: 'dead-letter-test', brokers: testStack().brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  let app: INestMicroservice;
  let dlq: TopicCollector;

  beforeAll(async () => {
    await ensureTopics(kafka, allTopics(prefix), 2);
    await producer.connect();
    dlq = await new TopicCollector(kafka, topics.deadLetter).start();
    app = await NestFactory.createMicroservice(TestModule, {
      strategy: new KafkaEventTransport({
        kafka,
        topics,
        streams: ['sessionEvents'],
        groupId: unique('dlq-group'),
        consumerName: 'dead-letter-test',
      }),
      logger: false,
    });
    await app.listen();
  });

  afterAll(async () => {
    await app?.close();
    await dlq?.stop();
    await producer.disconnect();
  });

  it('keeps a 900,000-byte value whole, and cuts one JSON escaping inflates past the limit, saying where the rest is', async () => {
    const large = `not json ${'x'.repeat(900_000 - 9)}`;
    const escaped = `"\\`.repeat(300_000); // 600,000 bytes; 1,200,000 once escaped into the event
    const [first] = await producer.send({ topic: topics.sessionEvents, messages: [{ key: 's1', value: large }] });
    const [second] = await producer.send({ topic: topics.sessionEvents, messages: [{ key: 's1', value: escaped }] });
    await dlq.until((events) => events.length >= 2, 'two dead letters', 60_000);
    const [whole, cut] = dlq.events as DeadLettered[];

    expect(whole!.data).toMatchObject({ sourceTopic: topics.sessionEvents, offset: first!.baseOffset });
    expect(whole!.data.reason).toMatch(/not JSON/);
    expect(whole!.data.payload.length).toBe(large.length);
    expect(whole!.data.payload === large).toBe(true);
    expect(whole!.data.payloadCutFromBytes).toBeUndefined();

    expect(cut!.data).toMatchObject({
      sourceTopic: topics.sessionEvents,
      partition: second!.partition,
      offset: second!.baseOffset,
      payloadCutFromBytes: 600_000,
    });
    expect(escaped.startsWith(cut!.data.payload)).toBe(true);
    expect(cut!.data.payload.length).toBeGreaterThan(490_000);
  });
});

import { execFileSync } from 'node:child_process';
import { ConfigResourceTypes, Kafka, logLevel, type Consumer, type EachMessagePayload } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { ensureTopics } from '@ctxledger/kafka';
import { testConsumer } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';

describe('local Kafka broker (smoke)', () => {
  const kafka = new Kafka({ clientId: 'smoke-test', brokers: testStack().brokers, logLevel: logLevel.NOTHING });
  const consumers: Consumer[] = [];

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.disconnect()));
  });

  async function createTopic(partitions = 3): Promise<string> {
    const topic = unique('smoke');
    const admin = kafka.admin();
    await admin.connect();
    try {
      const created = await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
      });
      expect(created).toBe(true);
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(metadata.topics[0].partitions).toHaveLength(partitions);
    } finally {
      await admin.disconnect();
    }
    return topic;
  }

  /** Consumes `topic` from the beginning with a fresh group until `count` messages arrived. */
  async function consume(topic: string, count: number): Promise<EachMessagePayload[]> {
    const consumer = testConsumer(kafka, 'smoke-group');
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received: EachMessagePayload[] = [];
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`only ${received.length}/${count} messages within 30 s`)), 30_000);
      void consumer.run({
        eachMessage: async (payload) => {
          received.push(payload);
          if (received.length >= count) {
            clearTimeout(timer);
            done();
          }
        },
      });
    });
    return received;
  }

  it('creates a topic with the admin client and round-trips messages through a consumer group', async () => {
    const topic = await createTopic();
    const producer = kafka.producer();
    await producer.connect();
    const sent = Array.from({ length: 20 }, (_, i) => ({ key: `session-${i % 4}`, value: JSON.stringify({ i }) }));
    await producer.send({ topic, messages: sent });
    await producer.disconnect();

    const received = await consume(topic, sent.length);
    const values = received.map((p) => JSON.parse(p.message.value!.toString()).i).sort((a, b) => a - b);
    expect(values).toEqual(sent.map((_, i) => i));
    // Same key → same partition, and order within a key is kept.
    for (const key of ['session-0', 'session-1', 'session-2', 'session-3']) {
      const ofKey = received.filter((p) => p.message.key?.toString() === key);
      expect(new Set(ofKey.map((p) => p.partition)).size).toBe(1);
      const order = ofKey.map((p) => JSON.parse(p.message.value!.toString()).i);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it('consumes with kafkajs a message that kcat produced', async () => {
    const topic = await createTopic(1);
    const body = JSON.stringify({ type: 'message.appended', data: { role: 'user', content: 'hello from kcat' } });
    execFileSync('kcat', ['-P', '-b', testStack().brokers[0], '-t', topic, '-k', 'session-kcat'], {
      input: `${body}\n`,
    });

    const [payload] = await consume(topic, 1);
    expect(payload.message.key?.toString()).toBe('session-kcat');
    expect(JSON.parse(payload.message.value!.toString())).toEqual(JSON.parse(body));
  });

  it('creates the topics the services need with infinite retention (they are the system of record)', async () => {
    const topics = allTopics(unique('retention'));
    expect(await ensureTopics(kafka, topics, 2)).toEqual(topics);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['retention.ms', 'retention.bytes'],
        })),
      });
      for (const resource of described.resources) {
        const values = Object.fromEntries(resource.configEntries.map((e) => [e.configName, e.configValue]));
        expect({ topic: resource.resourceName, ...values }).toEqual({
          topic: resource.resourceName,
          'retention.ms': '-1',
          'retention.bytes': '-1',
        });
      }
      expect(described.resources).toHaveLength(topics.length);
    } finally {
      await admin.disconnect();
    }
  });
});

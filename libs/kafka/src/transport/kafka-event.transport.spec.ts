import type { ConsumerConfig, Kafka } from 'kafkajs';
import { topicNames } from '@ctxledger/contracts';
import { KafkaEventTransport } from './kafka-event.transport';

// The transport's dispatch against a broker is tested in test/integration/kafka-transport.int-spec.ts; here only
// the handler lookup it keeps per pattern, which must follow Nest's registrations.
describe('KafkaEventTransport handler lookup', () => {
  const transport = () =>
    new KafkaEventTransport({
      kafka: {} as Kafka,
      topics: topicNames('test'),
      streams: ['sessionEvents'],
      groupId: 'g',
      consumerName: 'c',
    });

  it('finds the handler of a pattern, and a handler registered after an earlier lookup', async () => {
    const t = transport();
    expect(t.getHandlerByPattern('message.appended')).toBeNull();
    const appended = jest.fn(async () => 'appended');
    t.addHandler('message.appended', appended, true);
    const found = t.getHandlerByPattern('message.appended');
    expect(found).not.toBeNull();
    expect(await found!('data')).toBe('appended');
    expect(t.getHandlerByPattern('message.appended')).toBe(found); // the same, looked up once

    const configured = jest.fn(async () => 'configured');
    t.addHandler('session.configured', configured, true);
    expect(await t.getHandlerByPattern('session.configured')!('data')).toBe('configured');
    expect(t.getHandlerByPattern('block.created')).toBeNull();
  });
});

/** A kafkajs stand-in: the consumer joins at once; the test emits its heartbeats and reads the consumers' configs. */
function fakeKafka() {
  const listeners = new Map<string, ((e: unknown) => void)[]>();
  const configs: ConsumerConfig[] = [];
  const events = {
    HEARTBEAT: 'heartbeat',
    GROUP_JOIN: 'join',
    REBALANCING: 'rebalancing',
    STOP: 'stop',
    CRASH: 'crash',
  };
  const client = {
    producer: () => ({ connect: async () => undefined, disconnect: async () => undefined }),
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchTopicMetadata: async () => ({ topics: [] }),
    }),
    consumer: (config: ConsumerConfig) => {
      configs.push(config);
      return {
        events,
        on: (event: string, fn: (e: unknown) => void) => listeners.set(event, [...(listeners.get(event) ?? []), fn]),
        connect: async () => undefined,
        subscribe: async () => undefined,
        run: async () => undefined,
        disconnect: async () => undefined,
      };
    },
  };
  const emit = (event: string) => {
    for (const fn of listeners.get(event) ?? []) fn({ payload: {} });
  };
  return { kafka: client as unknown as Kafka, heartbeat: () => emit(events.HEARTBEAT), configs };
}

/** A transport on `kafka` for the session events, listening. */
async function listening(kafka: Kafka, options: { sessionTimeoutMs?: number } = {}): Promise<KafkaEventTransport> {
  const t = new KafkaEventTransport({
    kafka,
    topics: topicNames('test'),
    streams: ['sessionEvents'],
    groupId: 'g',
    consumerName: 'c',
    ...options,
  });
  await new Promise<void>((resolve, reject) => t.listen((e) => (e ? reject(e) : resolve())));
  return t;
}

describe('KafkaEventTransport consumer settings', () => {
  it("lets the broker hold an idle fetch half a second, not kafkajs's 5 s: stopping waits for the fetch in flight", async () => {
    const { kafka, configs } = fakeKafka();
    const t = await listening(kafka);
    try {
      expect(configs.map((c) => c.maxWaitTimeInMs)).toEqual([500]);
    } finally {
      await t.close();
    }
  });
});

describe('KafkaEventTransport membership: a consumer the group has not confirmed for a session timeout', () => {
  it('is reported (when it was last confirmed) once the timeout has passed, and no longer after a heartbeat', async () => {
    const { kafka, heartbeat } = fakeKafka();
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    const t = await listening(kafka, { sessionTimeoutMs: 6000 });
    try {
      expect(t.consumerStatus().state).toBe('running');
      now += 6000;
      expect((await t.checkConsumer(60_000)).unconfirmedSince).toBeUndefined(); // a session timeout, not more
      now += 1;
      expect((await t.checkConsumer(60_000)).unconfirmedSince).toBe(new Date(1_000_000).toISOString());
      heartbeat();
      expect((await t.checkConsumer(60_000)).unconfirmedSince).toBeUndefined();
      now += 5000;
      heartbeat(); // an idle consumer answers a heartbeat every few seconds: never reported
      now += 5000;
      expect((await t.checkConsumer(60_000)).unconfirmedSince).toBeUndefined();
    } finally {
      clock.mockRestore();
      await t.close();
    }
  });
});

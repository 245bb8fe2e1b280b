import type { Kafka } from 'kafkajs';
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

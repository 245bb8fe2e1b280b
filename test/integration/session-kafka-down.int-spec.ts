import { stackAsync, stackEnv } from '../../tools/local-stack';
import { dropDatabase, startSessionService, until, type SessionServiceUnderTest } from './session-harness';
import { ownStackPorts } from '../support/stack-settings';

describe('session service when Kafka is down (a stack instance of its own)', () => {
  // A second stack instance, so stopping its broker disturbs no other test.
  const ports = ownStackPorts(60);
  const alt = {
    ...process.env,
    STACK_INSTANCE: `session-down-${process.pid}`,
    KAFKA_PORT: String(ports.kafka),
    KAFKA_CONTROLLER_PORT: String(ports.controller),
    MONGO_PORT: String(ports.mongo),
  };
  // Async: a blocked event loop (seconds while Kafka starts) made the HTTP client reuse a keep-alive socket the
  // server had closed meanwhile ("other side closed").
  const stackCmd = (command: string) => stackAsync(command, alt);
  let api: SessionServiceUnderTest;
  let stack: { brokers: string[]; mongoUri: string };

  beforeAll(async () => {
    await stackCmd('up');
    const env = stackEnv(alt);
    stack = { brokers: env.KAFKA_BROKERS!.split(','), mongoUri: env.MONGODB_URI! };
    api = await startSessionService('session-down', stack, { KAFKA_SEND_TIMEOUT_MS: '2000' });
  }, 240_000);

  afterAll(async () => {
    await api?.service.stop();
    if (api) await dropDatabase(stack.mongoUri, api.database).catch(() => undefined);
    await stackCmd('down');
  }, 60_000);

  it('answers 503 (not 500) and accepts nothing half; the retry with the same key appends each message once', async () => {
    const s = 'down-session';
    const first = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'before the outage' });
    expect(first.status).toBe(202);

    await stackCmd('kafka-stop');
    const batch = {
      messages: [
        { role: 'assistant', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'three' },
      ],
    };
    const started = Date.now();
    const down = await api.call('POST', `/v1/sessions/${s}/messages`, batch, { 'Idempotency-Key': 'outage-1' });
    expect(down.status).toBe(503);
    expect(down.body.message).toMatch(/Kafka is unavailable/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Reads are served from MongoDB meanwhile.
    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${first.body.waitToken}`);
    expect(read.status).toBe(200);
    expect(read.body.messages.map((m: { content: string }) => m.content)).toEqual(['before the outage']);

    await stackCmd('kafka-start');
    const accepted = await until(
      async () => {
        const res = await api.call('POST', `/v1/sessions/${s}/messages`, batch, { 'Idempotency-Key': 'outage-1' });
        return res.status === 202 ? res : undefined;
      },
      'an append once Kafka is back',
      90_000,
    );
    const after = await api.call('GET', `/v1/sessions/${s}/history?after=${accepted.body.waitToken}&waitMs=30000`);
    expect(after.status).toBe(200);
    // Whatever the first try did (nothing, or all of it late), each message is there exactly once, in order.
    expect(after.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'before the outage',
      'one',
      'two',
      'three',
    ]);
  }, 180_000);
});

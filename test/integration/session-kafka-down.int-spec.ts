/**
 * @outage stops its outage stack's broker, and bounds how fast a write answers 503 (10 s).
 */
import { FaultStack } from '../support/fault/fault-stack';
import { dropDatabase, startSessionService, until, type SessionServiceUnderTest } from './session-harness';

describe('session service when Kafka is down (the outage stack)', () => {
  // The worker's outage stack, which only the suites that stop a broker use, so stopping it disturbs no other test. Its methods are
  // async: a blocked event loop (seconds while Kafka starts) made the HTTP client reuse a keep-alive socket the
  // server had closed meanwhile ("other side closed").
  const stack = new FaultStack('session-kafka-down', 'outage');
  let api: SessionServiceUnderTest;

  beforeAll(async () => {
    await stack.up();
    api = await startSessionService('session-down', stack, { KAFKA_SEND_TIMEOUT_MS: '2000' });
  }, 240_000);

  afterAll(async () => {
    await api?.service.stop();
    // Handed back with its broker running, whatever the test left; then the database can be dropped.
    await stack.down();
    if (api) await dropDatabase(stack.mongoUri, api.database).catch(() => undefined);
  }, 120_000);

  it('answers 503 (not 500) and accepts nothing half; the retry with the same key appends each message once', async () => {
    const s = 'down-session';
    const first = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'before the outage' });
    expect(first.status).toBe(202);
    // Projected before the broker stops: a read after it then needs no Kafka. (Stopped at once, the broker could go
    // before the projector had read the message — a busy machine did once — and the read below waited for it.)
    const projected = await api.call('GET', `/v1/sessions/${s}/history?after=${first.body.waitToken}&waitMs=30000`);
    expect(projected.status).toBe(200);

    await stack.kafkaStop();
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

    await stack.kafkaStart();
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

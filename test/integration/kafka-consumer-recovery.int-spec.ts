/**
 * Stalls its event loop past the consumer's session timeout (6 s, the broker's minimum, against a 14 s stall: the
 * thread waits, it does not spin, so the files beside it keep their share of the machine), and bounds how fast the
 * health check answers while the consumer restarts (1.5 s, as the outage files do beside others). The expelled member's
 * commit does not always meet "not aware of this member": twice in about twenty CI runs (with a 9 s stall, then 14 s)
 * the consumer went on with no crash — most likely the group had already moved to a new generation and the commit met
 * "illegal generation", on which kafkajs rejoins by itself. The stall is repeated (at most three times) until the
 * crash the transport must recover from happens.
 */
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics, topicNames, type AnyEvent } from '@ctxledger/contracts';
import { ensureTopics, KafkaEventTransport, KafkaHealthIndicator, kafkaSettings } from '@ctxledger/kafka';
import { eventually } from '../support/eventually';
import { testStack, unique } from '../support/stack-settings';

/** What the handlers saw, and how they misbehave on request. */
const seen: string[] = [];
let stallLoopOnce = true;
let failStuck = true;

@Controller()
class Handlers {
  @EventPattern('message.appended')
  onMessage(@Payload() event: AnyEvent): void {
    if (event.type !== 'message.appended') return;
    const content = String(event.data.content);
    // The event loop stalls past the session timeout: the coordinator expels the member, whose commit then meets
    // "The coordinator is not aware of this member" (as after a broker restart).
    if (content === 'stall-loop' && stallLoopOnce) {
      stallLoopOnce = false;
      // (A wait that blocks the thread, like a long synchronous call, without a busy loop's CPU.)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 14_000);
    }
    if (content === 'stuck' && failStuck) throw new Error('database unavailable');
    seen.push(content);
  }
}

@Module({ controllers: [Handlers] })
class TestModule {}

type Probe = { at: number; ms: number; status: string; message?: string; consumers?: any[] };

describe('KafkaEventTransport keeps its consumer alive, and the health check says when it is not', () => {
  const prefix = unique('recovery').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const brokers = testStack().brokers;
  const kafka = new Kafka({ clientId: 'recovery-test', brokers, logLevel: logLevel.NOTHING });
  const health = new KafkaHealthIndicator(
    new HealthIndicatorService(),
    kafka,
    kafkaSettings({ brokers, clientId: 'recovery-test', topicPrefix: prefix }),
  );
  const producer = kafka.producer();
  let transport: KafkaEventTransport;
  let app: INestMicroservice | undefined;
  const probes: Probe[] = [];
  let probing = true;
  let prober: Promise<void>;

  const send = (content: string, sessionId = 's1') =>
    producer.send({
      topic: topics.sessionEvents,
      messages: [
        {
          key: sessionId,
          value: JSON.stringify({ type: 'message.appended', sessionId, data: { role: 'user', content } }),
        },
      ],
    });

  beforeAll(async () => {
    await ensureTopics(kafka, allTopics(prefix), 2);
    await producer.connect();
    transport = new KafkaEventTransport({
      kafka,
      topics,
      streams: ['sessionEvents'],
      groupId: unique('recovery-group'),
      consumerName: 'recovery-test',
      sessionTimeoutMs: 6000,
      retryBackoffMs: { initial: 50, max: 200 },
      restartBackoffMs: { initial: 1500, max: 3000 },
    });
    app = await NestFactory.createMicroservice(TestModule, { strategy: transport, logger: false });
    await app.listen();
    prober = (async () => {
      while (probing) {
        const at = Date.now();
        const result = (await health.isHealthy('kafka', 3000, 4000)).kafka as Omit<Probe, 'at' | 'ms'>;
        probes.push({ at, ms: Date.now() - at, ...result });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  });

  afterAll(async () => {
    probing = false;
    await prober;
    await app?.close();
    await producer.disconnect();
  });

  it('a consumer the group expelled (its commit refused: "not aware of this member") is replaced; nothing is lost', async () => {
    await send('before');
    await eventually(
      async () => seen,
      (s) => s.includes('before'),
      'the first record',
      30_000,
    );
    const from = Date.now();
    // Which refusal the expelled member's commit meets is the broker's race: "not aware of this member" (kafkajs
    // crashes the consumer: the transport must replace it) or, when the group has already moved to a new generation,
    // "illegal generation" (kafkajs rejoins by itself: nothing for the transport to do). The stall is repeated until
    // the first happens (two CI runs in about twenty met the second); the assertions below are the same either way.
    let replaced = false;
    for (let attempt = 1; attempt <= 3 && !replaced; attempt++) {
      stallLoopOnce = true;
      await send('stall-loop');
      await send(`after-${attempt}`);
      await eventually(
        async () => seen,
        (s) => s.includes(`after-${attempt}`),
        'the record behind the stall',
        60_000,
      );
      // 'after' may have come in the stalled record's batch, handled before that batch's commit was refused: the
      // replacement of the consumer may still be under way when it is seen.
      replaced = await eventually(
        async () => transport.consumerStatus(),
        (s) => s.restarts >= 1 && s.state === 'running',
        'the expelled consumer replaced',
        20_000,
      ).then(
        () => true,
        () => false,
      );
    }
    expect(replaced).toBe(true);
    expect(seen.filter((s) => s === 'before')).toEqual(['before']);
    expect(seen).toContain('stall-loop'); // handled (possibly twice: its commit was refused, so it was redelivered)

    // While the consumer was being replaced, the health check said so, at once; it is up again afterwards.
    // (Right after the stall it may first say the partition made no progress: it had not, for 14 s.)
    const during = probes.filter((p) => p.at >= from && /is restarting/.test(p.message ?? ''));
    expect(during.length).toBeGreaterThan(0);
    expect(during[0]!.message).toMatch(/not aware of this member/);
    expect(during.every((p) => p.status === 'down')).toBe(true);
    // Answered from the transport's state, not by waiting on the broker (the probe's timeout is 3 s). Not a timing
    // test: on a loaded 2-core machine these answers took up to 344 ms (the event loop's own delay).
    expect(Math.max(...during.map((p) => p.ms))).toBeLessThan(1500);
    await eventually(
      async () => (await health.isHealthy('kafka', 3000, 4000)).kafka.status,
      (s) => s === 'up',
      'health up again',
      30_000,
    );
  }, 240_000);

  it('a partition that is behind and does not move is reported (and its lag shows), then recovers', async () => {
    failStuck = true;
    expect((await health.isHealthy('kafka', 3000, 4000)).kafka.status).toBe('up');
    const [{ partition }] = await send('stuck', 's2');
    await send('behind-stuck', 's2');
    const down = await eventually(
      async () => (await health.isHealthy('kafka', 3000, 4000)).kafka as { status: string; message?: string },
      (k) => k.status === 'down' && /makes no progress on/.test(String(k.message)),
      'the stall to be reported',
      30_000,
    );
    expect(String(down.message)).toContain(`${topics.sessionEvents}[${partition}]`);
    expect((await transport.lag())[topics.sessionEvents]).toBeGreaterThanOrEqual(2);
    failStuck = false;
    await eventually(
      async () => seen,
      (s) => s.includes('behind-stuck'),
      'the stuck partition to move',
      30_000,
    );
    await eventually(
      async () => (await health.isHealthy('kafka', 3000, 4000)).kafka.status,
      (s) => s === 'up',
      'health up again',
      30_000,
    );
    expect((await transport.lag())[topics.sessionEvents]).toBe(0);
  }, 120_000);
});

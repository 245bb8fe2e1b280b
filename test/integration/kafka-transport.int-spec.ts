import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { allTopics, LIMITS, topicNames, type AnyEvent } from '@ctxledger/contracts';
import {
  batchPattern,
  ensureTopics,
  KafkaEventContext,
  KafkaEventTransport,
  PoisonEventError,
  type KafkaEventBatch,
} from '@ctxledger/kafka';
import { testConsumer } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';

/** Records what the handlers saw; fails the "transient" message twice before accepting it. */
class Recorder {
  seen: string[] = [];
  attempts = new Map<string, number>();
  batches: Array<{ partition: number; types: string[] }> = [];
  waiters: Array<{ until: (seen: string[]) => boolean; done: () => void }> = [];

  record(content: string): void {
    this.seen.push(content);
    this.waiters = this.waiters.filter((w) => (w.until(this.seen) ? (w.done(), false) : true));
  }

  waitFor(until: (seen: string[]) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    if (until(this.seen)) return Promise.resolve();
    return new Promise((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`timed out waiting for ${what}; seen ${JSON.stringify(this.seen)}`)),
        timeoutMs,
      );
      this.waiters.push({ until, done: () => (clearTimeout(timer), done()) });
    });
  }
}
const recorder = new Recorder();

@Controller()
class TestHandlers {
  @EventPattern('message.appended')
  onMessage(@Payload() event: AnyEvent, @Ctx() ctx: KafkaEventContext): void | Promise<void> {
    if (event.type !== 'message.appended') throw new Error('unexpected type');
    const content = event.data.content;
    const attempt = (recorder.attempts.get(content) ?? 0) + 1;
    recorder.attempts.set(content, attempt);
    if (content === 'transient' && attempt < 3) throw new Error(`database unavailable (attempt ${attempt})`);
    if (content === 'poison') throw new PoisonEventError('the policy in this event can never be applied');
    if (content === 'slow')
      return new Promise<void>((done) => setTimeout(() => (recorder.record(content), done()), 12_000));
    expect(ctx.getTopic()).toMatch(/session-events$/);
    recorder.record(content);
  }

  @EventPattern(batchPattern('blocks'))
  onBlocks(@Payload() batch: KafkaEventBatch) {
    recorder.batches.push({ partition: batch.partition, types: batch.events.map((e) => e.type) });
    const poison = batch.events.flatMap((e, i) =>
      e.type === 'block.reverted' && e.data.blockId === 'never'
        ? [{ offset: batch.offsets[i], reason: 'no such block, ever' }]
        : [],
    );
    for (const e of batch.events)
      if (e.type === 'block.reverted' && e.data.blockId !== 'never') recorder.record(`revert:${e.data.blockId}`);
    return { poison };
  }
}

@Module({ controllers: [TestHandlers] })
class TestModule {}

describe('KafkaEventTransport on the real broker', () => {
  const prefix = unique('transport').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const kafka = new Kafka({ clientId: 'transport-test', brokers: testStack().brokers, logLevel: logLevel.NOTHING });
  const groupId = unique('transport-group');
  let app: INestMicroservice | undefined;
  const dlq: AnyEvent[] = [];
  let dlqConsumer: Consumer;

  async function startApp(): Promise<INestMicroservice> {
    const created = await NestFactory.createMicroservice(TestModule, {
      strategy: new KafkaEventTransport({
        kafka,
        topics,
        streams: ['sessionEvents', 'blocks'],
        groupId,
        consumerName: 'transport-test',
        retryBackoffMs: { initial: 20, max: 100 },
      }),
      logger: false,
    });
    await created.listen();
    return created;
  }

  const producer = kafka.producer();
  const send = (topic: string, key: string | null, value: string) =>
    producer.send({ topic, messages: [{ key, value }] });
  const appended = (content: string, sessionId = 's1') =>
    JSON.stringify({ type: 'message.appended', sessionId, data: { role: 'user', content } });

  beforeAll(async () => {
    await ensureTopics(kafka, allTopics(prefix), 2);
    await producer.connect();
    dlqConsumer = testConsumer(kafka, 'dlq-reader');
    await dlqConsumer.connect();
    await dlqConsumer.subscribe({ topic: topics.deadLetter, fromBeginning: true });
    await dlqConsumer.run({ eachMessage: async ({ message }) => void dlq.push(JSON.parse(message.value!.toString())) });
    app = await startApp();
  });

  afterAll(async () => {
    await app?.close();
    await dlqConsumer.disconnect();
    await producer.disconnect();
  });

  it('dead-letters every poison record with its reason and keeps the partition moving, retrying transient failures', async () => {
    await send(topics.sessionEvents, 's1', appended('good-1'));
    await send(topics.sessionEvents, 's1', 'this is not json');
    await send(
      topics.sessionEvents,
      's1',
      JSON.stringify({ type: 'message.appended', sessionId: 's1', data: { role: 'robot', content: 'x' } }),
    );
    await send(topics.sessionEvents, 's1', JSON.stringify({ type: 'message.exploded', sessionId: 's1', data: {} }));
    await send(topics.sessionEvents, 's1', appended('x'.repeat(LIMITS.maxContentChars + 10)));
    await send(topics.sessionEvents, null, appended('no key'));
    await send(topics.sessionEvents, 's1', appended('poison'));
    await send(topics.sessionEvents, 's1', appended('transient'));
    await send(topics.sessionEvents, 's1', appended('good-2'));

    await recorder.waitFor((seen) => seen.includes('good-2'), 'good-2');
    expect(recorder.seen).toEqual(['good-1', 'transient', 'good-2']);
    expect(recorder.attempts.get('transient')).toBe(3);

    const deadline = Date.now() + 20_000;
    while (dlq.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const reasons = dlq.map((e) => (e.type === 'event.dead-lettered' ? e.data.reason : 'wrong type'));
    // The keyless record lands on any partition, so only the set of reasons is compared.
    expect(reasons).toHaveLength(6);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/not JSON/),
        expect.stringMatching(/data.role: must be one of/),
        expect.stringMatching(/type: must be one of/),
        expect.stringMatching(/data.content: must be shorter than or equal to 400000 characters/),
        expect.stringMatching(/no key/),
        expect.stringMatching(/handler refused the event: the policy in this event can never be applied/),
      ]),
    );
    const first = dlq.find((e) => e.type === 'event.dead-lettered' && e.data.payload === 'this is not json')!;
    expect(first.type === 'event.dead-lettered' && first.data).toMatchObject({
      sourceTopic: topics.sessionEvents,
      consumer: 'transport-test',
      key: 's1',
      payload: 'this is not json',
    });
  });

  it('hands a partition batch to a batch handler and dead-letters what it reports as poison', async () => {
    const revert = (blockId: string) => JSON.stringify({ type: 'block.reverted', sessionId: 'b1', data: { blockId } });
    await send(topics.blocks, 'b1', revert('blk-1'));
    await send(topics.blocks, 'b1', revert('never'));
    await send(topics.blocks, 'b1', 'not json either');
    await send(topics.blocks, 'b1', revert('blk-2'));
    await recorder.waitFor((seen) => seen.includes('revert:blk-2'), 'revert:blk-2');
    expect(recorder.seen.filter((s) => s.startsWith('revert:'))).toEqual(['revert:blk-1', 'revert:blk-2']);
    const deadline = Date.now() + 20_000;
    const blockDlq = () => dlq.filter((e) => e.type === 'event.dead-lettered' && e.data.sourceTopic === topics.blocks);
    while (blockDlq().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(blockDlq().map((e) => e.type === 'event.dead-lettered' && e.data.reason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/not JSON/), 'no such block, ever']),
    );
  });

  it('a handler that outlives the session timeout (an LLM call) runs once: the consumer keeps heart-beating', async () => {
    await send(topics.sessionEvents, 's1', appended('slow'));
    await send(topics.sessionEvents, 's1', appended('after-slow'));
    await recorder.waitFor((seen) => seen.includes('after-slow'), 'after-slow', 60_000);
    expect(recorder.attempts.get('slow')).toBe(1); // evicted and redelivered, it would be 2
    expect(recorder.seen.filter((s) => s === 'slow')).toEqual(['slow']);
  });

  it('commits only what was processed: a restarted consumer in the same group sees only new records', async () => {
    // Every record handled above is committed (after its effect): the group's offsets reach the log's end.
    const admin = kafka.admin();
    await admin.connect();
    const lag = async () => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topics.sessionEvents] });
      const ends = await admin.fetchTopicOffsets(topics.sessionEvents);
      return ends.map(({ partition, offset }) => {
        const c = committed.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
        return { partition, behind: Number(offset) - Math.max(0, Number(c)) };
      });
    };
    const deadline = Date.now() + 20_000;
    while ((await lag()).some((p) => p.behind > 0) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect((await lag()).filter((p) => p.behind > 0)).toEqual([]);
    await admin.disconnect();
    await app!.close();
    app = undefined;

    const before = recorder.seen.length;
    app = await startApp();
    await send(topics.sessionEvents, 's1', appended('after-restart'));
    await recorder.waitFor((seen) => seen.includes('after-restart'), 'after-restart');
    expect(recorder.seen.slice(before)).toEqual(['after-restart']);
  });
});

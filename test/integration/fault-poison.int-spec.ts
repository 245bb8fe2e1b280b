/**
 * Three services fed poison records on every consumed topic, each met at once by every consumer, on the run's stack
 * (its own topics and database), beside other files: its waits are bounds of a minute or more.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { allTopics, createEvent, topicNames, type AnyEvent, type StreamName } from '@ctxledger/contracts';
import { ENGINE_VERSION } from '@ctxledger/context-engine';
import { ensureTopics } from '@ctxledger/kafka';
import { withDatabase } from '../support/fault/fault-stack';
import { dumpOutputs } from '../support/fault/pipeline';
import { TopicCollector } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { transcript } from '../support/transcripts';
import { dropDatabase, until } from './session-harness';

/** Which consumers read each stream (the consumer names they give in dead-letter events). */
const CONSUMERS: Record<Exclude<StreamName, 'deadLetter'>, string[]> = {
  sessionEvents: ['compaction-service', 'session-projector'],
  blocks: ['session-projector'],
  summaryRequests: ['summarizer-service'],
};

interface Poison {
  readonly name: string;
  readonly key: string | null;
  readonly value: string | Buffer | null;
}

/** Records that break the contract in every way a producer we did not write could break it. */
function poisonFor(stream: keyof typeof CONSUMERS, key: string): Poison[] {
  const envelope = (type: string, data: unknown, sessionId = key) =>
    JSON.stringify({ type, schemaVersion: 1, eventId: unique('poison'), sessionId, data });
  const valid: Record<typeof stream, string> = {
    sessionEvents: envelope('message.appended', { role: 'user', content: 'fine' }),
    blocks: envelope('block.reverted', { blockId: 'b1' }),
    summaryRequests: envelope('summary.requested', {
      requestId: 'r',
      range: { from: 0, to: 0 },
      messages: [{ role: 'user', content: 'x' }],
      maxSummaryTokens: 10,
    }),
  };
  const wrongData: Record<typeof stream, string> = {
    sessionEvents: envelope('message.appended', { role: 42, content: ['not', 'text'] }),
    blocks: envelope('block.created', { block: { id: 7, edits: 'none' } }),
    summaryRequests: envelope('summary.requested', { requestId: '', messages: 'all of them', maxSummaryTokens: -1 }),
  };
  const otherStream: Record<typeof stream, string> = {
    sessionEvents: envelope('block.reverted', { blockId: 'b1' }),
    blocks: envelope('message.appended', { role: 'user', content: 'misrouted' }),
    summaryRequests: envelope('session.configured', { provider: 'anthropic' }),
  };
  const deep = 5000;
  return [
    { name: 'not JSON', key, value: '{"type": "message.appended", ' },
    { name: 'binary garbage', key, value: Buffer.from([0xff, 0xfe, 0x00, 0x81, 0xc3, 0x28, 0x7b, 0x0a]) },
    { name: 'a JSON array', key, value: '[1,2,3]' },
    { name: 'a JSON string', key, value: '"message.appended"' },
    { name: 'unknown type', key, value: envelope('session.exploded', {}) },
    { name: 'type of another stream', key, value: otherStream[stream] },
    { name: 'wrong field types', key, value: wrongData[stream] },
    {
      name: 'schema version from the future',
      key,
      value: valid[stream].replace('"schemaVersion":1', '"schemaVersion":99'),
    },
    {
      name: 'key is not the sessionId',
      key,
      value: valid[stream].replace(`"sessionId":"${key}"`, '"sessionId":"someone-else"'),
    },
    { name: 'no key', key: null, value: valid[stream] },
    { name: 'tombstone', key, value: null },
    {
      name: 'over the size limit',
      key,
      value: envelope('message.appended', { role: 'user', content: 'z'.repeat(1_010_000) }),
    },
    {
      name: `nested ${deep} deep`,
      key,
      value: valid[stream].replace(/}$/, `,"extra":${'['.repeat(deep)}${']'.repeat(deep)}}`),
    },
    {
      // Refused, not smuggled through: `data.__proto__` must not lend the data the fields it lacks.
      name: 'prototype keys',
      key,
      value: valid[stream]
        .replace('"data":', '"data":{"__proto__":')
        .replace(/}$/, '}}')
        .replace(/^{/, '{"constructor":{"prototype":{"polluted":true}},'),
    },
  ];
}

describe('fault: poison records on every consumed topic are dead-lettered and the partitions keep moving', () => {
  // Stops nothing, so it runs on the shared stack (its own topic prefix and database).
  const stack = testStack();
  const prefix = unique('fp').replace(/-/g, '_');
  const database = prefix.slice(0, 60);
  const topics = topicNames(prefix);
  const env = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: withDatabase(stack.mongoUri, database),
    AUTH_MODE: 'none',
    RATE_LIMIT_REQUESTS: '0',
  };
  const kafka = new Kafka({ clientId: 'fault-poison', brokers: stack.brokers, logLevel: logLevel.NOTHING });
  const services: Record<string, RunningService> = {};
  let producer: Producer;
  let deadLetters: TopicCollector;
  let blocks: TopicCollector;
  let sessionEvents: TopicCollector;

  beforeAll(async () => {
    await ensureTopics(kafka, allTopics(prefix));
    [services.compaction, services.session, services.summarizer] = await Promise.all([
      startService('compaction-service', env, 90_000),
      startService('session-service', env, 90_000),
      startService('summarizer-service', env, 90_000),
    ]);
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    [deadLetters, blocks, sessionEvents] = await Promise.all([
      new TopicCollector(kafka, topics.deadLetter, { tolerant: true }).start(),
      new TopicCollector(kafka, topics.blocks, { tolerant: true }).start(),
      new TopicCollector(kafka, topics.sessionEvents, { tolerant: true }).start(),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(services).map((s) => s.stop().catch(() => undefined)));
    dumpOutputs('fault-poison', Object.fromEntries(Object.entries(services).map(([n, s]) => [n, s.output()])));
    await Promise.all([producer?.disconnect(), deadLetters?.stop(), blocks?.stop(), sessionEvents?.stop()]);
    await dropDatabase(stack.mongoUri, database).catch(() => undefined);
  });

  it('each poison record: one dead letter per consumer, with the reason; the good record after it is processed', async () => {
    const started = Date.now();
    const sent: Array<{ stream: string; topic: string; name: string; partition: number; offset: string }> = [];
    const send = async (stream: keyof typeof CONSUMERS, p: Poison) => {
      const [meta] = await producer.send({
        topic: topics[stream],
        acks: -1,
        messages: [{ key: p.key, value: p.value }],
      });
      sent.push({ stream, topic: topics[stream], name: p.name, partition: meta!.partition, offset: meta!.baseOffset! });
    };
    const sessionId = 'poison-s';
    const requestSession = 'poison-r';
    for (const p of poisonFor('sessionEvents', sessionId)) await send('sessionEvents', p);
    for (const p of poisonFor('blocks', sessionId)) await send('blocks', p);
    for (const p of poisonFor('summaryRequests', requestSession)) await send('summaryRequests', p);

    // The good records, on the same partitions, after the poison.
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    const good = (type: AnyEvent['type'], id: string, data: unknown) => ({
      key: id,
      value: JSON.stringify(createEvent(type, id, data as never)),
    });
    await producer.send({
      topic: topics.sessionEvents,
      acks: -1,
      messages: [
        good('session.configured', sessionId, {
          provider: 'anthropic',
          contextWindow: 9_000,
          maxOutputTokens: 1_000,
          policy: { summaries: 'off' },
        }),
        ...chat.messages.map((m, i) => good('message.appended', sessionId, { ...m, clientMessageId: `c${i}` })),
      ],
    });
    await producer.send({
      topic: topics.blocks,
      acks: -1,
      messages: [
        good('block.created', sessionId, {
          block: {
            id: 'poison-good-block',
            sessionId,
            stage: 'summary',
            range: { from: 0, to: 1 },
            edits: [{ from: 0, to: 1, replacement: [{ role: 'user', content: 'a summary' }] }],
            tokensBefore: 300,
            tokensAfter: 30,
            tokensSaved: 270,
            basedOnPosition: 1,
            engineVersion: ENGINE_VERSION,
          },
        }),
      ],
    });
    await producer.send({
      topic: topics.summaryRequests,
      acks: -1,
      messages: [
        good('summary.requested', requestSession, {
          requestId: 'poison-good-request',
          range: { from: 0, to: 5 },
          messages: chat.messages.slice(0, 6),
          maxSummaryTokens: 300,
        }),
      ],
    });

    // Every consumer dead-letters every poison record of its topics, once, naming where it came from and why.
    const expected = sent.flatMap((s) =>
      CONSUMERS[s.stream as keyof typeof CONSUMERS].map((consumer) => ({ ...s, consumer })),
    );
    const letterOf = (e: { topic: string; partition: number; offset: string; consumer: string }) =>
      deadLetters.events.filter(
        (d) =>
          d.type === 'event.dead-lettered' &&
          d.data.sourceTopic === e.topic &&
          d.data.partition === e.partition &&
          d.data.offset === e.offset &&
          d.data.consumer === e.consumer,
      );
    await deadLetters
      .until(() => expected.every((e) => letterOf(e).length > 0), `${expected.length} dead letters`, 90_000)
      .catch((error: Error) => {
        const missing = expected
          .filter((e) => letterOf(e).length === 0)
          .map((e) => `${e.consumer} ${e.stream} ${e.name}`);
        throw new Error(`${error.message}; missing: ${missing.join(', ')}`);
      });
    const because: Record<string, RegExp> = {
      'not JSON': /not JSON/,
      'binary garbage': /not valid UTF-8 \(byte 0\)/,
      'a JSON array': /must be a JSON object/,
      'a JSON string': /must be a JSON object/,
      tombstone: /no value/,
      'no key': /no key/,
      'over the size limit': /over the limit/,
      [`nested 5000 deep`]: /deeper than 64 levels/,
      'key is not the sessionId': /is not the sessionId/,
      'type of another stream': /does not belong on/,
    };
    for (const e of expected) {
      const [letter] = letterOf(e);
      const reason = letter!.type === 'event.dead-lettered' ? letter!.data.reason : '';
      expect(reason).toMatch(because[e.name] ?? /\w+: /);
    }

    // …and the partitions kept moving: the good records behind the poison were processed by every consumer.
    const api = (path: string) =>
      fetch(`${services.session!.url}/v1${path}`).then(async (r) => (await r.json()) as any);
    const full = await until(
      async () => {
        const h = await api(`/sessions/${sessionId}/history?view=full`);
        return h.originalMessageCount === chat.messages.length ? h : undefined;
      },
      'the session projected past the poison',
      60_000,
    );
    expect(full.messages).toEqual(chat.messages);
    await blocks.until(
      (events) =>
        events.some(
          (e) =>
            e.type === 'block.created' && e.sessionId === sessionId && (e.data.block as any).id !== 'poison-good-block',
        ),
      'a block of the compaction service past the poison',
      60_000,
    );
    await until(
      async () =>
        (await api(`/sessions/${sessionId}/blocks`)).blocks?.some((b: { id: string }) => b.id === 'poison-good-block')
          ? true
          : undefined,
      'the good block projected past the poison',
      60_000,
    );
    await sessionEvents.until(
      (events) => events.some((e) => e.type === 'summary.completed' && e.data.requestId === 'poison-good-request'),
      'the summary of the good request past the poison',
      60_000,
    );
    // A good record is never dead-lettered, and each poison record only once per consumer.
    for (const e of expected) expect(letterOf(e)).toHaveLength(1);
    for (const s of Object.values(services)) expect(s.process.exitCode).toBeNull();
    console.log(
      `fault-poison: ${sent.length} poison records on ${Object.keys(CONSUMERS).length} topics, ${expected.length} dead letters ` +
        `(one per consumer and record), the good records behind them processed; ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 240_000);
});

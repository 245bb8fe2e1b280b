import { Kafka, logLevel, type Admin } from 'kafkajs';
import { createEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type CompactionBlock } from '@ctxledger/context-engine';
import { testStack, unique } from '../support/stack-settings';
import {
  dropDatabase,
  RawProducer,
  readModelDocuments,
  runRebuild,
  startSessionService,
  TopicReader,
  until,
  type SessionServiceUnderTest,
} from './session-harness';

function block(sessionId: string, id: string, from: number, to: number, summary: string): CompactionBlock {
  return {
    id,
    sessionId,
    stage: 'summary',
    range: { from, to },
    edits: [{ from, to, replacement: [{ role: 'user', content: summary }] }],
    tokensBefore: 300,
    tokensAfter: 30,
    tokensSaved: 270,
    basedOnPosition: to,
    engineVersion: ENGINE_VERSION,
  };
}
const created = (b: CompactionBlock, tenant = 'acme') =>
  createEvent('block.created', b.sessionId, { block: b } as never, { tenant });
const reverted = (sessionId: string, blockId: string, tenant = 'acme') =>
  createEvent('block.reverted', sessionId, { blockId }, { tenant });
const msg = (
  sessionId: string,
  content: string,
  clientMessageId?: string,
  tenant = 'acme',
  role: 'user' | 'assistant' = 'user',
) =>
  createEvent(
    'message.appended',
    sessionId,
    { role, content, ...(clientMessageId && { clientMessageId }) },
    { tenant },
  );

describe('session projection: idempotent, order-tolerant, rebuildable (real Kafka + MongoDB-wire)', () => {
  const stack = testStack();
  let api: SessionServiceUnderTest;
  let producer: RawProducer;
  let deadLetters: TopicReader;
  let admin: Admin;
  const rebuiltDb = unique('rebuilt').replace(/-/g, '_').slice(0, 60);
  const x = unique('sx');
  const y = unique('sy');

  /** Waits until the projector group has committed every record of both streams. */
  async function caughtUp(): Promise<void> {
    const groupId = `${api.prefix}.session-projector`;
    await until(
      async () => {
        for (const topic of [api.topics.sessionEvents, api.topics.blocks]) {
          const highs = await admin.fetchTopicOffsets(topic);
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          for (const h of highs) {
            const at = committed?.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1';
            if (BigInt(h.high) > BigInt(h.low) && BigInt(at) < BigInt(h.high)) return undefined;
          }
        }
        return true;
      },
      'the projector to catch up',
      60_000,
    );
  }

  beforeAll(async () => {
    api = await startSessionService('session-projection', stack);
    producer = new RawProducer(stack.brokers);
    await producer.connect();
    deadLetters = new TopicReader(stack.brokers, api.topics.deadLetter);
    await deadLetters.start();
    admin = new Kafka({
      clientId: 'session-projection-test',
      brokers: stack.brokers,
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await api?.service.stop();
    await producer?.disconnect();
    await deadLetters?.stop();
    await admin?.disconnect();
    if (api) {
      await dropDatabase(stack.mongoUri, api.database);
      await dropDatabase(stack.mongoUri, rebuiltDb);
    }
  });

  it('every event delivered twice, blocks before their messages: the same documents; a rebuild yields them too', async () => {
    // Phase 1 — blocks first (the block stream is ahead of the session stream), then the session's events.
    await producer.send(api.topics.blocks, [
      created(block(x, 'bx1', 0, 1, 'summary of the greeting')),
      created(block(x, 'bx2', 3, 4, 'summary of the work')),
    ]);
    const sessionOffsets = await producer.send(api.topics.sessionEvents, [
      createEvent('session.configured', x, { provider: 'anthropic', contextWindow: 100_000 }, { tenant: 'acme' }),
      msg(x, 'hello', 'c1'),
      msg(x, 'hello (retried)', 'c1'), // a duplicate client message id: no position
      msg(x, 'hi', 'c2', 'acme', 'assistant'),
      msg(x, 'from another tenant', undefined, 'globex'), // poison: the session is acme's
      msg(x, 'do the work'),
      createEvent('compaction.requested', x, { trigger: 'manual' }, { tenant: 'acme' }),
      createEvent(
        'summary.completed',
        x,
        { requestId: 'r1', summary: 'ignored by the projector', provider: 'offline' },
        { tenant: 'acme' },
      ),
      msg(x, 'done', undefined, 'acme', 'assistant'),
    ]);
    await producer.send(api.topics.sessionEvents, [msg(y, 'another session', 'c1', 'initech')]);
    await producer.send(api.topics.blocks, [
      reverted(x, 'bx2'),
      created(block(x, 'bx1', 0, 1, 'a re-emitted duplicate')),
    ]);
    await caughtUp();

    const first = await readModelDocuments(stack.mongoUri, api.database);
    const sx = first.sessions.find((s: any) => s._id === x) as any;
    expect(sx).toMatchObject({ tenant: 'acme', messageCount: 4, lastOffset: Number(sessionOffsets.at(-1)) });
    expect(
      first.session_messages.filter((m: any) => m.sessionId === x).map((m: any) => [m.position, m.message.content]),
    ).toEqual([
      [0, 'hello'],
      [1, 'hi'],
      [2, 'do the work'],
      [3, 'done'],
    ]);
    expect(
      first.session_blocks.map((b: any) => [b.blockId, b.active, b.block.edits[0].replacement[0].content]),
    ).toEqual([
      ['bx1', true, 'summary of the greeting'],
      ['bx2', false, 'summary of the work'],
    ]);
    const poison = await deadLetters.waitFor(
      (e) => e.type === 'event.dead-lettered' && e.data.reason.includes('another tenant'),
      'the other tenant’s event',
    );
    expect(poison.type === 'event.dead-lettered' && poison.data).toMatchObject({
      consumer: 'session-projector',
      offset: sessionOffsets[4],
    });
    const history = await api.call('GET', `/v1/sessions/${x}/history`, undefined, { 'X-Tenant': 'acme' });
    expect(history.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'summary of the greeting',
      'do the work',
      'done',
    ]);

    // Every event again: the projector group is rewound to the first offsets of both streams.
    await api.service.stop();
    for (const topic of [api.topics.sessionEvents, api.topics.blocks]) {
      await admin.resetOffsets({ groupId: `${api.prefix}.session-projector`, topic, earliest: true });
    }
    await api.restart();
    await until(
      async () =>
        (await api.call('GET', '/metrics')).body.match(
          /ctxledger_events_consumed_total\{[^}]*session-events[^}]*\} (\d+)/,
        )?.[1] >= 10
          ? true
          : undefined,
      'the redelivery',
    );
    await caughtUp();
    expect(await readModelDocuments(stack.mongoUri, api.database)).toEqual(first);

    // Phase 2 — again the blocks ahead of the messages they cover, then the messages.
    await producer.send(api.topics.blocks, [created(block(x, 'bx3', 4, 5, 'summary of the tail'))]);
    await producer.send(api.topics.sessionEvents, [msg(x, 'more', 'c3'), msg(x, 'more', 'c3'), msg(x, 'even more')]);
    await caughtUp();
    const second = await readModelDocuments(stack.mongoUri, api.database);
    expect((second.sessions.find((s: any) => s._id === x) as any).messageCount).toBe(6);
    expect(second.session_blocks).toHaveLength(3);

    // The rebuild replays both topics into an empty database: identical documents.
    const output = await runRebuild(api.env, rebuiltDb);
    expect(output).toMatch(/rebuilt .*"sessions":2,"messages":7,"blocks":3/);
    expect(await readModelDocuments(stack.mongoUri, rebuiltDb)).toEqual(second);
    // ... and refuses a database that is not empty.
    await expect(runRebuild(api.env, rebuiltDb)).rejects.toThrow(/already holds 2 sessions/);
  });
});

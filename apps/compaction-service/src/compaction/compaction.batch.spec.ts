import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import type { KafkaEventBatch } from '@ctxledger/kafka';
import { CompactionService } from './compaction.service';
import type { Outgoing } from './event-publisher';
import { inMemoryCompactionService } from './testing/in-memory-compaction';

/**
 * The batch handler against the per-event one: the same folds and the same events in the same order, one send per
 * batch, a failed send retried without folding twice, poison reported by offset, replays emitting nothing.
 */
const serviceUnderTest = (failSends = 0) =>
  inMemoryCompactionService({ env: { SUMMARIZER_PROVIDER: 'local' }, failSends });

function session(sessionId: string, tenant: string, messages: number): AnyEvent[] {
  const events: AnyEvent[] = [
    createEvent(
      'session.configured',
      sessionId,
      { provider: 'openai', model: 'gpt-4o', contextWindow: 8_000, maxOutputTokens: 1_000 },
      { tenant, eventId: `${sessionId}-cfg` },
    ) as AnyEvent,
  ];
  for (let i = 0; i < messages; i++) {
    events.push(
      createEvent(
        'message.appended',
        sessionId,
        { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} `.repeat(300), clientMessageId: `m-${i}` },
        { tenant, eventId: `${sessionId}-${i}` },
      ) as AnyEvent,
    );
  }
  return events;
}

const batchOf = (events: readonly AnyEvent[], replays?: boolean[]): KafkaEventBatch => ({
  topic: 'sessions',
  partition: 0,
  events,
  offsets: events.map((_, i) => String(100 + i)),
  correlationIds: events.map((e) => `corr-${e.eventId}`),
  ...(replays && { replays }),
});

/** What a session's state holds (its token counter's functions differ by identity from one service to another). */
const held = (service: CompactionService, sessionId: string) => {
  const { originals, active, blocks, rawTokens, effectiveTokens, pendingSummary, pendingDigestSummary } =
    service.stateOf(sessionId)!;
  return { originals, active, blocks, rawTokens, effectiveTokens, pendingSummary, pendingDigestSummary };
};

const ids = (out: readonly Outgoing[]) =>
  out.map((o) =>
    o.kind === 'block.created' ? o.block.id : o.kind === 'summary.requested' ? o.request.requestId : o.kind,
  );

/** Two sessions interleaved, as on one partition. */
const interleaved = (): AnyEvent[] => {
  const a = session('s-a', 'acme', 60);
  const b = session('s-b', 'acme', 60);
  return a.flatMap((e, i) => [e, b[i]!]);
};

describe('CompactionService.handleBatch', () => {
  it('folds and publishes what the events one by one do, in order, in one send per batch', async () => {
    const events = interleaved();
    const single = serviceUnderTest();
    for (const e of events) await single.service.handle(e, { partition: 0, replay: false });
    const batched = serviceUnderTest();
    for (let i = 0; i < events.length; i += 40) {
      expect(await batched.service.handleBatch(batchOf(events.slice(i, i + 40)))).toEqual({ poison: [] });
    }
    expect(single.published.length).toBeGreaterThan(0);
    expect(ids(batched.published)).toEqual(ids(single.published));
    expect(batched.sends).toHaveLength(Math.ceil(events.length / 40));
    for (const s of ['s-a', 's-b']) expect(held(batched.service, s)).toEqual(held(single.service, s));
  });

  it('retries a failed send without folding any event twice', async () => {
    const events = interleaved();
    const reference = serviceUnderTest();
    await reference.service.handleBatch(batchOf(events));
    const flaky = serviceUnderTest(2);
    const batch = batchOf(events);
    await expect(flaky.service.handleBatch(batch)).rejects.toThrow('Kafka is down');
    await expect(flaky.service.handleBatch(batch)).rejects.toThrow('Kafka is down');
    expect(flaky.published).toEqual([]);
    await flaky.service.handleBatch(batch);
    expect(ids(flaky.published)).toEqual(ids(reference.published));
    for (const s of ['s-a', 's-b']) expect(held(flaky.service, s)).toEqual(held(reference.service, s));
    // Redelivered as a new batch (after a rebalance kept the partition here): sent again, not folded again.
    const again = serviceUnderTest(1);
    await expect(again.service.handleBatch(batchOf(events))).rejects.toThrow('Kafka is down');
    await again.service.handleBatch(batchOf(events));
    expect(ids(again.published)).toEqual(ids(reference.published));
    for (const s of ['s-a', 's-b']) expect(held(again.service, s)).toEqual(held(reference.service, s));
  });

  it('reports poison events by offset and folds the rest as if they never came', async () => {
    const own = session('s-a', 'acme', 30);
    const intruders = [5, 17].map(
      (i) =>
        createEvent(
          'message.appended',
          's-a',
          { role: 'user', content: 'hello', clientMessageId: `x-${i}` },
          { tenant: 'mallory', eventId: `x-${i}` },
        ) as AnyEvent,
    );
    const events = [...own.slice(0, 5), intruders[0]!, ...own.slice(5, 16), intruders[1]!, ...own.slice(16)];
    const reference = serviceUnderTest();
    await reference.service.handleBatch(batchOf(own));
    const target = serviceUnderTest();
    const result = await target.service.handleBatch(batchOf(events));
    expect(result.poison).toEqual([
      { offset: '105', reason: 'session s-a belongs to another tenant than "mallory"' },
      { offset: '117', reason: 'session s-a belongs to another tenant than "mallory"' },
    ]);
    expect(ids(target.published)).toEqual(ids(reference.published));
    expect(held(target.service, 's-a')).toEqual(held(reference.service, 's-a'));
  });

  it('rebuilds the state from replayed events and emits only for the rest', async () => {
    const events = interleaved();
    const reference = serviceUnderTest();
    await reference.service.handleBatch(batchOf(events));
    const replaying = serviceUnderTest();
    const replays = events.map((_, i) => i < 70);
    await replaying.service.handleBatch(batchOf(events, replays));
    for (const s of ['s-a', 's-b']) expect(held(replaying.service, s)).toEqual(held(reference.service, s));
    const later = serviceUnderTest();
    for (const e of events.slice(0, 70)) await later.service.handle(e, { partition: 0, replay: true });
    for (const e of events.slice(70)) await later.service.handle(e, { partition: 0, replay: false });
    expect(later.published.length).toBeGreaterThan(0);
    expect(ids(replaying.published)).toEqual(ids(later.published));
    const allReplayed = serviceUnderTest();
    await allReplayed.service.handleBatch(
      batchOf(
        events,
        events.map(() => true),
      ),
    );
    expect(allReplayed.published).toEqual([]);
    expect(held(allReplayed.service, 's-a')).toEqual(held(reference.service, 's-a'));
  });
});

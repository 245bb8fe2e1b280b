import fc from 'fast-check';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type CompactionBlock } from '@ctxledger/context-engine';
import type { PositionedEvent } from './sessions/session-stream.projection';
import { InMemoryReadModel } from './testing/in-memory-read-model';

const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const meta = (i: number, tenant = 't1') => ({ tenant, eventId: `e${i}`, time: at(i) });

function block(sessionId: string, id: string, from: number, to: number, summary: string): CompactionBlock {
  return {
    id,
    sessionId,
    stage: 'summary',
    range: { from, to },
    edits: [{ from, to, replacement: [{ role: 'user', content: summary }] }],
    tokensBefore: 100,
    tokensAfter: 10,
    tokensSaved: 90,
    basedOnPosition: to,
    engineVersion: ENGINE_VERSION,
  };
}

/** Two sessions on one partition of each stream; duplicates by clientMessageId, a block before its messages. */
function streams(): { session: PositionedEvent[]; blocks: PositionedEvent[] } {
  const s: AnyEvent[] = [
    createEvent('session.configured', 'a', { provider: 'anthropic', contextWindow: 20_000 }, meta(1)),
    createEvent('message.appended', 'a', { role: 'user', content: 'hello', clientMessageId: 'm1' }, meta(2)),
    createEvent('message.appended', 'b', { role: 'user', content: 'other session' }, meta(3, 't2')),
    createEvent('message.appended', 'a', { role: 'user', content: 'hello again', clientMessageId: 'm1' }, meta(4)),
    createEvent('message.appended', 'a', { role: 'assistant', content: 'hi', clientMessageId: 'm2' }, meta(5)),
    createEvent('message.appended', 'a', { role: 'user', content: 'intruder' }, meta(6, 't2')),
    createEvent('compaction.requested', 'a', { trigger: 'manual' }, meta(7)),
    createEvent('summary.completed', 'a', { requestId: 'r1', summary: 'x', provider: 'offline' }, meta(8)),
    createEvent('message.appended', 'a', { role: 'user', content: 'third' }, meta(9)),
    createEvent('session.configured', 'a', { model: 'claude-sonnet-4-5' }, meta(10)),
    createEvent('message.appended', 'a', { role: 'assistant', content: 'fourth' }, meta(11)),
  ];
  const b: AnyEvent[] = [
    createEvent('block.created', 'a', { block: block('a', 'b1', 0, 1, 'summary 1') } as never, meta(20)),
    createEvent('block.created', 'a', { block: block('a', 'b2', 2, 3, 'summary 2') } as never, meta(21)),
    createEvent('block.reverted', 'a', { blockId: 'b1' }, meta(22)),
    createEvent('block.created', 'a', { block: block('a', 'b1', 0, 1, 'summary 1 again') } as never, meta(23)),
    createEvent('block.reverted', 'a', { blockId: 'unknown' }, meta(24)),
    createEvent('block.created', 'b', { block: block('b', 'b3', 0, 0, 'wrong tenant') } as never, meta(25)),
    createEvent('block.reverted', 'a', { blockId: 'b2' }, meta(26, 't2')),
  ];
  return {
    session: s.map((event, offset) => ({ event, partition: 0, offset })),
    blocks: b.map((event, offset) => ({ event, partition: 0, offset })),
  };
}

/** Projects every event once, in order, the session stream first. */
function reference(): InMemoryReadModel {
  const { session, blocks } = streams();
  const model = new InMemoryReadModel();
  model.applySessionStream(session);
  model.applyBlockStream(blocks);
  return model;
}

/**
 * A delivery schedule of one stream as a consumer may see it: contiguous batches from the committed offset,
 * and redeliveries that start again at an earlier offset (a crash before the commit, a rebalance).
 */
const arbSchedule = (length: number) =>
  fc
    .array(fc.record({ size: fc.integer({ min: 1, max: 4 }), rewind: fc.integer({ min: 0, max: 5 }) }), {
      minLength: 1,
      maxLength: 20,
    })
    .map((steps) => {
      const batches: [number, number][] = [];
      let at = 0;
      for (const { size, rewind } of steps) {
        at = Math.max(0, at - rewind);
        if (at >= length) break;
        batches.push([at, Math.min(length, at + size)]);
        at = Math.min(length, at + size);
      }
      // Then the rest, so every event is delivered at least once.
      for (; at < length; at += 3) batches.push([at, Math.min(length, at + 3)]);
      return batches;
    });

describe('read-model projection (pure evolve + write semantics, in memory)', () => {
  it('assigns positions in stream order, drops duplicate clientMessageIds, refuses another tenant', () => {
    const { sessions, messages, blocks } = reference().snapshot();
    const a = sessions.find((s) => s._id === 'a')!;
    expect(a).toMatchObject({ tenant: 't1', messageCount: 4, lastOffset: 10, createdAt: at(1), updatedAt: at(11) });
    expect(a.config).toEqual({ provider: 'anthropic', contextWindow: 20_000, model: 'claude-sonnet-4-5' });
    expect(messages.filter((m) => m.sessionId === 'a').map((m) => [m.position, m.message.content, m.offset])).toEqual([
      [0, 'hello', 1],
      [1, 'hi', 4],
      [2, 'third', 8],
      [3, 'fourth', 10],
    ]);
    expect(blocks.map((b) => [b._id, b.tenant, b.active, b.block.edits[0]!.replacement[0]!.content])).toEqual([
      ['a/b1', 't1', false, 'summary 1'],
      ['a/b2', 't1', true, 'summary 2'],
      // Stored with its own tenant: only that tenant's reads (none: session b is t2's) would see it.
      ['b/b3', 't1', true, 'wrong tenant'],
    ]);
  });

  it('dead-letters what can never be applied, with the reason', () => {
    const model = reference();
    expect(model.poison).toEqual([
      { stream: 'sessionEvents', offset: 5, reason: 'session a belongs to another tenant than "t2"' },
      { stream: 'blocks', offset: 6, reason: 'block b2 belongs to another tenant than "t2"' },
    ]);
  });

  it('gives the same documents whatever the redeliveries and the interleaving of the two streams', () => {
    const expected = reference().snapshot();
    const { session, blocks } = streams();
    fc.assert(
      fc.property(
        arbSchedule(session.length),
        arbSchedule(blocks.length),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (ss, bs, coin) => {
          const model = new InMemoryReadModel();
          // Every event at least twice: the whole schedule, then all of it again.
          const queueS = [...ss, ...ss];
          const queueB = [...bs, ...bs];
          let k = 0;
          while (queueS.length > 0 || queueB.length > 0) {
            const takeBlocks = queueS.length === 0 || (queueB.length > 0 && coin[k++ % coin.length]);
            const [from, to] = (takeBlocks ? queueB : queueS).shift()!;
            if (takeBlocks) model.applyBlockStream(blocks.slice(from, to));
            else model.applySessionStream(session.slice(from, to));
          }
          expect(model.snapshot()).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('shows a block stored before its messages once they arrive (order-tolerant)', () => {
    const { session, blocks } = streams();
    const model = new InMemoryReadModel();
    model.applyBlockStream(blocks.slice(0, 2));
    expect(model.blocks.size).toBe(2);
    model.applySessionStream(session);
    model.applyBlockStream(blocks);
    expect(model.snapshot()).toEqual(reference().snapshot());
  });
});

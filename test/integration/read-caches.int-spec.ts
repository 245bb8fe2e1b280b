import fc from 'fast-check';
import mongoose, { type Connection } from 'mongoose';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type CompactionBlock } from '@ctxledger/context-engine';
import type { KafkaEventBatch } from '@ctxledger/kafka';
import { ProjectionProgress } from '../../apps/session-service/src/projector/projection-progress';
import { SessionProjectorService } from '../../apps/session-service/src/projector/session-projector.service';
import { BlockCache } from '../../apps/session-service/src/read-models/blocks/block-cache';
import { MessageCache } from '../../apps/session-service/src/read-models/messages/message-cache';
import { ProjectedSessions } from '../../apps/session-service/src/read-models/sessions/projected-sessions';
import { blocksOf } from '../../apps/session-service/src/read-models/blocks/block.query';
import { MongoReadModelProjection } from '../../apps/session-service/src/read-models/mongo-read-model-projection';
import { MongoReadModelReads } from '../../apps/session-service/src/read-models/mongo-read-model-reads';
import { ensureReadModelIndexes, ReadModelStore } from '../../apps/session-service/src/read-models/read-model.store';
import { ProjectionConflictError } from '../../apps/session-service/src/read-models/sessions/session-stream.projection';
import { InMemoryReadModel } from '../../apps/session-service/src/read-models/testing/in-memory-read-model';
import { testStack, unique } from '../support/stack-settings';

/**
 * The session service's in-memory state against the real MongoDB-wire server: the projector's session cache,
 * and the read side's sessions, message and block caches fed by the projector of their own instance. Two
 * projector instances ("this" one, whose caches are checked, and another one) take turns on the same
 * partition, in random batches, as after rebalances: this instance owns the partition during its turns and
 * loses it (a rebalance) before each turn of the other. Reads come in between. Every read must equal a fresh
 * database read, and the read model must equal a single in-memory projection of the same streams.
 */
describe('read caches and the projector session cache (real MongoDB-wire server)', () => {
  let connection: Connection;
  /** Lookups the server received, by collection (command monitoring): to tell answers from memory. */
  const finds = new Map<string, number>();

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(testStack().mongoUri, { dbName: unique('caches'), monitorCommands: true })
      .asPromise();
    connection.getClient().on('commandStarted', (event) => {
      if (event.commandName !== 'find') return;
      const collection = String((event.command as { find: unknown }).find);
      finds.set(collection, (finds.get(collection) ?? 0) + 1);
    });
  });

  afterAll(async () => {
    await connection.close();
  });

  const SESSIONS = ['s0', 's1', 's2'];
  const TENANTS = ['t1', 't2'];
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

  function block(sessionId: string, id: string, position: number): CompactionBlock {
    return {
      id,
      sessionId,
      stage: 'summary',
      range: { from: 0, to: position },
      edits: [{ from: 0, to: position, replacement: [{ role: 'user', content: `summary ${id}` }] }],
      tokensBefore: 100,
      tokensAfter: 10,
      tokensSaved: 90,
      basedOnPosition: position,
      engineVersion: ENGINE_VERSION,
    };
  }

  type Step =
    | { kind: 'message'; session: number; tenant: number; clientId?: number }
    | { kind: 'block'; session: number; tenant: number; id: number }
    | { kind: 'revert'; session: number; tenant: number; id: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant('message' as const),
      session: fc.nat(2),
      tenant: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }),
      clientId: fc.option(fc.nat(5), { nil: undefined }),
    }),
    fc.record({ kind: fc.constant('block' as const), session: fc.nat(2), tenant: fc.nat(1), id: fc.nat(2) }),
    fc.record({ kind: fc.constant('revert' as const), session: fc.nat(2), tenant: fc.nat(1), id: fc.nat(2) }),
  );

  /** Events of both streams (one partition each), the session stream starting with each session's config. */
  function streams(steps: readonly Step[]): { session: AnyEvent[]; blocks: AnyEvent[] } {
    let i = 0;
    const meta = (tenant: number) => ({ tenant: TENANTS[tenant]!, eventId: `e${i}`, time: at(i++) });
    const session: AnyEvent[] = SESSIONS.map((id) =>
      createEvent('session.configured', id, { provider: 'anthropic', contextWindow: 20_000 }, meta(0)),
    );
    const blocks: AnyEvent[] = [];
    for (const s of steps) {
      const id = SESSIONS[s.session]!;
      if (s.kind === 'message') {
        const data = { role: 'user' as const, content: `message ${i}` };
        session.push(
          createEvent(
            'message.appended',
            id,
            s.clientId === undefined ? data : { ...data, clientMessageId: `c${s.clientId}` },
            meta(s.tenant),
          ),
        );
      } else if (s.kind === 'block') {
        blocks.push(createEvent('block.created', id, { block: block(id, `b${s.id}`, 1) } as never, meta(s.tenant)));
      } else {
        blocks.push(createEvent('block.reverted', id, { blockId: `b${s.id}` }, meta(s.tenant)));
      }
    }
    return { session, blocks };
  }

  const batchOf = (events: readonly AnyEvent[], from: number, to: number): KafkaEventBatch => ({
    topic: 'test',
    partition: 0,
    events: events.slice(from, to),
    offsets: events.slice(from, to).map((_, k) => String(from + k)),
    correlationIds: events.slice(from, to).map(() => 'c'),
  });

  /** Runs a projection like the transport does: a conflict (another writer moved a session) is retried. */
  async function withRetry<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof ProjectionConflictError) || attempt > 5) throw error;
      }
    }
  }

  it('every read equals a fresh database read, whichever instance projected each batch', async () => {
    let run = 0;
    /** Reads answered without a lookup: the session, and the blocks without their head. */
    const fromMemory = { sessions: 0, blocks: 0, reads: 0 };
    const counted = async <T>(collection: string, read: () => Promise<T>): Promise<[T, boolean]> => {
      const before = finds.get(collection) ?? 0;
      const value = await read();
      return [value, (finds.get(collection) ?? 0) === before];
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 5, maxLength: 40 }),
        fc.array(
          fc.record({
            size: fc.integer({ min: 1, max: 6 }),
            other: fc.boolean(),
            read: fc.option(fc.nat(5), { nil: undefined }),
            /** A read as soon as the partition changed hands, before the turn's batches. */
            readFirst: fc.option(fc.nat(5), { nil: undefined }),
            /** Reads while the turn's batches are written (started after `delayMs`); later reads check them. */
            readDuring: fc.option(fc.record({ which: fc.nat(5), delayMs: fc.nat(6) }), { nil: undefined }),
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        async (steps, turns) => {
          const db = connection.useDb(`${connection.name}_${run++}`).db!;
          await ensureReadModelIndexes(db);
          const store = new ReadModelStore({ db } as Connection);
          const progress = new ProjectionProgress();
          const reads = new MongoReadModelReads(store);
          const self = new SessionProjectorService(new MongoReadModelProjection(store), progress);
          const other = new SessionProjectorService(new MongoReadModelProjection(store), new ProjectionProgress());
          const messageCache = new MessageCache(reads, progress);
          const blockCache = new BlockCache(reads, progress);
          const projectedSessions = new ProjectedSessions(reads, progress);
          const { session, blocks } = streams(steps);
          const OWNED = { partitions: [0], partitionCount: 1 };
          let owner: 'self' | 'other' | undefined;
          const done = { session: 0, blocks: 0 };

          const check = async (which: number) => {
            const sessionId = SESSIONS[which % SESSIONS.length]!;
            const tenant = TENANTS[which % 2]!;
            const [kept, sessionFromMemory] = await counted('sessions', () =>
              projectedSessions.find(tenant, sessionId),
            );
            const doc = await store.sessions.findOne({ _id: sessionId });
            expect(kept).toEqual(doc?.tenant === tenant ? doc : null); // another tenant's session is not found
            const otherTenant = TENANTS[(which + 1) % 2]!;
            expect(await projectedSessions.ownedByAnotherTenant(otherTenant, sessionId)).toBe(
              doc !== null && doc.tenant !== otherTenant,
            );
            const count = doc?.messageCount ?? 0;
            const cached = await messageCache.messages(sessionId, count);
            const stored = await store.messages
              .find({ sessionId, position: { $lt: count } })
              .sort({ position: 1 })
              .toArray();
            expect(cached.map((m) => [m.position, m.message])).toEqual(stored.map((m) => [m.position, m.message]));
            const [cachedBlocks, blocksFromMemory] = await counted('session_block_heads', () =>
              blockCache.blocks(tenant, sessionId),
            );
            const storedBlocks = (await blocksOf(store, sessionId)).filter((b) => b.tenant === tenant);
            expect(cachedBlocks.docs).toEqual(storedBlocks);
            fromMemory.reads++;
            if (sessionFromMemory) fromMemory.sessions++;
            if (blocksFromMemory) fromMemory.blocks++;
          };

          // The turns cycle until both streams are projected: batches alternate between the two instances.
          for (let t = 0; done.session < session.length || done.blocks < blocks.length; t++) {
            const turn = turns[t % turns.length]!;
            const projector = turn.other ? other : self;
            // The partition changes hands: this instance loses it before the other's turn, gets it back after.
            if (turn.other && owner !== 'other') progress.assigned({});
            if (!turn.other && owner !== 'self') progress.assigned({ sessionEvents: OWNED, blocks: OWNED });
            owner = turn.other ? 'other' : 'self';
            if (turn.readFirst !== undefined) await check(turn.readFirst);
            const [from, to] = [done.session, Math.min(session.length, done.session + turn.size)];
            const [bFrom, bTo] = [done.blocks, Math.min(blocks.length, done.blocks + turn.size)];
            const during = turn.readDuring;
            await Promise.all([
              (async () => {
                if (to > from) await withRetry(() => projector.projectSessionEvents(batchOf(session, from, to)));
                if (bTo > bFrom) await withRetry(() => projector.projectBlocks(batchOf(blocks, bFrom, bTo)));
              })(),
              during &&
                (async () => {
                  await new Promise((r) => setTimeout(r, during.delayMs));
                  const sessionId = SESSIONS[during.which % SESSIONS.length]!;
                  const found = await projectedSessions.find(TENANTS[0]!, sessionId);
                  await blockCache.blocks(TENANTS[0]!, sessionId);
                  await messageCache.messages(sessionId, found?.messageCount ?? 0);
                })(),
            ]);
            done.session = to;
            done.blocks = bTo;
            if (turn.read !== undefined) await check(turn.read);
          }
          for (let k = 0; k < SESSIONS.length * 2; k++) await check(k);

          // The read model equals one in-memory projection of the same streams.
          const reference = new InMemoryReadModel();
          reference.applySessionStream(session.map((event, offset) => ({ event, partition: 0, offset })));
          reference.applyBlockStream(blocks.map((event, offset) => ({ event, partition: 0, offset })));
          const expected = reference.snapshot();
          const byId = <T extends { _id: string }>(docs: T[]) => docs.sort((a, b) => a._id.localeCompare(b._id));
          expect(byId(await store.sessions.find().toArray())).toEqual(expected.sessions);
          expect(byId(await store.messages.find().toArray())).toEqual(expected.messages);
          expect(byId(await store.blocks.find().toArray())).toEqual(expected.blocks);
          await db.dropDatabase();
        },
      ),
      {
        numRuns: 25,
        seed: Number(process.env.FAULT_SEED ?? 20261123),
        examples: [
          // A block id created again after its revert (a duplicate: the first creation wins), one event per batch.
          [
            [
              { kind: 'message', session: 0, tenant: 0, clientId: undefined },
              { kind: 'block', session: 0, tenant: 0, id: 0 },
              { kind: 'block', session: 0, tenant: 0, id: 0 },
              { kind: 'revert', session: 0, tenant: 0, id: 0 },
              { kind: 'block', session: 0, tenant: 0, id: 0 },
            ],
            [{ size: 1, other: false, read: 0, readFirst: undefined, readDuring: undefined }],
          ],
          // The other instance projects a session again after this one moved it (its cached copy is stale).
          [
            [
              { kind: 'message', session: 1, tenant: 0, clientId: undefined },
              { kind: 'message', session: 0, tenant: 0, clientId: undefined },
              { kind: 'message', session: 0, tenant: 0, clientId: undefined },
              { kind: 'message', session: 0, tenant: 0, clientId: undefined },
            ],
            [
              { size: 1, other: true, read: undefined, readFirst: undefined, readDuring: undefined },
              { size: 3, other: false, read: undefined, readFirst: undefined, readDuring: undefined },
              { size: 1, other: false, read: undefined, readFirst: undefined, readDuring: undefined },
              { size: 2, other: true, read: undefined, readFirst: undefined, readDuring: undefined },
            ],
          ],
        ],
      },
    );
    // Not vacuous: many reads were answered from memory (and the rest by the database).
    expect(fromMemory.sessions).toBeGreaterThan(fromMemory.reads / 8);
    expect(fromMemory.blocks).toBeGreaterThan(fromMemory.reads / 8);
    expect(fromMemory.sessions).toBeLessThan(fromMemory.reads);
  });
});

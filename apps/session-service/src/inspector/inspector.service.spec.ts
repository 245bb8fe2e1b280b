import type { SessionConfiguredData } from '@ctxledger/contracts';
import type { BlockCache } from '../read-models/blocks/block-cache';
import type { MessageCache } from '../read-models/messages/message-cache';
import type { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import type { MessageDocument } from '../read-models/messages/message.document';
import type { ReadModelReads } from '../read-models/read-model.reads';
import type { SessionDocument } from '../read-models/sessions/session.document';
import { InspectorService } from './inspector.service';

const CONFIG: SessionConfiguredData = { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 8_000 };

const doc = (id: string, messageCount: number, lastOffset: number): SessionDocument => ({
  _id: id,
  tenant: 't',
  config: CONFIG,
  messageCount,
  partition: 0,
  lastOffset,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: `2026-01-01T00:00:${String(lastOffset % 60).padStart(2, '0')}.000Z`,
});

const message = (sessionId: string, position: number): MessageDocument =>
  ({
    _id: `${sessionId}/${position}`,
    sessionId,
    position,
    message: { role: position % 2 ? 'assistant' : 'user', content: `message ${position} `.repeat(20) },
    tokens: 50,
    tokenProfile: 'anthropic',
  }) as unknown as MessageDocument;

/** The service over in-memory stand-ins of the store and the caches, counting the message loads. */
function setUp() {
  const sessions = new Map<string, SessionDocument>();
  const heads = new Map<string, number>();
  const loads: string[] = [];
  const store = {
    sessionsOf: async () => ({ docs: [...sessions.values()], total: sessions.size }),
  } as unknown as ReadModelReads;
  const slow = new Map<string, Promise<void>>();
  const messageCache = {
    messages: async (id: string, count: number) => {
      loads.push(id);
      await slow.get(id);
      return Array.from({ length: count }, (_, p) => message(id, p));
    },
  } as unknown as MessageCache;
  const blockCache = {
    blocks: async (_tenant: string, id: string) => ({ head: heads.get(id) ?? -1, docs: [] }),
  } as unknown as BlockCache;
  const service = new InspectorService(store, {} as ProjectedSessions, messageCache, blockCache);
  return { service, sessions, heads, loads, slow };
}

describe('InspectorService.list: the stats of listed sessions', () => {
  it('are computed once per session state: again only for a session whose offset or block head moved', async () => {
    const { service, sessions, heads, loads } = setUp();
    sessions.set('a', doc('a', 10, 9));
    sessions.set('b', doc('b', 4, 3));

    const first = await service.list('t', undefined, 0, 20);
    expect(loads.sort()).toEqual(['a', 'b']);
    expect(first.sessions.find((s) => s.sessionId === 'a')?.messageCount).toBe(10);

    // Nothing changed: no session's messages are loaded again, and the answer is the same.
    loads.length = 0;
    expect(await service.list('t', undefined, 0, 20)).toEqual(first);
    expect(loads).toEqual([]);

    // A new message in a (its offset moved): only a is recomputed, and its numbers are the new ones.
    sessions.set('a', doc('a', 11, 10));
    const second = await service.list('t', undefined, 0, 20);
    expect(loads).toEqual(['a']);
    const a = second.sessions.find((s) => s.sessionId === 'a')!;
    expect(a.messageCount).toBe(11);
    expect(a.rawTokens).toBeGreaterThan(first.sessions.find((s) => s.sessionId === 'a')!.rawTokens!);

    // A block event of b (its head moved, its offset did not): b is recomputed.
    loads.length = 0;
    heads.set('b', 42);
    await service.list('t', undefined, 0, 20);
    expect(loads).toEqual(['b']);

    // A head read while a batch was handed over (NaN) is never keyed on.
    loads.length = 0;
    heads.set('b', NaN);
    await service.list('t', undefined, 0, 20);
    await service.list('t', undefined, 0, 20);
    expect(loads).toEqual(['b', 'b']);
  });
});

describe('InspectorService.list: a session whose stats take long', () => {
  it('is listed at once as statsPending, its stats computed meanwhile and listed the next time', async () => {
    const { service, sessions, loads, slow } = setUp();
    service.listStatsWaitMs = 100;
    sessions.set('big', doc('big', 30, 29));
    sessions.set('small', doc('small', 2, 1));
    let release!: () => void;
    slow.set('big', new Promise<void>((r) => (release = r)));

    // The big session's stats never finish before `release()`: a list that waited for them would not return.
    const first = await service.list('t', undefined, 0, 20);
    const big = first.sessions.find((s) => s.sessionId === 'big')!;
    expect(big).toMatchObject({ sessionId: 'big', messageCount: 30, statsPending: true, provider: 'anthropic' });
    expect(big.rawTokens).toBeUndefined();
    const small = first.sessions.find((s) => s.sessionId === 'small')!;
    expect(small.statsPending).toBeUndefined();
    expect(small.rawTokens).toBeGreaterThan(0);

    // Listed again while it is still being computed: the same computation (no second load), still pending.
    const again = await service.list('t', undefined, 0, 20);
    expect(again.sessions.find((s) => s.sessionId === 'big')!.statsPending).toBe(true);
    expect(loads.filter((id) => id === 'big')).toEqual(['big']);

    // Computed: the next listing has its numbers, without loading it again.
    release();
    await new Promise((r) => setTimeout(r, 20));
    const third = await service.list('t', undefined, 0, 20);
    const done = third.sessions.find((s) => s.sessionId === 'big')!;
    expect(done.statsPending).toBeUndefined();
    expect(done.rawTokens).toBeGreaterThan(small.rawTokens!);
    expect(loads.filter((id) => id === 'big')).toEqual(['big']);
  });
});

import { ProjectionProgress } from '../../projector/projection-progress';
import { messageDocumentId, type MessageDocument } from './message.document';
import type { ReadModelReads } from '../read-model.reads';
import { MessageCache } from './message-cache';

// The ordering the property test (test/integration/read-caches.int-spec.ts) hardly ever meets: the projector
// hands over a batch of a session while a read of that session's missing positions is still waiting for them.

const message = (position: number): MessageDocument => ({
  _id: messageDocumentId('s', position),
  sessionId: 's',
  tenant: 't',
  position,
  message: { role: 'user', content: `message ${position}` },
  tokens: 3,
  tokenProfile: 'anthropic',
  offset: position,
  time: '2026-01-01T00:00:00.000Z',
});

/** A read model whose message lookups wait until the test answers them (from the stored messages). */
function storeWithPendingLookups() {
  const pending: string[] = [];
  const answers: Array<() => void> = [];
  const store = {
    message: (sessionId: string, position: number) =>
      new Promise((resolve) => {
        pending.push(messageDocumentId(sessionId, position));
        answers.push(() => resolve(message(position)));
      }),
  } as unknown as ReadModelReads;
  const answerAll = async () => {
    await new Promise((r) => setImmediate(r)); // the read has sent its lookups
    for (const answer of answers.splice(0)) answer();
  };
  return { store, pending, answerAll };
}

const positions = (views: readonly { position: number }[]) => views.map((m) => m.position);

/** The read side's message cache and its projector's progress, over a store that answers when told to. */
function cacheOverPendingLookups() {
  const lookups = storeWithPendingLookups();
  const progress = new ProjectionProgress();
  return { ...lookups, progress, cache: new MessageCache(lookups.store, progress) };
}

describe('MessageCache', () => {
  it('a batch the projector writes while a read waits for missing positions neither breaks the read nor the entry', async () => {
    const { pending, answerAll, progress, cache } = cacheOverPendingLookups();

    const first = cache.messages('s', 2);
    await answerAll();
    expect(positions(await first)).toEqual([0, 1]);
    expect(pending.splice(0)).toEqual([messageDocumentId('s', 0), messageDocumentId('s', 1)]);

    const second = cache.messages('s', 4); // positions 2 and 3 are looked up…
    await new Promise((r) => setImmediate(r));
    expect(pending.splice(0)).toEqual([messageDocumentId('s', 2), messageDocumentId('s', 3)]);
    // …while this instance's projector writes 2, 3 and 4.
    progress.sessionsProjected({
      partition: 0,
      firstOffset: 2,
      lastOffset: 4,
      sessions: [],
      messages: [message(2), message(3), message(4)],
    });
    await answerAll();
    expect(positions(await second)).toEqual([0, 1, 2, 3]);

    const third = cache.messages('s', 5); // 4 was offered while the entry was out: looked up
    await answerAll();
    expect(positions(await third)).toEqual([0, 1, 2, 3, 4]);
    expect(pending).toEqual([messageDocumentId('s', 4)]);
  });

  it('appends what the projector writes to a session it holds: the next read needs no lookup', async () => {
    const { pending, answerAll, progress, cache } = cacheOverPendingLookups();
    const first = cache.messages('s', 1);
    await answerAll();
    await first;
    pending.splice(0);

    progress.sessionsProjected({
      partition: 0,
      firstOffset: 1,
      lastOffset: 2,
      sessions: [],
      messages: [message(1), message(2)],
    });
    expect(positions(await cache.messages('s', 3))).toEqual([0, 1, 2]);
    expect(pending).toEqual([]);
  });
});

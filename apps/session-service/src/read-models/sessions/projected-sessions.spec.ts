import { ProjectionProgress, type SessionsWritten } from '../../projector/projection-progress';
import type { ReadModelReads } from '../read-model.reads';
import type { SessionDocument } from './session.document';
import { ProjectedSessions } from './projected-sessions';

// The orderings a real database makes rare (a read answered before a write, handled after it) are set up here
// with a read-model lookup that answers when told to. test/integration/read-caches.int-spec.ts checks the
// same class against the real MongoDB-wire server with random batches, owners and reads.

const doc = (id: string, lastOffset: number, tenant = 't'): SessionDocument => ({
  _id: id,
  tenant,
  config: { provider: 'anthropic' },
  messageCount: lastOffset + 1,
  partition: 0,
  lastOffset,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const batch = (offset: number, ...sessions: SessionDocument[]): SessionsWritten => ({
  partition: 0,
  firstOffset: offset,
  lastOffset: offset,
  sessions,
  messages: [],
});

/** A read model whose session lookups wait until the test answers them. */
function storeWithPendingLookups() {
  const pending: { id: string; answer: (d: SessionDocument | null) => void }[] = [];
  const store = {
    session: (id: string) => new Promise<SessionDocument | null>((answer) => pending.push({ id, answer })),
  } as unknown as ReadModelReads;
  return { store, pending };
}

/** This instance's read side, its projector owning the (only) partition of the session stream. */
function owningPartition() {
  const { store, pending } = storeWithPendingLookups();
  const progress = new ProjectionProgress();
  const sessions = new ProjectedSessions(store, progress);
  progress.assigned({ sessionEvents: { partitions: [0], partitionCount: 1 } });
  return { pending, progress, sessions };
}

describe('ProjectedSessions', () => {
  it('answers what this instance projected from memory while it owns the partition, and reads otherwise', async () => {
    const { pending, progress, sessions } = owningPartition();
    progress.sessionsProjected(batch(0, doc('a', 0)));

    expect(await sessions.find('t', 'a')).toEqual(doc('a', 0));
    expect(await sessions.find('other tenant', 'a')).toBeNull(); // another tenant's session does not exist
    expect(pending).toHaveLength(0);

    progress.assigned({}); // a rebalance began: someone else may write the partition now
    const read = sessions.find('t', 'a');
    expect(pending.map((p) => p.id)).toEqual(['a']);
    pending.shift()!.answer(doc('a', 7));
    expect(await read).toEqual(doc('a', 7));
  });

  it('peek: the kept document while current, without a lookup; undefined once not current or never kept', () => {
    const { pending, progress, sessions } = owningPartition();
    expect(sessions.peek('t', 'a')).toBeUndefined();
    progress.sessionsProjected(batch(0, doc('a', 0)));
    expect(sessions.peek('t', 'a')).toEqual(doc('a', 0));
    expect(sessions.peek('other tenant', 'a')).toBeNull();
    progress.sessionsProjected(batch(1, doc('a', 1)));
    expect(sessions.peek('t', 'a')?.lastOffset).toBe(1);
    progress.assigned({}); // the partition may move: what is kept is no longer known to be current
    expect(sessions.peek('t', 'a')).toBeUndefined();
    expect(pending).toHaveLength(0);
  });

  it('does not keep a read that a batch of the partition overtook (the read may predate the batch)', async () => {
    const { pending, progress, sessions } = owningPartition();
    progress.sessionsProjected(batch(0, doc('other', 0)));

    const read = sessions.find('t', 'b'); // not in memory: looked up
    progress.sessionsProjected(batch(1, doc('b', 1))); // meanwhile this instance writes b
    pending.shift()!.answer(doc('b', 0)); // the lookup had found b before that write
    expect(await read).toEqual(doc('b', 0));

    expect(await sessions.find('t', 'b')).toEqual(doc('b', 1)); // the batch's document, not the older read
    expect(pending).toHaveLength(0);
  });

  it('keeps a read made while no batch of the partition was handled, until the run ends', async () => {
    const { pending, progress, sessions } = owningPartition();
    progress.sessionsProjected(batch(0, doc('other', 0)));

    const read = sessions.find('t', 'c');
    pending.shift()!.answer(doc('c', 5, 't'));
    expect(await read).toEqual(doc('c', 5));
    expect(await sessions.find('t', 'c')).toEqual(doc('c', 5));
    expect(pending).toHaveLength(0);

    progress.sessionsProjected(batch(3, doc('other', 3))); // a gap (offsets 1–2 handled elsewhere): a new run
    const again = sessions.find('t', 'c');
    expect(pending).toHaveLength(1);
    pending.shift()!.answer(doc('c', 2));
    expect(await again).toEqual(doc('c', 2));
  });

  it('stops trusting the partition when the group has not confirmed this member for too long', async () => {
    const { pending, progress, sessions } = owningPartition();
    progress.memberUntil(Date.now() + 60_000);
    progress.sessionsProjected(batch(0, doc('e', 0)));
    expect(await sessions.find('t', 'e')).toEqual(doc('e', 0));
    expect(pending).toHaveLength(0);

    progress.memberUntil(Date.now() - 1); // the last heartbeat is older than the group's session timeout allows
    const read = sessions.find('t', 'e');
    expect(pending).toHaveLength(1); // another member may own the partition by now: the database answers
    pending.shift()!.answer(doc('e', 0));
    expect(await read).toEqual(doc('e', 0));

    // A later heartbeat answered: the member was never expelled (else a rejoin and a new assignment), memory holds.
    progress.memberUntil(Date.now() + 60_000);
    expect(await sessions.find('t', 'e')).toEqual(doc('e', 0));
    expect(pending).toHaveLength(0);
  });

  it('stops trusting a partition whose batch failed', async () => {
    const { pending, progress, sessions } = owningPartition();
    progress.sessionsProjected(batch(0, doc('d', 0)));
    progress.failed('sessionEvents', 0);

    const read = sessions.find('t', 'd');
    expect(pending).toHaveLength(1);
    pending.shift()!.answer(doc('d', 1));
    expect(await read).toEqual(doc('d', 1));
  });
});

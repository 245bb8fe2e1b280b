import { toEngineConfig, type AnyEvent } from '@ctxledger/contracts';
import { configure, type TokenCounter } from '@ctxledger/context-engine';
import { LRUCache } from 'lru-cache';
import type { mongo } from 'mongoose';
import { evolveMessage } from '../messages/message.evolve';
import { messageDedupId, type MessageDocument } from '../messages/message.document';
import type { ReadModelStore } from '../read-model.store';
import { PartitionContiguity } from '../partition-contiguity';
import { insertOnce } from '../storable';
import type { SessionDocument } from './session.document';
import { evolveSession } from './session.evolve';

/** What the session-stream projection needs to know besides the events (loaded before folding). */
export interface SessionStreamSnapshot {
  readonly sessions: ReadonlyMap<string, SessionDocument>;
  /** `<sessionId>\0<messageDedupId>` (clientMessageId, else event id) → offset of the event that gave it a position. */
  readonly clientMessageOffsets: { get(key: string): number | undefined };
}

export interface SessionStreamPlan {
  /** Session documents after the batch, and the lastOffset each had before it (undefined: new). */
  readonly sessions: ReadonlyArray<{ readonly doc: SessionDocument; readonly expectedOffset?: number }>;
  readonly messages: readonly MessageDocument[];
  readonly poison: ReadonlyArray<{ readonly offset: number; readonly reason: string }>;
}

export interface PositionedEvent {
  readonly event: AnyEvent;
  readonly partition: number;
  readonly offset: number;
}

const clientKey = (sessionId: string, clientMessageId: string) => `${sessionId}\u0000${clientMessageId}`;

/** Pure: folds one partition's batch over the loaded documents into the writes to make. */
export function planSessionStream(
  records: readonly PositionedEvent[],
  snapshot: SessionStreamSnapshot,
): SessionStreamPlan {
  const current = new Map(snapshot.sessions);
  // Only what this batch adds; the snapshot is looked up, never copied (it may hold whole sessions).
  const seenInBatch = new Map<string, number>();
  const firstOffsetOf = (key: string) => seenInBatch.get(key) ?? snapshot.clientMessageOffsets.get(key);
  const touched = new Set<string>();
  const messages: MessageDocument[] = [];
  const poison: { offset: number; reason: string }[] = [];
  const counters = new Map<string, TokenCounter>();
  const counterOf = (doc: SessionDocument): TokenCounter => {
    const key = JSON.stringify([doc.config.provider ?? null, doc.config.model ?? null]);
    let counter = counters.get(key);
    if (!counter) counters.set(key, (counter = configure(toEngineConfig(doc.config)).counter));
    return counter;
  };

  for (const record of records) {
    const { event, offset } = record;
    const dedupId =
      event.type === 'message.appended'
        ? messageDedupId({ clientMessageId: event.data.clientMessageId, eventId: event.eventId })
        : undefined;
    const firstOffset = dedupId === undefined ? undefined : firstOffsetOf(clientKey(event.sessionId, dedupId));
    const duplicate = firstOffset !== undefined && firstOffset < offset;
    const evolution = evolveSession(current.get(event.sessionId) ?? null, {
      ...record,
      duplicateClientMessageId: duplicate,
    });
    if (evolution.kind === 'already-applied') continue;
    if (evolution.kind === 'poison') {
      poison.push({ offset, reason: evolution.reason });
      continue;
    }
    if (evolution.kind === 'refused') poison.push({ offset, reason: evolution.reason });
    current.set(event.sessionId, evolution.doc);
    touched.add(event.sessionId);
    if (evolution.kind === 'applied' && evolution.position !== undefined && event.type === 'message.appended') {
      messages.push(
        evolveMessage(null, event, { position: evolution.position, offset, counter: counterOf(evolution.doc) }),
      );
      if (dedupId !== undefined) seenInBatch.set(clientKey(event.sessionId, dedupId), offset);
    }
  }
  return {
    sessions: [...touched].map((id) => ({
      doc: current.get(id)!,
      expectedOffset: snapshot.sessions.get(id)?.lastOffset,
    })),
    messages,
    poison,
  };
}

/** Raised when a guarded write matched nothing (another writer moved the session): the batch is retried. */
export class ProjectionConflictError extends Error {}

/**
 * What a projector instance knows of the sessions it projected: each session's document as it wrote it, and
 * the session's clientMessageIds (when read). An entry is used only while this instance has projected every
 * record of the session's partition since the entry's lastOffset (`contiguousFrom`): then nobody else can
 * have moved the session. After a gap (another instance had the partition, a record was skipped) the session
 * is read again. The guarded write still checks every session; a failed one drops the entries.
 */
export class SessionCache {
  private readonly sessions: LRUCache<string, { doc: SessionDocument; ids?: Map<string, number> }>;
  private readonly partitions = new PartitionContiguity();

  constructor(maxSessions = 20_000) {
    this.sessions = new LRUCache({ max: maxSessions });
  }

  /** The session as this instance last wrote it, if nothing can have moved it since (see the class). */
  get(sessionId: string, partition: number, batchFirstOffset: number) {
    const entry = this.sessions.get(sessionId);
    if (!entry) return undefined;
    if (entry.doc.lastOffset + 1 < this.partitions.before(partition, batchFirstOffset)) return undefined;
    return entry;
  }

  /** After a durable write of a partition's batch [first, last]. */
  projected(partition: number, first: number, last: number): void {
    this.partitions.handled(partition, first, last);
  }

  set(doc: SessionDocument, ids: Map<string, number> | undefined): void {
    this.sessions.set(doc._id, { doc, ...(ids && { ids }) });
  }

  forget(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) this.sessions.delete(id);
  }
}

/**
 * Projects one partition's batch of the session stream: takes the sessions from the cache or reads them by
 * `_id`, writes the messages (insert-once) and then the sessions (guarded on their last offset). A crash
 * between the two writes leaves the session behind: the redelivery recomputes the same positions.
 */
export async function projectSessionStream(
  store: ReadModelStore,
  records: readonly PositionedEvent[],
  cache: SessionCache = new SessionCache(),
): Promise<SessionStreamPlan> {
  const sessionIds = [...new Set(records.map((r) => r.event.sessionId))];
  // Every message is deduplicated (on its clientMessageId, else its event id): the ids are needed for any.
  const hasMessages = records.some((r) => r.event.type === 'message.appended');
  const byId = new Map<string, SessionDocument>();
  // Per session: its known ids. A session without a document has none stored that a redelivery would not
  // recompute (its messages are written by batches that never committed, all redelivered from its first event).
  const known = new Map<string, Map<string, number>>();
  const toRead: string[] = [];
  const { partition, offset: firstOffset } = records[0] ?? { partition: 0, offset: 0 };
  for (const id of sessionIds) {
    const cached = cache.get(id, partition, firstOffset);
    if (!cached) toRead.push(id);
    else {
      byId.set(id, cached.doc);
      if (cached.ids) known.set(id, cached.ids);
    }
  }
  // One lookup by _id each: FerretDB v1 answers `_id: {$in}` by scanning the collection.
  const read = await Promise.all(toRead.map((_id) => store.sessions.findOne({ _id })));
  for (const doc of read) if (doc) byId.set(doc._id, doc);
  for (const id of sessionIds) if (!byId.has(id)) known.set(id, new Map());
  const toLoad = hasMessages ? sessionIds.filter((id) => !known.has(id)) : [];
  if (toLoad.length > 0) {
    // Every id of the sessions, kept for the next batches (read once per session and instance).
    const rows = await store.messages
      .find({ sessionId: { $in: toLoad } }, { projection: { sessionId: 1, clientMessageId: 1, eventId: 1, offset: 1 } })
      .toArray();
    for (const id of toLoad) known.set(id, new Map());
    for (const row of rows) {
      const ids = known.get(row.sessionId)!;
      const id = messageDedupId(row);
      if (id !== undefined) ids.set(id, Math.min(row.offset, ids.get(id) ?? Infinity));
    }
  }
  const clientMessageOffsets = {
    get(key: string) {
      const cut = key.indexOf('\u0000');
      return known.get(key.slice(0, cut))?.get(key.slice(cut + 1));
    },
  };
  const plan = planSessionStream(records, { sessions: byId, clientMessageOffsets });

  try {
    await writeSessionPlan(store, plan);
  } catch (error) {
    cache.forget(sessionIds);
    throw error;
  }
  for (const m of plan.messages) {
    const id = messageDedupId(m);
    const ids = id === undefined ? undefined : known.get(m.sessionId);
    if (ids && !ids.has(id!)) ids.set(id!, m.offset);
  }
  for (const { doc } of plan.sessions) cache.set(doc, known.get(doc._id));
  if (records.length > 0) cache.projected(partition, firstOffset, records[records.length - 1]!.offset);
  return plan;
}

/** Writes the messages (insert-once), then the sessions (guarded on their last offset). */
async function writeSessionPlan(store: ReadModelStore, plan: SessionStreamPlan): Promise<void> {
  await insertOnce(store.messages, plan.messages);
  if (plan.sessions.length === 0) return;
  const ops: mongo.AnyBulkWriteOperation<SessionDocument>[] = plan.sessions.map(({ doc, expectedOffset }) => {
    const { _id, ...fields } = doc;
    return expectedOffset === undefined
      ? { insertOne: { document: doc } }
      : { updateOne: { filter: { _id, lastOffset: expectedOffset }, update: { $set: fields } } };
  });
  let result: mongo.BulkWriteResult;
  try {
    result = await store.sessions.bulkWrite(ops, { ordered: false });
  } catch (error) {
    if ((error as { code?: number }).code === 11000)
      throw new ProjectionConflictError('a session was created concurrently; retrying');
    throw error;
  }
  if (result.matchedCount + result.insertedCount !== plan.sessions.length) {
    throw new ProjectionConflictError('a session moved concurrently; retrying the batch');
  }
}

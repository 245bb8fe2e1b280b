import { toEngineConfig, type AnyEvent } from '@ctxledger/contracts';
import { configure, type TokenCounter } from '@ctxledger/context-engine';
import type { mongo } from 'mongoose';
import { evolveMessage } from '../messages/message.evolve';
import type { MessageDocument } from '../messages/message.document';
import type { ReadModelStore } from '../read-model.store';
import { insertOnce } from '../storable';
import type { SessionDocument } from './session.document';
import { evolveSession } from './session.evolve';

/** What the session-stream projection needs to know besides the events (loaded before folding). */
export interface SessionStreamSnapshot {
  readonly sessions: ReadonlyMap<string, SessionDocument>;
  /** `<sessionId>\0<clientMessageId>` → offset of the event that gave it a position. */
  readonly clientMessageOffsets: ReadonlyMap<string, number>;
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
  const seen = new Map(snapshot.clientMessageOffsets);
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
    const cid = event.type === 'message.appended' ? event.data.clientMessageId : undefined;
    const firstOffset = cid === undefined ? undefined : seen.get(clientKey(event.sessionId, cid));
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
    current.set(event.sessionId, evolution.doc);
    touched.add(event.sessionId);
    if (evolution.position !== undefined && event.type === 'message.appended') {
      messages.push(
        evolveMessage(null, event, { position: evolution.position, offset, counter: counterOf(evolution.doc) }),
      );
      if (cid !== undefined) seen.set(clientKey(event.sessionId, cid), offset);
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
 * Projects one partition's batch of the session stream: loads what the fold needs (two indexed queries),
 * writes the messages (insert-once upserts) and then the sessions (guarded on their last offset). A crash
 * between the two writes leaves the session behind: the redelivery recomputes the same positions.
 */
export async function projectSessionStream(
  store: ReadModelStore,
  records: readonly PositionedEvent[],
): Promise<SessionStreamPlan> {
  const sessionIds = [...new Set(records.map((r) => r.event.sessionId))];
  const clientIds = [
    ...new Set(
      records.flatMap((r) =>
        r.event.type === 'message.appended' && r.event.data.clientMessageId ? [r.event.data.clientMessageId] : [],
      ),
    ),
  ];
  const [sessions, seenRows] = await Promise.all([
    store.sessions.find({ _id: { $in: sessionIds } }).toArray(),
    clientIds.length === 0
      ? Promise.resolve([])
      : store.messages
          .find(
            { sessionId: { $in: sessionIds }, clientMessageId: { $in: clientIds } },
            { projection: { sessionId: 1, clientMessageId: 1, offset: 1 } },
          )
          .toArray(),
  ]);
  const clientMessageOffsets = new Map<string, number>();
  for (const row of seenRows) {
    const key = clientKey(row.sessionId, row.clientMessageId!);
    clientMessageOffsets.set(key, Math.min(row.offset, clientMessageOffsets.get(key) ?? Infinity));
  }
  const plan = planSessionStream(records, { sessions: new Map(sessions.map((s) => [s._id, s])), clientMessageOffsets });

  await insertOnce(store.messages, plan.messages);
  if (plan.sessions.length > 0) {
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
  return plan;
}

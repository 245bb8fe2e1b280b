import type { mongo } from 'mongoose';
import type { ReadModelStore } from '../read-model.store';
import { insertOnce } from '../storable';
import type { PositionedEvent } from '../sessions/session-stream.projection';
import type { BlockDocument } from './block.document';
import { blockDocumentIdOf, evolveBlock } from './block.evolve';

export interface BlockStreamSnapshot {
  readonly blocks: ReadonlyMap<string, BlockDocument>;
  /** Tenants of the sessions already projected (a block may arrive before its session). */
  readonly sessionTenants: ReadonlyMap<string, string>;
}

export interface BlockStreamPlan {
  /** Blocks after the batch; `existed`: the document was stored before it (then only a revert can change it). */
  readonly blocks: ReadonlyArray<{ readonly doc: BlockDocument; readonly existed: boolean }>;
  readonly poison: ReadonlyArray<{ readonly offset: number; readonly reason: string }>;
}

/** Pure: folds one partition's batch of the block stream over the loaded documents. */
export function planBlockStream(records: readonly PositionedEvent[], snapshot: BlockStreamSnapshot): BlockStreamPlan {
  const current = new Map(snapshot.blocks);
  const touched = new Set<string>();
  const poison: { offset: number; reason: string }[] = [];
  for (const { event, offset } of records) {
    const id = blockDocumentIdOf(event);
    const tenant = snapshot.sessionTenants.get(event.sessionId);
    if (!id) {
      poison.push({ offset, reason: `${event.type} does not belong on the block stream` });
      continue;
    }
    if (tenant !== undefined && tenant !== event.tenant) {
      poison.push({ offset, reason: `session ${event.sessionId} belongs to another tenant than "${event.tenant}"` });
      continue;
    }
    const evolution = evolveBlock(current.get(id) ?? null, { event, offset });
    if (evolution.kind === 'poison') poison.push({ offset, reason: evolution.reason });
    if (evolution.kind !== 'applied') continue;
    current.set(id, evolution.doc);
    touched.add(id);
  }
  return { blocks: [...touched].map((id) => ({ doc: current.get(id)!, existed: snapshot.blocks.has(id) })), poison };
}

/**
 * Projects one partition's batch of the block stream: a new block is an insert-once upsert (the first
 * `block.created` of an id wins, whatever is redelivered later); a revert is guarded on `active: true`.
 */
export async function projectBlockStream(
  store: ReadModelStore,
  records: readonly PositionedEvent[],
): Promise<BlockStreamPlan> {
  const ids = [...new Set(records.flatMap((r) => blockDocumentIdOf(r.event) ?? []))];
  const sessionIds = [...new Set(records.map((r) => r.event.sessionId))];
  const [blocks, sessions] = await Promise.all([
    store.blocks.find({ _id: { $in: ids } }).toArray(),
    store.sessions.find({ _id: { $in: sessionIds } }, { projection: { tenant: 1 } }).toArray(),
  ]);
  const plan = planBlockStream(records, {
    blocks: new Map(blocks.map((b) => [b._id, b])),
    sessionTenants: new Map(sessions.map((s) => [s._id, s.tenant])),
  });
  if (plan.blocks.length > 0) {
    const ops: mongo.AnyBulkWriteOperation<BlockDocument>[] = plan.blocks.map(({ doc, existed }) =>
      existed
        ? {
            updateOne: {
              filter: { _id: doc._id, active: true },
              update: { $set: { active: false, revertedOffset: doc.revertedOffset!, revertedAt: doc.revertedAt! } },
            },
          }
        : (insertOnce(doc) as mongo.AnyBulkWriteOperation<BlockDocument>),
    );
    await store.blocks.bulkWrite(ops, { ordered: false });
  }
  return plan;
}

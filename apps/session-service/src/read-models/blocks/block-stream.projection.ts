import type { mongo } from 'mongoose';
import type { ReadModelStore } from '../read-model.store';
import { insertOnce } from '../storable';
import type { PositionedEvent } from '../sessions/session-stream.projection';
import type { BlockDocument } from './block.document';
import { blockDocumentIdOf, evolveBlock } from './block.evolve';

/**
 * The block stream's projection depends only on the block stream: a block document carries the tenant of
 * its event and is shown only to that tenant. (Refusing a block of another tenant than its session's would
 * depend on which stream was projected first, and the projection must not depend on that.)
 */
export interface BlockStreamSnapshot {
  readonly blocks: ReadonlyMap<string, BlockDocument>;
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
    if (!id) {
      poison.push({ offset, reason: `${event.type} does not belong on the block stream` });
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
): Promise<BlockStreamPlan & { readonly heads: ReadonlyMap<string, number> }> {
  // Only reverts need the stored document; a block.created of a stored id is refused by the insert-once
  // below as it would be by the fold. (One lookup by _id each: FerretDB v1 scans the collection for an `$in`.)
  const ids = [
    ...new Set(records.flatMap((r) => (r.event.type === 'block.reverted' ? blockDocumentIdOf(r.event)! : []))),
  ];
  const blocks = await Promise.all(ids.map((_id) => store.blocks.findOne({ _id })));
  const plan = planBlockStream(records, { blocks: new Map(blocks.flatMap((b) => (b ? [[b._id, b]] : []))) });
  await insertOnce(
    store.blocks,
    plan.blocks.filter((b) => !b.existed).map((b) => b.doc),
  );
  const reverts: mongo.AnyBulkWriteOperation<BlockDocument>[] = plan.blocks
    .filter((b) => b.existed)
    .map(({ doc }) => ({
      updateOne: {
        filter: { _id: doc._id, active: true },
        update: { $set: { active: false, revertedOffset: doc.revertedOffset!, revertedAt: doc.revertedAt! } },
      },
    }));
  if (reverts.length > 0) await store.blocks.bulkWrite(reverts, { ordered: false });
  // Then the heads: the last block-stream offset of each session of the batch (after its blocks are stored).
  const heads = new Map<string, number>();
  for (const r of records) heads.set(r.event.sessionId, Math.max(r.offset, heads.get(r.event.sessionId) ?? -1));
  if (heads.size > 0) {
    await store.blockHeads.bulkWrite(
      [...heads].map(([_id, offset]) => ({
        updateOne: { filter: { _id }, update: { $max: { offset } }, upsert: true },
      })),
      { ordered: false },
    );
  }
  return { ...plan, heads };
}

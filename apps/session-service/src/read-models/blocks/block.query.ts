import type { ReadModelStore } from '../read-model.store';
import { blockDocumentId, type BlockDocument } from './block.document';

/**
 * Every block document of a session (active and reverted), in creation order: of every tenant, since a
 * block carries the tenant of its event and is shown only to that tenant (filter with `ofTenant`).
 */
export function blocksOf(store: ReadModelStore, sessionId: string): Promise<BlockDocument[]> {
  return store.blocks.find({ sessionId }).sort({ sessionId: 1, createdOffset: 1 }).toArray();
}

/** The block-stream offset of the session's last projected block event (-1: none projected). */
export async function blockHeadOf(store: ReadModelStore, sessionId: string): Promise<number> {
  const head = await store.blockHeads.findOne({ _id: sessionId });
  return head?.offset ?? -1;
}

export async function findBlock(
  store: ReadModelStore,
  tenant: string,
  sessionId: string,
  blockId: string,
): Promise<BlockDocument | null> {
  const doc = await store.blocks.findOne({ _id: blockDocumentId(sessionId, blockId) });
  return doc && doc.tenant === tenant ? doc : null;
}

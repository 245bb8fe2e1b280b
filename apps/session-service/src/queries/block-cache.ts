import { Injectable } from '@nestjs/common';
import type { BlockDocument } from '../read-models/blocks/block.document';
import { blockHeadOf, blocksOf } from '../read-models/blocks/block.query';
import { ReadModelStore } from '../read-models/read-model.store';

/** Block documents kept in memory at most (all sessions together); least recently read sessions go first. */
const MAX_CACHED_BLOCKS = 100_000;

/**
 * A session's blocks as last read, with the block head (the offset of its last projected block event) they
 * were read at. A read checks the head with one `_id` lookup and reads the blocks again only when it moved
 * (a block created or reverted since). The head is read before the blocks and written after them, so the
 * cached blocks are never older than their head. (FerretDB v1 answers the blocks query by scanning every
 * block document of every session: ~0.1 s with a few thousand blocks stored.)
 */
@Injectable()
export class BlockCache {
  private readonly sessions = new Map<string, { head: number; docs: BlockDocument[] }>();
  private total = 0;

  constructor(private readonly store: ReadModelStore) {}

  async blocks(tenant: string, sessionId: string): Promise<readonly BlockDocument[]> {
    const key = `${tenant}\u0000${sessionId}`;
    const head = await blockHeadOf(this.store, sessionId);
    const cached = this.sessions.get(key);
    this.sessions.delete(key); // re-inserted below: Map order is the LRU order
    if (cached && cached.head === head) {
      this.sessions.set(key, cached);
      return cached.docs;
    }
    const docs = await blocksOf(this.store, tenant, sessionId);
    this.total += docs.length - (cached?.docs.length ?? 0);
    this.sessions.set(key, { head, docs });
    for (const [id, entry] of this.sessions) {
      if (this.total <= MAX_CACHED_BLOCKS || id === key) break;
      this.sessions.delete(id);
      this.total -= entry.docs.length;
    }
    return docs;
  }
}

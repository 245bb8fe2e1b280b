import type { CompactionBlock } from '@ctxledger/context-engine';

/**
 * One compaction block of a session. `_id` is `<sessionId>/<blockId>`. The first `block.created` of an id
 * wins (ids are deterministic: a later one is a duplicate); `block.reverted` deactivates it for good.
 */
export interface BlockDocument {
  readonly _id: string;
  readonly sessionId: string;
  readonly tenant: string;
  readonly blockId: string;
  readonly block: CompactionBlock;
  readonly active: boolean;
  /** Block-stream offsets: creation order is the order the overlay applies active blocks in. */
  readonly createdOffset: number;
  readonly revertedOffset?: number;
  readonly createdAt: string;
  readonly revertedAt?: string;
}

/**
 * Per session, the block-stream offset of the last block event projected for it, written after the blocks
 * themselves: a reader that saw this offset has seen every block up to it. `_id` is the session id, so a
 * reader checks it with one `_id` lookup and reads the blocks again only when it moved.
 */
export interface BlockHeadDocument {
  readonly _id: string;
  readonly offset: number;
}

export const blockDocumentId = (sessionId: string, blockId: string): string => `${sessionId}/${blockId}`;

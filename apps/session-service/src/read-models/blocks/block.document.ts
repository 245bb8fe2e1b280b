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

export const blockDocumentId = (sessionId: string, blockId: string): string => `${sessionId}/${blockId}`;

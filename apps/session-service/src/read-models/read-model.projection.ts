import type { BlockStreamPlan } from './blocks/block-stream.projection';
import type { PositionedEvent, SessionStreamPlan } from './sessions/session-stream.projection';

/**
 * The port the projector writes the read model through: one partition's batch of a stream folded over the
 * stored documents and written (durably, when the promise resolves), with what was written. Adapters:
 * MongoReadModelProjection (the service), InMemoryReadModel (tests).
 */
export interface ReadModelProjection {
  projectSessionStream(records: readonly PositionedEvent[]): Promise<SessionStreamPlan>;
  /** Also the block head of each session of the batch (its last block-stream offset). */
  projectBlockStream(
    records: readonly PositionedEvent[],
  ): Promise<BlockStreamPlan & { readonly heads: ReadonlyMap<string, number> }>;
}

export const READ_MODEL_PROJECTION = Symbol('ReadModelProjection');

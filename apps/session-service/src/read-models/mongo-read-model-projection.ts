import { Injectable } from '@nestjs/common';
import { projectBlockStream, type BlockStreamPlan } from './blocks/block-stream.projection';
import type { ReadModelProjection } from './read-model.projection';
import { ReadModelStore } from './read-model.store';
import {
  projectSessionStream,
  SessionCache,
  type PositionedEvent,
  type SessionStreamPlan,
} from './sessions/session-stream.projection';

/** The read model's projections on MongoDB: guarded bulk writes, one per collection and batch. */
@Injectable()
export class MongoReadModelProjection implements ReadModelProjection {
  /** The sessions this instance projects (re-read only when another writer moved one). */
  private readonly sessions = new SessionCache();

  constructor(private readonly store: ReadModelStore) {}

  projectSessionStream(records: readonly PositionedEvent[]): Promise<SessionStreamPlan> {
    return projectSessionStream(this.store, records, this.sessions);
  }

  projectBlockStream(
    records: readonly PositionedEvent[],
  ): Promise<BlockStreamPlan & { readonly heads: ReadonlyMap<string, number> }> {
    return projectBlockStream(this.store, records);
  }
}

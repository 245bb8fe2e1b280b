import { Injectable } from '@nestjs/common';
import type { BatchHandlerResult, KafkaEventBatch } from '@ctxledger/kafka';
import type { BlockDocument } from '../read-models/blocks/block.document';
import { projectBlockStream } from '../read-models/blocks/block-stream.projection';
import { ReadModelStore } from '../read-models/read-model.store';
import {
  projectSessionStream,
  SessionCache,
  type PositionedEvent,
} from '../read-models/sessions/session-stream.projection';
import { ProjectionProgress } from './projection-progress';

/**
 * The projector's use case: one partition's batch of a stream → the read model, in one guarded bulk write
 * per collection. It returns once the writes are durable, so the transport commits only after them; a
 * failure is retried by the transport; events that can never be applied come back as poison.
 */
@Injectable()
export class SessionProjectorService {
  /** The sessions this instance projects (re-read only when another writer moved one). */
  private readonly sessions = new SessionCache();

  constructor(
    private readonly store: ReadModelStore,
    private readonly progress: ProjectionProgress,
  ) {}

  async projectSessionEvents(batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    const plan = await projectSessionStream(this.store, positioned(batch), this.sessions);
    this.progress.projected(
      plan.sessions.map((s) => s.doc._id),
      plan.messages,
    );
    return { poison: plan.poison.map((p) => ({ offset: String(p.offset), reason: p.reason })) };
  }

  async projectBlocks(batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    const records = positioned(batch);
    const plan = await projectBlockStream(this.store, records);
    if (records.length > 0) {
      const sessions = new Map<string, { head: number; docs: BlockDocument[] }>();
      for (const [sessionId, head] of plan.heads) sessions.set(sessionId, { head, docs: [] });
      for (const { doc } of plan.blocks) sessions.get(doc.sessionId)?.docs.push(doc);
      this.progress.blocksProjected({
        partition: batch.partition,
        firstOffset: records[0]!.offset,
        lastOffset: records[records.length - 1]!.offset,
        sessions,
      });
    }
    return { poison: plan.poison.map((p) => ({ offset: String(p.offset), reason: p.reason })) };
  }
}

function positioned(batch: KafkaEventBatch): PositionedEvent[] {
  return batch.events.map((event, i) => ({ event, partition: batch.partition, offset: Number(batch.offsets[i]) }));
}

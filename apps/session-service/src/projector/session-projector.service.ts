import { Inject, Injectable } from '@nestjs/common';
import type { BatchHandlerResult, KafkaEventBatch } from '@ctxledger/kafka';
import type { BlockDocument } from '../read-models/blocks/block.document';
import { READ_MODEL_PROJECTION, type ReadModelProjection } from '../read-models/read-model.projection';
import type { PositionedEvent } from '../read-models/sessions/session-stream.projection';
import { ProjectionProgress, type ProjectedStream } from './projection-progress';

/**
 * The projector's use case: one partition's batch of a stream → the read model, in one guarded bulk write
 * per collection. It returns once the writes are durable, so the transport commits only after them; a
 * failure is retried by the transport; events that can never be applied come back as poison.
 */
@Injectable()
export class SessionProjectorService {
  constructor(
    @Inject(READ_MODEL_PROJECTION) private readonly readModel: ReadModelProjection,
    private readonly progress: ProjectionProgress,
  ) {}

  async projectSessionEvents(batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    const records = positioned(batch);
    const plan = await this.failing('sessionEvents', batch, () => this.readModel.projectSessionStream(records));
    if (records.length > 0) {
      this.progress.sessionsProjected({
        partition: batch.partition,
        firstOffset: records[0]!.offset,
        lastOffset: records[records.length - 1]!.offset,
        sessions: plan.sessions.map((s) => s.doc),
        messages: plan.messages,
      });
    }
    return { poison: plan.poison.map((p) => ({ offset: String(p.offset), reason: p.reason })) };
  }

  async projectBlocks(batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    const records = positioned(batch);
    const plan = await this.failing('blocks', batch, () => this.readModel.projectBlockStream(records));
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

  /** A batch that fails may have written part of its effects: the read side stops trusting its memory of them. */
  private async failing<T>(stream: ProjectedStream, batch: KafkaEventBatch, project: () => Promise<T>): Promise<T> {
    try {
      return await project();
    } catch (error) {
      this.progress.failed(stream, batch.partition);
      throw error;
    }
  }
}

function positioned(batch: KafkaEventBatch): PositionedEvent[] {
  return batch.events.map((event, i) => ({ event, partition: batch.partition, offset: Number(batch.offsets[i]) }));
}

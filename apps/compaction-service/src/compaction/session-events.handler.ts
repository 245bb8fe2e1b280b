import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { batchPattern, type BatchHandlerResult, type KafkaEventBatch } from '@ctxledger/kafka';
import { CompactionService } from './compaction.service';

/**
 * The Kafka side of the compaction use case: whole partition batches of the session stream (every event type of
 * it: CompactionService.apply has a case for each), one dispatch and one send of the decided events per batch.
 */
@Controller()
export class SessionEventsHandler {
  constructor(private readonly compaction: CompactionService) {}

  @EventPattern(batchPattern('sessionEvents'))
  handle(@Payload() batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    return this.compaction.handleBatch(batch);
  }
}

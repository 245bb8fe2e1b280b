import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { batchPattern, type BatchHandlerResult, type KafkaEventBatch } from '@ctxledger/kafka';
import { SessionProjectorService } from './session-projector.service';

/** The Kafka side of the projector: whole partition batches of the session and block streams. */
@Controller()
export class ProjectionHandler {
  constructor(private readonly projector: SessionProjectorService) {}

  @EventPattern(batchPattern('sessionEvents'))
  onSessionEvents(@Payload() batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    return this.projector.projectSessionEvents(batch);
  }

  @EventPattern(batchPattern('blocks'))
  onBlocks(@Payload() batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    return this.projector.projectBlocks(batch);
  }
}

import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { eventTypesOf, type EventOf } from '@ctxledger/contracts';
import { KafkaEventContext } from '@ctxledger/kafka';
import { CompactionService } from './compaction.service';

/** The Kafka side of the compaction use case: every session-stream event the decider cares about. */
@Controller()
export class SessionEventsHandler {
  constructor(private readonly compaction: CompactionService) {}

  // Every event type of the session stream, from the registry: CompactionService.apply has a case for each.
  @EventPattern(eventTypesOf('sessionEvents'))
  handle(@Payload() event: EventOf<'sessionEvents'>, @Ctx() context: KafkaEventContext): Promise<void> {
    return this.compaction.handle(event, { partition: context.getPartition(), replay: context.isReplay() });
  }
}

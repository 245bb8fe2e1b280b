import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { AnyEvent } from '@ctxledger/contracts';
import { KafkaEventContext } from '@ctxledger/kafka';
import { CompactionService } from './compaction.service';

/** The Kafka side of the compaction use case: every session-stream event the decider cares about. */
@Controller()
export class SessionEventsHandler {
  constructor(private readonly compaction: CompactionService) {}

  @EventPattern([
    'session.configured',
    'message.appended',
    'compaction.requested',
    'block-revert.requested',
    'summary.completed',
    'summary.failed',
  ])
  handle(@Payload() event: AnyEvent, @Ctx() context: KafkaEventContext): Promise<void> {
    return this.compaction.handle(event, { partition: context.getPartition(), replay: context.isReplay() });
  }
}

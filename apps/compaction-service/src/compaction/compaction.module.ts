import { Module } from '@nestjs/common';
import { CompactionMetrics } from './compaction.metrics';
import { CompactionService } from './compaction.service';
import { EventPublisher } from './event-publisher';
import { SessionPauses } from './session-pauses';
import { SessionEventsHandler } from './session-events.handler';
import { SummaryTimeouts } from './summary-timeouts';

@Module({
  controllers: [SessionEventsHandler],
  providers: [CompactionService, EventPublisher, SummaryTimeouts, SessionPauses, CompactionMetrics],
  exports: [CompactionService, CompactionMetrics],
})
export class CompactionModule {}

import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { eventTypesOf, unhandledEvent, type EventOf } from '@ctxledger/contracts';
import { SummaryRequestsService } from './summary-requests.service';

/**
 * Kafka entry of the use case (the transport decoded and validated the event against its contract). A thrown
 * error is transient for the transport: the request is retried, never skipped — the database being down, say.
 * Provider failures never throw: they end as `summary.failed` (or the offline fallback).
 */
@Controller()
export class SummaryRequestsHandler {
  constructor(private readonly service: SummaryRequestsService) {}

  @EventPattern(eventTypesOf('summaryRequests'))
  async onSummaryRequested(@Payload() event: EventOf<'summaryRequests'>): Promise<void> {
    switch (event.type) {
      case 'summary.requested':
        await this.service.handle(event);
        return;
      default:
        return unhandledEvent(event.type);
    }
  }
}

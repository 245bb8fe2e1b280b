import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { AnyEvent } from '@ctxledger/contracts';
import { SummaryRequestsService } from './summary-requests.service';

/**
 * Kafka entry of the use case (the transport decoded and validated the event against its contract). A thrown
 * error is transient for the transport: the request is retried, never skipped — the database being down, say.
 * Provider failures never throw: they end as `summary.failed` (or the offline fallback).
 */
@Controller()
export class SummaryRequestsHandler {
  constructor(private readonly service: SummaryRequestsService) {}

  @EventPattern('summary.requested')
  async onSummaryRequested(@Payload() event: AnyEvent): Promise<void> {
    if (event.type !== 'summary.requested') return;
    await this.service.handle(event);
  }
}

import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { CompactionServiceEnv } from '../config/compaction-service.env';
import { CompactionMetrics } from './compaction.metrics';
import { EventPublisher } from './event-publisher';

/**
 * A summary that does not arrive in time is declared failed by publishing `summary.failed` on the session
 * stream: the fallback then happens in the log's order, so a replay makes the same decision.
 */
@Injectable()
export class SummaryTimeouts implements OnModuleDestroy {
  private readonly logger = new Logger(SummaryTimeouts.name);
  private readonly timers = new Map<string, { sessionId: string; timer: NodeJS.Timeout }>();
  private readonly timeoutMs: number;

  constructor(
    @Inject(SERVICE_ENV) env: CompactionServiceEnv,
    private readonly publisher: EventPublisher,
    private readonly metrics: CompactionMetrics,
  ) {
    this.timeoutMs = env.SUMMARY_TIMEOUT_MS;
  }

  start(sessionId: string, requestId: string, tenant: string): void {
    if (this.timers.has(requestId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(requestId);
      this.metrics.summaryTimeouts.inc();
      this.logger.warn(`summary ${requestId} of ${sessionId} timed out after ${this.timeoutMs} ms: falling back`);
      this.publisher
        .publish([{ kind: 'summary.timed-out', sessionId, tenant, requestId, afterMs: this.timeoutMs }])
        .catch((error: unknown) => {
          // Kafka is down: try again later rather than leave the session waiting forever.
          this.logger.error(`could not publish the timeout of ${requestId}: ${(error as Error).message}`);
          this.start(sessionId, requestId, tenant);
        });
    }, this.timeoutMs);
    timer.unref();
    this.timers.set(requestId, { sessionId, timer });
  }

  clear(requestId: string): void {
    const entry = this.timers.get(requestId);
    if (entry) clearTimeout(entry.timer);
    this.timers.delete(requestId);
  }

  clearSession(sessionId: string): void {
    for (const [requestId, entry] of this.timers) if (entry.sessionId === sessionId) this.clear(requestId);
  }

  onModuleDestroy(): void {
    for (const requestId of [...this.timers.keys()]) this.clear(requestId);
  }
}

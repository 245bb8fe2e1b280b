import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ChatMessage } from '@ctxledger/context-engine';
import type { EventEnvelope } from '@ctxledger/contracts';
import { SummarizerMetrics } from '../summarization/summarizer.metrics';
import { Summarizer, type SummaryJob, type SummaryOutcome } from '../summarization/summarizer';
import { RESULT_PUBLISHER, resultEventId, type ResultPublisher } from './result-publisher';
import { SUMMARY_STORE, type StoredSummary, type SummaryStore } from './summary-store';
import { summarizerTestHooks, type SummarizerTestHooks } from '../testing/test-hooks';

/** Logged by the test hook once a result is stored and before it is published (the test then kills the process). */
export const PAUSED_AFTER_STORE_MARKER = 'test hook: paused after storing the result of';

/**
 * The use case "answer a summary request", idempotent on the request id: a stored result is reused (and
 * published if it was not yet) instead of calling the LLM again; a new result is stored first, then published.
 * A crash anywhere in between is repaired by the redelivery of the request.
 */
@Injectable()
export class SummaryRequestsService {
  private readonly logger = new Logger(SummaryRequestsService.name);
  /** Requests being handled in this process: a second delivery meanwhile (a rebalance) waits for the first. */
  private readonly inFlight = new Map<string, Promise<StoredSummary>>();

  constructor(
    @Inject(SUMMARY_STORE) private readonly store: SummaryStore,
    @Inject(RESULT_PUBLISHER) private readonly publisher: ResultPublisher,
    private readonly summarizer: Summarizer,
    private readonly metrics: SummarizerMetrics,
    @Optional() @Inject(summarizerTestHooks.KEY) private readonly testHooks?: SummarizerTestHooks,
  ) {}

  handle(request: EventEnvelope<'summary.requested'>): Promise<StoredSummary> {
    const { requestId } = request.data;
    const running = this.inFlight.get(requestId);
    if (running) return running;
    const handling = this.handleOnce(request).finally(() => this.inFlight.delete(requestId));
    this.inFlight.set(requestId, handling);
    return handling;
  }

  private async handleOnce(request: EventEnvelope<'summary.requested'>): Promise<StoredSummary> {
    const started = performance.now();
    const { requestId } = request.data;
    const existing = await this.store.find(requestId);
    if (existing?.reusable) {
      if (existing.publishedAt === undefined) await this.publish(existing, request);
      this.metrics.request(existing.provider, 'reused');
      this.logger.log(
        `${requestId}: reusing the stored ${existing.outcome} result (${existing.provider})${existing.publishedAt ? ', already published' : ''}`,
      );
      return existing;
    }

    const outcome = await this.summarizer.summarize(toJob(request));
    const stored = await this.store.save(toRecord(outcome, request, (existing?.attempt ?? 0) + 1, new Date()));
    this.metrics.request(outcome.provider, outcome.kind, (performance.now() - started) / 1000);
    this.logOutcome(requestId, outcome);

    if (this.testHooks?.pauseAfterStore) {
      this.logger.warn(`${PAUSED_AFTER_STORE_MARKER} ${requestId}`);
      await new Promise<never>(() => undefined);
    }
    await this.publish(stored, request);
    return stored;
  }

  private async publish(result: StoredSummary, request: EventEnvelope<'summary.requested'>): Promise<void> {
    await this.publisher.publish(result, request);
    await this.store.markPublished(result.requestId, result.attempt, new Date());
    this.logger.debug(`${result.requestId}: published ${resultEventId(result)}`);
  }

  private logOutcome(requestId: string, outcome: SummaryOutcome): void {
    if (outcome.kind === 'completed') {
      const via = outcome.fallbackFrom ? ` (fallback; ${outcome.fallbackFrom.reason})` : '';
      const log = outcome.fallbackFrom ? this.logger.warn.bind(this.logger) : this.logger.log.bind(this.logger);
      log(`${requestId}: summary by ${outcome.provider}${outcome.model ? ` ${outcome.model}` : ''}${via}`);
    } else {
      this.logger.warn(`${requestId}: failed (retryable: ${outcome.retryable}): ${outcome.reason}`);
    }
  }
}

export function toJob(request: EventEnvelope<'summary.requested'>): SummaryJob {
  const { data } = request;
  return {
    requestId: data.requestId,
    messages: data.messages as readonly ChatMessage[],
    ...(data.previousSummary !== undefined && { previousSummary: data.previousSummary }),
    maxSummaryTokens: data.maxSummaryTokens,
    ...(data.form !== undefined && { form: data.form }),
    ...(data.summarizer !== undefined && { choice: data.summarizer }),
  };
}

function toRecord(
  outcome: SummaryOutcome,
  request: EventEnvelope<'summary.requested'>,
  attempt: number,
  now: Date,
): StoredSummary {
  const base = {
    requestId: request.data.requestId,
    sessionId: request.sessionId,
    tenant: request.tenant,
    provider: outcome.provider,
    ...(outcome.model !== undefined && { model: outcome.model }),
    attempt,
    createdAt: now,
  };
  if (outcome.kind === 'completed') {
    return {
      ...base,
      outcome: 'completed',
      summary: outcome.summary,
      ...(outcome.inputTokens !== undefined && { inputTokens: outcome.inputTokens }),
      ...(outcome.outputTokens !== undefined && { outputTokens: outcome.outputTokens }),
      reusable: true,
    };
  }
  return {
    ...base,
    outcome: 'failed',
    reason: outcome.reason.slice(0, 20_000),
    retryable: outcome.retryable,
    reusable: outcome.reusable,
  };
}

import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@ctxledger/observability';
import type { ProviderName } from '../config/summarizer-service.env';
import type { CallFailureKind } from './provider-call';
import type { RejectionCode } from './summary-checks';
import type { SummarizerObserver } from './summarizer';

export type RequestOutcome = 'completed' | 'failed' | 'reused';

/** The summarizer's metrics. Labels are providers, outcomes and reasons: never session, tenant or request ids. */
@Injectable()
export class SummarizerMetrics implements SummarizerObserver {
  readonly requests: Counter<'provider' | 'outcome'>;
  readonly requestDuration: Histogram<'provider' | 'outcome'>;
  readonly calls: Counter<'provider' | 'outcome'>;
  readonly callDuration: Histogram<'provider' | 'outcome'>;
  readonly inputTokens: Counter<'provider'>;
  readonly outputTokens: Counter<'provider'>;
  readonly retries: Counter<'provider' | 'reason'>;
  readonly fallbacks: Counter<'provider' | 'reason'>;
  readonly rejections: Counter<'provider' | 'reason'>;
  readonly splits: Counter<'provider'>;
  readonly trims: Counter<'provider'>;
  readonly inFlightCalls: Gauge<'provider'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'ctxledger_summarizer_requests_total',
      help: 'Summary requests handled, by provider and outcome (completed, failed, reused = a stored result republished)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'ctxledger_summarizer_request_duration_seconds',
      help: 'Time from a summary request to its stored result, retries and parts included, by provider and outcome',
      labelNames: ['provider', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160],
      registers,
    });
    this.calls = new Counter({
      name: 'ctxledger_summarizer_provider_calls_total',
      help: 'LLM provider calls (attempts), by provider and outcome (ok, rate-limit, overflow, auth, network, timeout, malformed, server, other)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.callDuration = new Histogram({
      name: 'ctxledger_summarizer_provider_call_duration_seconds',
      help: 'Latency of one LLM provider call, by provider and outcome',
      labelNames: ['provider', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120],
      registers,
    });
    this.inputTokens = new Counter({
      name: 'ctxledger_summarizer_input_tokens_total',
      help: 'Input tokens sent to LLM providers (as they reported them, else estimated)',
      labelNames: ['provider'],
      registers,
    });
    this.outputTokens = new Counter({
      name: 'ctxledger_summarizer_output_tokens_total',
      help: 'Output tokens received from LLM providers (as they reported them, else estimated)',
      labelNames: ['provider'],
      registers,
    });
    this.retries = new Counter({
      name: 'ctxledger_summarizer_retries_total',
      help: 'Provider calls retried, by provider and the failure that caused the retry',
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'ctxledger_summarizer_fallbacks_total',
      help: 'Requests answered by the offline summarizer because the LLM failed, by provider and reason',
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.rejections = new Counter({
      name: 'ctxledger_summarizer_rejections_total',
      help: 'Summaries rejected by the guarantees (empty, over-max-tokens, over-max-chars, not-smaller, truncated)',
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.splits = new Counter({
      name: 'ctxledger_summarizer_split_parts_total',
      help: "Parts written for inputs over the summarizer model's window",
      labelNames: ['provider'],
      registers,
    });
    this.trims = new Counter({
      name: 'ctxledger_summarizer_gists_trimmed_total',
      help: 'Gists the model wrote past their cap, published cut back to their whole sentences within it',
      labelNames: ['provider'],
      registers,
    });
    this.inFlightCalls = new Gauge({
      name: 'ctxledger_summarizer_in_flight_calls',
      help: 'LLM provider calls in progress, by provider (bounded by the per-provider concurrency limit)',
      labelNames: ['provider'],
      registers,
    });
  }

  attempt(provider: ProviderName, outcome: CallFailureKind | 'ok', seconds: number): void {
    this.calls.inc({ provider, outcome });
    this.callDuration.observe({ provider, outcome }, seconds);
  }

  retry(provider: ProviderName, kind: CallFailureKind): void {
    this.retries.inc({ provider, reason: kind });
  }

  tokens(provider: ProviderName, input: number, output: number): void {
    this.inputTokens.inc({ provider }, input);
    this.outputTokens.inc({ provider }, output);
  }

  split(provider: ProviderName, parts: number): void {
    this.splits.inc({ provider }, parts);
  }

  rejected(provider: ProviderName, code: RejectionCode): void {
    this.rejections.inc({ provider, reason: code });
  }

  trimmed(provider: ProviderName): void {
    this.trims.inc({ provider });
  }

  fallback(provider: ProviderName, reason: string): void {
    this.fallbacks.inc({ provider, reason });
  }

  inFlight(provider: ProviderName, delta: number): void {
    this.inFlightCalls.inc({ provider }, delta);
  }

  request(provider: ProviderName, outcome: RequestOutcome, seconds?: number): void {
    this.requests.inc({ provider, outcome });
    if (seconds !== undefined) this.requestDuration.observe({ provider, outcome }, seconds);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@ctxledger/observability';
import type { CompactionBlock } from '@ctxledger/context-engine';

/** The compaction service's metrics. Labels never carry session, tenant or message ids. */
@Injectable()
export class CompactionMetrics {
  readonly tokensSaved: Counter<'stage'>;
  readonly tokensSavedCurrent: Gauge<'stage'>;
  readonly blocks: Counter<'stage'>;
  readonly reverts: Counter;
  readonly compactionDuration: Histogram<'trigger'>;
  readonly outcomes: Counter<'trigger' | 'outcome'>;
  readonly summaryRequests: Counter;
  readonly summaryTimeouts: Counter;
  readonly historyTokens: Gauge<'view'>;
  readonly sessions: Gauge;
  readonly sessionsOverBudget: Gauge;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const registers = [registry];
    this.tokensSaved = new Counter({
      name: 'ctxledger_tokens_saved_total',
      help:
        'Tokens saved by the blocks this instance created since it started, by stage (the tokensSaved of each block ' +
        'when created). A counter: a revert does not take its savings back — the savings in force now are ' +
        'ctxledger_tokens_saved_current, per session GET /v1/sessions/{id}/stats savedByStage',
      labelNames: ['stage'],
      registers,
    });
    this.tokensSavedCurrent = new Gauge({
      name: 'ctxledger_tokens_saved_current',
      help:
        'Tokens the active blocks save now in the sessions this instance holds, by stage: the sum of their ' +
        'GET /v1/sessions/{id}/stats savedByStage (what the visible edits hide, minus their replacements). Goes down ' +
        'when a block is reverted or its session moves to another instance',
      labelNames: ['stage'],
      registers,
    });
    this.blocks = new Counter({
      name: 'ctxledger_blocks_created_total',
      help: 'Compaction blocks created, by stage',
      labelNames: ['stage'],
      registers,
    });
    this.reverts = new Counter({
      name: 'ctxledger_blocks_reverted_total',
      help: 'Compaction blocks reverted',
      registers,
    });
    this.compactionDuration = new Histogram({
      name: 'ctxledger_compaction_duration_seconds',
      help: 'Time to decide a compaction (engine only), by trigger',
      labelNames: ['trigger'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    });
    this.outcomes = new Counter({
      name: 'ctxledger_compactions_total',
      help: 'Compaction decisions by trigger and outcome (completed, skipped, refused)',
      labelNames: ['trigger', 'outcome'],
      registers,
    });
    this.summaryRequests = new Counter({
      name: 'ctxledger_summary_requests_total',
      help: 'Summary requests sent to the summarizer',
      registers,
    });
    this.summaryTimeouts = new Counter({
      name: 'ctxledger_summary_timeouts_total',
      help: 'Summaries that did not arrive in time (fallback used)',
      registers,
    });
    this.historyTokens = new Gauge({
      name: 'ctxledger_history_tokens',
      help: 'Tokens of the sessions held by this instance: full (all originals) and effective (as served)',
      labelNames: ['view'],
      registers,
    });
    this.sessions = new Gauge({
      name: 'ctxledger_sessions',
      help: 'Sessions held in memory by this instance',
      registers,
    });
    this.sessionsOverBudget = new Gauge({
      name: 'ctxledger_sessions_over_budget',
      help: 'Sessions whose effective history is over its budget',
      registers,
    });
  }

  blockCreated(block: CompactionBlock): void {
    this.blocks.inc({ stage: block.stage });
    this.tokensSaved.inc({ stage: block.stage }, block.tokensSaved);
  }
}

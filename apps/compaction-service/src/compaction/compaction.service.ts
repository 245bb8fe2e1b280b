import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { SERVICE_ENV } from '@ctxledger/platform';
import {
  decide,
  effectiveTotal,
  evolve,
  initialSessionState,
  rawTotal,
  runCommand,
  sessionStats,
  type SessionCommand,
  type SessionConfig,
  type SessionEvent,
  type SessionState,
  type Stage,
} from '@ctxledger/context-engine';
import {
  foreignTenantReason,
  isEventOf,
  MessageSequencer,
  mergeSessionConfig,
  refusedConfigReason,
  sessionConfigViolations,
  toChatMessage,
  toEngineConfig,
  unhandledEvent,
  type AnyEvent,
  type SessionConfiguredData,
} from '@ctxledger/contracts';
import {
  errorMessage,
  isPoison,
  PoisonEventError,
  type BatchHandlerResult,
  type KafkaEventBatch,
} from '@ctxledger/kafka';
import { runWithCorrelation } from '@ctxledger/observability';
import { CompactionMetrics } from './compaction.metrics';
import { EventPublisher, type Outgoing } from './event-publisher';
import { SessionPauses } from './session-pauses';
import { SummaryTimeouts } from './summary-timeouts';

/** What the service keeps per session: the engine's state and what numbering and config need. */
interface SessionRuntime {
  state: SessionState;
  /** The tenant of the session's first event: events of another tenant are refused. */
  readonly tenant: string;
  readonly partition: number;
  readonly sequencer: MessageSequencer;
  wireConfig?: SessionConfiguredData;
  /** The session's savings by stage now (its /stats savedByStage), as last added to the current-savings gauge. */
  saved?: {
    readonly active: readonly string[];
    readonly counter: unknown;
    readonly byStage: Partial<Record<Stage, number>>;
  };
}

interface BatchProgress {
  /** The next event to fold. */
  next: number;
  readonly groups: Array<{ readonly eventId: string; readonly outgoing: Outgoing[]; readonly correlationId?: string }>;
  readonly poison: Array<{ readonly offset: string; readonly reason: string }>;
  readonly eventIds: Set<string>;
}

export interface EventOrigin {
  readonly partition: number;
  /** Already processed before a restart: rebuild the state, emit nothing. */
  readonly replay: boolean;
}

/**
 * Folds each session's stream through the engine's decider and emits what it decides: blocks, block
 * reverts and summary requests. The state is partition-affine (one session, one partition, one instance)
 * and rebuilt from the log after a restart or rebalance (the transport replays the partition).
 */
@Injectable()
export class CompactionService {
  private readonly logger = new Logger(CompactionService.name);
  private readonly sessions = new Map<string, SessionRuntime>();
  private rawTokens = 0;
  private effectiveTokens = 0;
  private readonly overBudget = new Set<string>();
  /** Σ over the sessions held of their savings by stage (ctxledger_tokens_saved_current). */
  private readonly savedByStage = new Map<Stage, number>();
  /** Decisions of events whose publication failed, by event id, until a retry publishes them. */
  private readonly unpublished = new Map<string, Outgoing[]>();
  /** How far a batch got when its send failed: the transport's retry hands the same batch again. */
  private readonly batchProgress = new WeakMap<KafkaEventBatch, BatchProgress>();

  /** Whether sessions ask for model summaries of what the engine condenses deterministically (DIGEST_SUMMARIES). */
  private readonly digestSummaries: 'on' | 'off';

  constructor(
    private readonly publisher: EventPublisher,
    private readonly timeouts: SummaryTimeouts,
    private readonly metrics: CompactionMetrics,
    private readonly pauses: SessionPauses,
    @Optional()
    @Inject(SERVICE_ENV)
    env?: { readonly DIGEST_SUMMARIES?: string; readonly SUMMARIZER_PROVIDER?: string },
  ) {
    this.digestSummaries = digestSummariesSetting(env?.DIGEST_SUMMARIES, env?.SUMMARIZER_PROVIDER);
  }

  async handle(event: AnyEvent, origin: EventOrigin): Promise<void> {
    const out = this.decideOnce(event, origin);
    if (!out) return;
    await this.publisher.publish(out);
    this.unpublished.delete(event.eventId);
  }

  /**
   * A partition's batch (the transport's batch handler): folds every event in order, then sends all that they
   * decided, in order, in as few requests as fit, before it returns — so before the transport commits the batch.
   * Poison events are returned for the dead-letter topic; replayed events only rebuild the state. A failed send
   * throws and the transport retries the batch: what was already folded is not folded again (the batch's
   * progress; `unpublished` when the batch is redelivered after a rebalance).
   */
  async handleBatch(batch: KafkaEventBatch): Promise<BatchHandlerResult> {
    let progress = this.batchProgress.get(batch);
    if (!progress) {
      progress = { next: 0, groups: [], poison: [], eventIds: new Set() };
      this.batchProgress.set(batch, progress);
    }
    for (; progress.next < batch.events.length; progress.next++) {
      const i = progress.next;
      const event = batch.events[i]!;
      const origin = { partition: batch.partition, replay: batch.replays?.[i] === true };
      // The same event twice in one batch is folded twice, as one by one (its first decision is not sent yet).
      const again = progress.eventIds.has(event.eventId);
      const correlationId = batch.correlationIds?.[i];
      const decide = () => this.decideOnce(event, origin, !again);
      try {
        const outgoing =
          correlationId === undefined
            ? decide()
            : runWithCorrelation({ correlationId, sessionId: event.sessionId }, decide);
        if (outgoing) progress.groups.push({ eventId: event.eventId, outgoing, correlationId });
        progress.eventIds.add(event.eventId);
      } catch (error) {
        if (!isPoison(error)) throw error;
        progress.poison.push({ offset: batch.offsets[i]!, reason: errorMessage(error) });
      }
    }
    await this.publisher.publishAll(progress.groups);
    for (const { eventId } of progress.groups) this.unpublished.delete(eventId);
    this.batchProgress.delete(batch);
    return { poison: progress.poison };
  }

  /**
   * Folds the event and returns what it decided to send (nothing for a replay). A retry after a failed publish
   * (Kafka down) must not fold the event twice: it gets what the event decided the first time.
   */
  private decideOnce(event: AnyEvent, origin: EventOrigin, retry = true): Outgoing[] | undefined {
    let out = retry ? this.unpublished.get(event.eventId) : undefined;
    if (!out) {
      const session = this.sessionFor(event, origin.partition);
      const foreign = foreignTenantReason(session.tenant, event);
      if (foreign) throw new PoisonEventError(foreign);
      const before = { raw: rawTotal(session.state), effective: effectiveTotal(session.state) };
      const decided = this.apply(session, event);
      this.track(event.sessionId, session, before);
      this.trackSavings(session);
      if (origin.replay) return undefined;
      this.watchForPause(event, session, decided);
      out = this.outgoing(event, session, decided);
      this.unpublished.set(event.eventId, out);
    }
    return out;
  }

  /** Drops the sessions of partitions this instance no longer owns (a rebalance moved them). */
  keepPartitions(partitions: ReadonlySet<number>): void {
    const leaving = [...this.sessions].filter(([, session]) => !partitions.has(session.partition));
    this.pauses.forget(leaving.map(([sessionId]) => sessionId));
    for (const [sessionId, session] of leaving) {
      this.track(sessionId, undefined, { raw: rawTotal(session.state), effective: effectiveTotal(session.state) });
      this.trackSavings(session, true);
      this.sessions.delete(sessionId);
      this.timeouts.clearSession(sessionId);
    }
  }

  /** For tests and stats: the engine state of a session held here. */
  stateOf(sessionId: string): SessionState | undefined {
    return this.sessions.get(sessionId)?.state;
  }

  private apply(session: SessionRuntime, event: AnyEvent): SessionEvent[] {
    // Only the session stream reaches this consumer (the transport refuses a type of another stream on its topic).
    if (!isEventOf(event, 'sessionEvents')) return [];
    switch (event.type) {
      case 'session.configured': {
        const wireConfig = mergeSessionConfig(session.wireConfig, event.data);
        // The same check as the HTTP path's and the projector's: refused whole, the session keeps its config.
        const violations = sessionConfigViolations(wireConfig);
        if (violations.length > 0) throw new PoisonEventError(refusedConfigReason(violations));
        let configured: SessionEvent;
        try {
          configured = { type: 'SessionConfigured', data: { config: this.engineConfig(wireConfig) } };
          session.state = evolve(session.state, configured);
        } catch (error) {
          throw new PoisonEventError(`the session configuration cannot be applied: ${(error as Error).message}`);
        }
        session.wireConfig = wireConfig;
        return [configured, ...this.run(session, { type: 'Compact', data: { trigger: 'auto' } })];
      }
      case 'message.appended': {
        const position = session.sequencer.assign(event.data);
        if (position === undefined) return []; // a duplicate clientMessageId: already appended
        session.state = evolve(session.state, {
          type: 'MessageAppended',
          data: { position, message: toChatMessage(event.data) },
        });
        return this.run(session, { type: 'Compact', data: { trigger: 'auto' } });
      }
      case 'compaction.requested':
        if (event.data.trigger === 'pause') return this.run(session, { type: 'SummarizeNote' });
        return this.run(session, {
          type: 'Compact',
          data: { trigger: event.data.trigger, errorText: event.data.errorText },
        });
      case 'summary.completed':
        this.timeouts.clear(event.data.requestId);
        return this.run(session, {
          type: 'CompleteSummary',
          data: { requestId: event.data.requestId, summary: event.data.summary, provider: event.data.provider },
        });
      case 'summary.failed':
        this.timeouts.clear(event.data.requestId);
        return this.run(session, {
          type: 'FailSummary',
          data: { requestId: event.data.requestId, reason: event.data.reason },
        });
      case 'block-revert.requested': {
        if (!session.state.active.includes(event.data.blockId)) {
          this.logger.log(`revert of ${event.data.blockId} in ${event.sessionId} ignored: not an active block`);
          return [];
        }
        const reverted: SessionEvent = { type: 'BlockReverted', data: { blockId: event.data.blockId } };
        session.state = evolve(session.state, reverted);
        return [reverted];
      }
      default:
        return unhandledEvent(event); // compiles only while every session-stream type has its case above
    }
  }

  /**
   * decide → evolve each decided event; returns them. The state changes only if every decided event
   * folds cleanly: an engine failure leaves the session as it was (logged, counted) instead of stopping
   * its partition — the message itself is already appended, and the next change decides again.
   */
  private run(session: SessionRuntime, command: SessionCommand): SessionEvent[] {
    const trigger =
      command.type === 'Compact' ? command.data.trigger : command.type === 'SummarizeNote' ? 'pause' : 'summary';
    const stop = this.metrics.compactionDuration.startTimer({ trigger });
    try {
      const { state, events } = runCommand(session.state, command);
      session.state = state;
      if (events.length > 0) stop();
      return events;
    } catch (error) {
      this.metrics.outcomes.inc({ trigger, outcome: 'error' });
      this.logger.error(
        `engine failed on ${command.type} for ${session.state.sessionId}: ${(error as Error).stack ?? error}`,
      );
      return [];
    }
  }

  private outgoing(source: AnyEvent, session: SessionRuntime, decided: readonly SessionEvent[]): Outgoing[] {
    const out: Outgoing[] = [];
    for (const e of decided) {
      switch (e.type) {
        case 'BlockCreated':
          this.metrics.blockCreated(e.data.block);
          out.push({ kind: 'block.created', source, block: e.data.block });
          break;
        case 'BlockReverted':
          this.metrics.reverts.inc();
          out.push({ kind: 'block.reverted', source, blockId: e.data.blockId });
          break;
        case 'SummaryRequested':
          this.metrics.summaryRequests.inc();
          this.timeouts.start(source.sessionId, e.data.request.requestId, source.tenant);
          out.push({
            kind: 'summary.requested',
            source,
            request: e.data.request,
            summarizer: session.wireConfig?.summarizer,
          });
          break;
        case 'CompactionCompleted':
          this.metrics.outcomes.inc({ trigger: e.data.trigger, outcome: 'completed' });
          break;
        case 'CompactionSkipped':
          if (e.data.reason !== 'fits') this.metrics.outcomes.inc({ trigger: e.data.trigger, outcome: 'skipped' });
          break;
        case 'CompactionRefused':
          this.metrics.outcomes.inc({ trigger: e.data.trigger, outcome: 'refused' });
          this.logger.warn(`compaction refused for ${source.sessionId}: ${e.data.reason} (${e.data.detail})`);
          break;
        default:
          break;
      }
    }
    return out;
  }

  /**
   * Policy `digestSummaries: 'pause'`: a message restarts the session's quiet period; a compaction, or a note's
   * summary answered or given up, starts one (another note may be worth a summary once the session is quiet).
   */
  private watchForPause(event: AnyEvent, session: SessionRuntime, decided: readonly SessionEvent[]): void {
    if (session.state.policy.digestSummaries !== 'pause') return;
    const { sessionId, tenant } = event;
    if (event.type === 'message.appended') this.pauses.touch(sessionId);
    const changed = decided.some(
      (e) => e.type === 'BlockCreated' || e.type === 'SummaryRejected' || e.type === 'SummaryFailed',
    );
    if (changed) this.pauses.watch(sessionId, () => void this.paused(sessionId, tenant));
  }

  /** The session went quiet: the pause goes to the log when the engine would ask a note's summary now. */
  private async paused(sessionId: string, tenant: string): Promise<void> {
    const state = this.sessions.get(sessionId)?.state;
    if (!state || decide({ type: 'SummarizeNote' }, state).length === 0) return;
    // The same state gives the same id: a pause noted twice (a retry) is recognizable.
    const eventId = `pause:${sessionId}:${state.originals.length}:${state.blocks.size}`;
    try {
      await this.publisher.publish([{ kind: 'session.paused', sessionId, tenant, eventId }]);
    } catch (error) {
      this.logger.warn(`could not note the pause of ${sessionId}: ${(error as Error).message}; waiting again`);
      this.pauses.watch(sessionId, () => void this.paused(sessionId, tenant));
    }
  }

  /**
   * The engine's configuration of a session: its own, with the deployment's digest-summary default unless its
   * summarizer choice names a provider (a model: on; `offline`: off) or its policy sets `digestSummaries` itself.
   */
  private engineConfig(wire: SessionConfiguredData | undefined): SessionConfig {
    const config = toEngineConfig(wire);
    const chosen = wire?.summarizer?.provider;
    const asked = chosen ? (chosen === 'offline' ? 'off' : 'on') : this.digestSummaries;
    // With a quiet period, a note's summary is asked when the session pauses rather than at each compaction.
    const digestSummaries = asked === 'on' && this.pauses.quietMs > 0 ? 'pause' : asked;
    return { ...config, policy: { digestSummaries, ...(config.policy ?? {}) } };
  }

  private sessionFor({ sessionId, tenant }: AnyEvent, partition: number): SessionRuntime {
    let session = this.sessions.get(sessionId);
    if (!session) {
      const state = initialSessionState(sessionId, this.engineConfig(undefined));
      session = { state, tenant, partition, sequencer: new MessageSequencer() };
      this.sessions.set(sessionId, session);
      this.metrics.sessions.set(this.sessions.size);
    }
    return session;
  }

  /**
   * Keeps the current-savings gauge as a running sum: a session's savings by stage are recomputed (O(history))
   * only when its active blocks or its token counter changed — an appended message changes no saving.
   */
  private trackSavings(session: SessionRuntime, dropped = false): void {
    const { state } = session;
    const unchanged = session.saved?.active === state.active && session.saved.counter === state.counter;
    if (unchanged && !dropped) return;
    const next = dropped ? {} : sessionStats(state).savedByStage;
    const stages = new Set([...Object.keys(session.saved?.byStage ?? {}), ...Object.keys(next)] as Stage[]);
    for (const stage of stages) {
      const delta = (next[stage] ?? 0) - (session.saved?.byStage[stage] ?? 0);
      if (delta === 0) continue;
      const total = (this.savedByStage.get(stage) ?? 0) + delta;
      this.savedByStage.set(stage, total);
      this.metrics.tokensSavedCurrent.set({ stage }, total);
    }
    session.saved = { active: state.active, counter: state.counter, byStage: next };
  }

  /** Keeps the history-token gauges as running sums (no rescan of every session). */
  private track(
    sessionId: string,
    session: SessionRuntime | undefined,
    before: { raw: number; effective: number },
  ): void {
    const raw = session ? rawTotal(session.state) : 0;
    const effective = session ? effectiveTotal(session.state) : 0;
    this.rawTokens += raw - before.raw;
    this.effectiveTokens += effective - before.effective;
    this.metrics.historyTokens.set({ view: 'full' }, this.rawTokens);
    this.metrics.historyTokens.set({ view: 'effective' }, this.effectiveTokens);
    if (session && effective > session.state.budget.historyBudget) this.overBudget.add(sessionId);
    else this.overBudget.delete(sessionId);
    this.metrics.sessionsOverBudget.set(this.overBudget.size);
    this.metrics.sessions.set(this.sessions.size);
  }
}

/** DIGEST_SUMMARIES: `auto` follows the summarizer's default provider (on for a model, off for `offline`). */
export function digestSummariesSetting(
  setting: string | undefined,
  summarizerProvider: string | undefined,
): 'on' | 'off' {
  if (setting === 'on' || setting === 'off') return setting;
  return summarizerProvider && summarizerProvider !== 'offline' ? 'on' : 'off';
}

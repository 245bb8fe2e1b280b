/**
 * Replays transcripts through the engine's decider exactly as the compaction service drives it: each
 * message is appended (evolve MessageAppended), then `runCommand(Compact auto)` decides and folds what it
 * decided. A summary request is answered at once by the offline deterministic summarizer
 * (`runCommand(CompleteSummary)`): the engine has no LLM. Pure apart from the clock-free engine: same input,
 * same report.
 */
import {
  ENGINE_VERSION,
  counterFor,
  effectiveEntries,
  effectiveTotal,
  estimateMessagesTokens,
  evolve,
  floorPositions,
  initialSessionState,
  missingFloor,
  pairViolations,
  rawTotal,
  runCommand,
  sessionStats,
  type ChatMessage,
  type SessionCommand,
  type SessionConfig,
  type SessionEvent,
  type SessionState,
  type Stage,
  type SummaryRequest,
  type ToolPairViolation,
} from '@ctxledger/context-engine';
import { summarizeDeterministic } from '@ctxledger/context-engine/summarizer';
import {
  CACHE_PROVIDERS,
  PromptCacheMeter,
  addBill,
  emptyTotals,
  pricingFor,
  PRICING,
  type CacheProvider,
  type CostTotals,
  type PromptItem,
} from './cost';
import {
  parseTranscripts,
  toTranscriptMessage,
  type InputError,
  type TranscriptMessage,
  type TranscriptSession,
} from './input';

export interface ReplayOptions {
  /** Provider for every session; default: inferred per session (see `inferProvider`). */
  readonly provider?: string;
  /** Model for every session; default: the session's meta model when the provider is inferred. */
  readonly model?: string;
  /** Explicit context window (beats the registry). */
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  /** History budget = budgetRatio × the session's own estimated full size (forces compaction). */
  readonly budgetRatio?: number;
  /** Record the effective history at each user message too. */
  readonly everyTurn?: boolean;
  /** 'exact': js-tiktoken for OpenAI sessions. */
  readonly tokenizer?: 'estimate' | 'exact';
  /**
   * Policy digestSummaries 'on': the engine also asks for model summaries of what it condenses deterministically.
   * A request is answered from `digestAnswers` (by request id) when it has an answer there, and otherwise left
   * unanswered (listed in the report: a driver with a model answers it and replays again).
   */
  readonly digestSummaries?: boolean;
  readonly digestAnswers?: ReadonlyMap<string, DigestAnswer>;
  /**
   * Messages appended after a summary request before its answer comes (0, the default: at once). The service's
   * summaries take a model's time, and the agent goes on meanwhile: the engine compacts without the summary and the
   * answer then lands on a view that moved on.
   */
  readonly summaryLag?: number;
}

/** A model's answer to a digest summary request: its summary and who wrote it, or why it failed. */
export type DigestAnswer = { readonly summary: string; readonly provider: string } | { readonly failed: string };

export interface BlockReport {
  readonly id: string;
  readonly stage: Stage;
  readonly range: { readonly from: number; readonly to: number };
  readonly edits: readonly { readonly from: number; readonly to: number; readonly replacementMessages: number }[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly tokensSaved: number;
  readonly basedOnPosition: number;
  /** Still part of the effective history at the end (not absorbed by a later block's edit). */
  readonly visible: boolean;
}

export interface TurnReport {
  /** Input position of the user message. */
  readonly index: number;
  readonly tokens: number;
  readonly fits: boolean;
  readonly effective: TranscriptMessage[];
}

/**
 * Model calls (assistant messages) between consecutive compactions of a session: a replay step (one
 * appended message) that completed one compaction or more counts once.
 */
export interface TurnsBetweenCompactions {
  /** Model calls made before each compaction step. */
  readonly at: number[];
  /** Calls between consecutive compaction steps. */
  readonly list: number[];
  readonly min: number | null;
  readonly median: number | null;
}

/** One run's input cost under one pricing (see ./cost.ts): billed in base-input-token equivalents. */
export interface PricedCost {
  readonly withCompaction: number;
  readonly withoutCompaction: number;
  /** (withCompaction + summary calls) / withoutCompaction: under 1 is net cheaper after cache. */
  readonly ratio: number;
}

/**
 * Prompt-cache-aware input cost of the session's model calls: each assistant message of the transcript is
 * one call whose prompt is the effective history just before it is appended, with compaction (the engine's
 * view) and without (the raw transcript, as if the window were unlimited).
 */
export interface SessionCost {
  /** The pricing applied (from the session's provider). */
  readonly pricing: CacheProvider;
  readonly calls: number;
  readonly withCompaction: CostTotals;
  readonly withoutCompaction: CostTotals;
  /**
   * Summary requests the engine made (answered offline here; an LLM in the service) and their input tokens,
   * billed uncached at the base input price: a cost of compaction that the calls above do not show.
   */
  readonly summaryCalls: number;
  readonly summaryInputTokens: number;
  /** (withCompaction.billed + summaryInputTokens) / withoutCompaction.billed: under 1 is net cheaper after cache. */
  readonly ratio: number;
  /** Compactions that changed a message of the previous call's prompt (invalidating its cached prefix). */
  readonly cacheInvalidatingCompactions: number;
  /** Calls whose raw prompt exceeds the history budget: they would have failed without compaction. */
  readonly callsOverBudgetWithout: number;
  /** The same billed totals under each provider's pricing. */
  readonly byPricing: Record<CacheProvider, PricedCost>;
}

export interface SessionReport {
  readonly id: string;
  /** The session's `source` field (agent family / repository), when given. */
  readonly source?: string;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly budget: number;
  readonly fits: boolean;
  readonly reason?: string;
  /** Tokens saved by the stages whose edits are visible at the end (sums to tokensBefore − tokensAfter). */
  readonly stages: Partial<Record<Stage, number>>;
  readonly blocks: BlockReport[];
  /**
   * Tool-pair violations compaction created in the effective history (calls still pending at the very end
   * excluded): a violation of the input itself (a call the agent left unanswered) that is still shown as it was
   * is counted in `inputOrphansShown` instead.
   */
  readonly orphans: number;
  /** The input's own violations still in the effective history (the service's tool-pair repair answers those). */
  readonly inputOrphansShown: number;
  readonly orphanDetails?: ToolPairViolation[];
  /** The same count on the input itself (a transcript may be broken before any compaction). */
  readonly inputOrphans: number;
  /** The last user message, the last assistant text reply and the last 6 conversational messages are verbatim. */
  readonly floorKept: boolean;
  /** Input positions of the floor messages missing from the effective history. */
  readonly floorMissing?: number[];
  /**
   * Tokens of what must stay verbatim at the end: the leading system messages (never compacted), the floor
   * messages and the conversation framing. Over `budget`, the session cannot fit by construction.
   */
  readonly protectedTokens: number;
  /** When the session does not fit: whether `protectedTokens` alone explains it. */
  readonly diagnosis?: string;
  readonly provider: string;
  readonly model?: string;
  readonly contextWindow: number;
  readonly compactions: number;
  readonly summaries: {
    readonly requested: number;
    readonly completed: number;
    readonly rejected: number;
    readonly failed: number;
  };
  /** Digest summaries (ReplayOptions.digestSummaries): asked, superseding their note or marker, left unanswered. */
  readonly digestSummaries: {
    readonly requested: number;
    readonly superseded: number;
    readonly rejected: number;
    readonly unanswered: readonly SummaryRequest[];
  };
  /** Refusals / no-progress outcomes the decider reported, by reason. */
  readonly refusals: Partial<Record<string, number>>;
  readonly messageTokens: number[];
  readonly effective: TranscriptMessage[];
  readonly turns?: TurnReport[];
  readonly turnsBetweenCompactions: TurnsBetweenCompactions;
  readonly cost: SessionCost;
}

export interface ReplayTotals {
  readonly sessions: number;
  readonly badLines: number;
  readonly engineErrors: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly budget: number;
  readonly fits: number;
  readonly notFitting: number;
  readonly orphans: number;
  readonly inputOrphans: number;
  readonly floorKept: number;
  readonly blocks: number;
  readonly compactions: number;
  readonly summaries: number;
  readonly stages: Partial<Record<Stage, number>>;
  /** The smallest number of model calls between two compactions of one session (null: none compacted twice). */
  readonly minTurnsBetweenCompactions: number | null;
  readonly cost: CostSummary;
  /** The same totals per session `source` (sessions without one under `(none)`). */
  readonly bySource: Record<string, { readonly sessions: number; readonly cost: CostSummary }>;
}

/** Summed session costs, each session under its own provider's pricing (`byPricing`: everything under one). */
export interface CostSummary {
  readonly calls: number;
  readonly withCompaction: CostTotals;
  readonly withoutCompaction: CostTotals;
  readonly summaryInputTokens: number;
  readonly ratio: number;
  readonly cacheInvalidatingCompactions: number;
  readonly callsOverBudgetWithout: number;
  readonly byPricing: Record<CacheProvider, PricedCost>;
}

export interface ReplayError extends InputError {
  readonly kind: 'input' | 'engine';
  readonly sessionId?: string;
}

export interface ReplayReport {
  readonly engineVersion: string;
  readonly options: ReplayOptions;
  readonly sessions: SessionReport[];
  readonly errors: ReplayError[];
  readonly totals: ReplayTotals;
}

/** Provider from the session's source/meta when obvious: pi / Claude Code → anthropic; SWE-agent gpt-4* → openai; else anthropic. */
export function inferProvider(session: Pick<TranscriptSession, 'source' | 'meta' | 'id'>): {
  provider: string;
  model?: string;
} {
  const meta = session.meta ?? {};
  const metaModel = [meta['model'], meta['startModel']].find(
    (m): m is string => typeof m === 'string' && m.trim() !== '',
  );
  const source = `${session.source ?? ''} ${session.id}`.toLowerCase();
  // "anthropic/claude-opus-4-5" → provider anthropic, model claude-opus-4-5
  const slash = metaModel?.indexOf('/') ?? -1;
  if (metaModel && slash > 0)
    return { provider: metaModel.slice(0, slash).toLowerCase(), model: metaModel.slice(slash + 1) };
  if (metaModel && /^(gpt|o[134]\b|o[134]-|chatgpt)/i.test(metaModel)) return { provider: 'openai', model: metaModel };
  if (metaModel && /^claude/i.test(metaModel)) return { provider: 'anthropic', model: metaModel };
  if (metaModel && /^gemini/i.test(metaModel)) return { provider: 'google', model: metaModel };
  if (/pi-coding-agent|claude-code/.test(source))
    return { provider: 'anthropic', ...(metaModel ? { model: metaModel } : {}) };
  return { provider: 'anthropic' };
}

/** The session configuration the replay uses (window from the budget ratio, the options or the registry). */
export function sessionConfig(session: TranscriptSession, options: ReplayOptions): SessionConfig {
  const inferred = options.provider
    ? { provider: options.provider, model: options.model }
    : { ...inferProvider(session), ...(options.model ? { model: options.model } : {}) };
  const base: SessionConfig = {
    provider: inferred.provider,
    ...(inferred.model ? { model: inferred.model } : {}),
    ...(options.tokenizer ? { tokenizer: options.tokenizer } : {}),
    ...(options.digestSummaries ? { policy: { digestSummaries: 'on' as const } } : {}),
  };
  if (options.budgetRatio !== undefined) {
    // history budget = window − output reserve (no system prompt / tool definitions here): pin the reserve
    // and size the window so that the budget is exactly ratio × the session's own estimated size.
    const counter = counterFor({ provider: base.provider, model: base.model, tokenizer: base.tokenizer });
    const full = estimateMessagesTokens(session.messages, counter);
    const budget = Math.max(1, Math.floor(options.budgetRatio * full)); // ≥ 1: an empty session fits
    const reserve = options.maxOutputTokens ?? 0;
    return { ...base, contextWindow: budget + reserve, maxOutputTokens: reserve };
  }
  return {
    ...base,
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
}

interface Tally {
  compactions: number;
  digest: { requested: number; superseded: number; rejected: number; unanswered: SummaryRequest[] };
  requested: number;
  /** Σ tokensBefore of the summary requests (the summarizer's input). */
  requestedTokens: number;
  completed: number;
  rejected: number;
  failed: number;
  refusals: Record<string, number>;
  /** Where (the number of originals) each summary request still unanswered was made (ReplayOptions.summaryLag). */
  askedAt: Map<string, number>;
}

/** Safety bound on summary round-trips per decision (a stale range is asked again at most a few times). */
const MAX_SUMMARY_ROUNDS = 8;

/** Counts what a command decided on `before` (the state it ran on). */
function count(before: SessionState, events: readonly SessionEvent[], tally: Tally, superseding: boolean): void {
  const digestIds = new Set(before.pendingDigestSummary ? [before.pendingDigestSummary.requestId] : []);
  for (const e of events) {
    switch (e.type) {
      case 'CompactionCompleted':
        tally.compactions++;
        break;
      case 'SummaryRequested':
        if (e.data.request.supersedes) {
          tally.digest.requested++;
          break;
        }
        tally.requested++;
        tally.requestedTokens += e.data.request.tokensBefore;
        break;
      case 'SummaryRejected':
        if (digestIds.has(e.data.requestId)) tally.digest.rejected++;
        else tally.rejected++;
        break;
      case 'SummaryFailed':
        tally.failed++;
        break;
      case 'BlockCreated':
        if (e.data.block.stage !== 'summary') break;
        if (superseding) tally.digest.superseded++;
        else tally.completed++;
        break;
      case 'CompactionRefused':
        tally.refusals[e.data.reason] = (tally.refusals[e.data.reason] ?? 0) + 1;
        break;
      case 'CompactionSkipped':
        if (e.data.reason === 'no-progress') tally.refusals['no-progress'] = (tally.refusals['no-progress'] ?? 0) + 1;
        break;
      default:
        break;
    }
  }
}

function run(state: SessionState, command: SessionCommand, tally: Tally, superseding = false): SessionState {
  const next = runCommand(state, command);
  count(state, next.events, tally, superseding);
  return next.state;
}

/**
 * One replay step: append the message, decide(Compact auto), answer summary requests offline (once `lag` messages
 * came after the request), and a digest summary request from `answers` when it has one (else it stays pending and is
 * listed as unanswered).
 */
export function appendAndCompact(
  state: SessionState,
  message: ChatMessage,
  tally: Tally = newTally(),
  answers?: ReadonlyMap<string, DigestAnswer>,
  lag = 0,
): SessionState {
  state = evolve(state, { type: 'MessageAppended', data: { position: state.originals.length, message } });
  state = run(state, { type: 'Compact', data: { trigger: 'auto' } }, tally);
  for (let round = 0; state.pendingSummary && round < MAX_SUMMARY_ROUNDS; round++) {
    const request = state.pendingSummary;
    const asked = tally.askedAt.get(request.requestId) ?? state.originals.length;
    tally.askedAt.set(request.requestId, asked);
    if (state.originals.length - asked < lag) break;
    tally.askedAt.delete(request.requestId);
    const summary = summarizeDeterministic({ messages: request.messages, previousSummary: request.previousSummary });
    state = run(
      state,
      { type: 'CompleteSummary', data: { requestId: request.requestId, summary: summary.text } },
      tally,
    );
    if (state.pendingSummary?.requestId === request.requestId) break; // not answered: leave it pending (reported)
  }
  const digest = state.pendingDigestSummary;
  if (digest) {
    const answer = answers?.get(digest.requestId);
    if (!answer) {
      if (!tally.digest.unanswered.some((r) => r.requestId === digest.requestId)) tally.digest.unanswered.push(digest);
    } else if ('failed' in answer) {
      state = run(state, { type: 'FailSummary', data: { requestId: digest.requestId, reason: answer.failed } }, tally);
    } else {
      state = run(state, { type: 'CompleteSummary', data: { requestId: digest.requestId, ...answer } }, tally, true);
    }
  }
  return state;
}

export const newTally = (): Tally => ({
  compactions: 0,
  digest: { requested: 0, superseded: 0, rejected: 0, unanswered: [] },
  requested: 0,
  requestedTokens: 0,
  completed: 0,
  rejected: 0,
  failed: 0,
  refusals: {},
  askedAt: new Map(),
});

/** A fresh engine state configured for `session` under `options`. */
export function startSession(session: TranscriptSession, options: ReplayOptions): SessionState {
  return evolve(initialSessionState(session.id), {
    type: 'SessionConfigured',
    data: { config: sessionConfig(session, options) },
  });
}

/** Leading system messages + floor messages + conversation framing: the least the effective history can be. */
export function protectedMinimum(state: SessionState, floor: readonly number[]): number {
  const n = state.originals.length;
  if (n === 0) return 0;
  let head = 0;
  let total = state.counter.perConversation;
  for (; head < n && state.originals[head]!.role === 'system'; head++) total += state.originalTokens[head]!;
  for (const p of floor) if (p >= head) total += state.originalTokens[p]!;
  return total;
}

function diagnose(state: SessionState, protectedTokens: number): string {
  const budget = state.budget.historyBudget;
  if (state.budget.unusableReason) return state.budget.unusableReason;
  return protectedTokens > budget
    ? `cannot fit: the leading system messages and the verbatim floor alone take ${protectedTokens} tokens, over the ${budget}-token budget`
    : `the verbatim minimum (${protectedTokens} tokens) is under the ${budget}-token budget; the engine left ${effectiveTotal(state)} tokens (what it would not shrink further: the protected turns' tool pairs, truncation floors, markers)`;
}

const fitsNow = (state: SessionState): boolean =>
  !state.budget.unusableReason && effectiveTotal(state) <= state.budget.historyBudget;

const ratioOf = (a: number, b: number): number => (b > 0 ? a / b : 1);

export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

export function turnsBetween(at: readonly number[]): TurnsBetweenCompactions {
  const list = at.slice(1).map((c, i) => c - at[i]!);
  return { at: [...at], list, min: list.length ? Math.min(...list) : null, median: medianOf(list) };
}

/**
 * Bills a session's model calls with and without compaction under every provider's pricing. Fed by the
 * replay loop: `beforeMessage` before each append (an assistant message is a call on the view at that
 * moment), `afterStep` after it. O(appended messages) per call, O(view) per compaction step.
 */
class SessionCostMeter {
  private readonly withMeters: Record<CacheProvider, PromptCacheMeter>;
  private readonly withoutMeters: Record<CacheProvider, PromptCacheMeter>;
  /** The raw transcript so far, extended in place (the prompts without compaction). */
  private readonly raw: PromptItem[] = [];
  private rawTokens = 0;
  private overBudget = 0;

  constructor(state: SessionState) {
    const framing = state.counter.perConversation;
    const meters = () =>
      Object.fromEntries(CACHE_PROVIDERS.map((p) => [p, new PromptCacheMeter(PRICING[p], framing)])) as Record<
        CacheProvider,
        PromptCacheMeter
      >;
    this.withMeters = meters();
    this.withoutMeters = meters();
  }

  beforeMessage(state: SessionState, message: ChatMessage): void {
    if (message.role !== 'assistant') return;
    for (const p of CACHE_PROVIDERS) {
      this.withMeters[p].call(state.entries);
      this.withoutMeters[p].call(this.raw);
    }
    if (this.raw.length > 0 && this.rawTokens + state.counter.perConversation > state.budget.historyBudget)
      this.overBudget++;
  }

  afterStep(state: SessionState, compacted: boolean): void {
    const n = state.originals.length - 1;
    this.raw.push({ message: state.originals[n]!, tokens: state.originalTokens[n]! });
    this.rawTokens += state.originalTokens[n]!;
    if (compacted) for (const p of CACHE_PROVIDERS) this.withMeters[p].compaction(state.entries);
  }

  report(provider: string, tally: Tally): SessionCost {
    const pricing = pricingFor(provider).provider;
    const own = this.withMeters[pricing];
    const byPricing = Object.fromEntries(
      CACHE_PROVIDERS.map((p) => {
        const withCompaction = this.withMeters[p].totals.billed;
        const withoutCompaction = this.withoutMeters[p].totals.billed;
        return [
          p,
          {
            withCompaction,
            withoutCompaction,
            ratio: ratioOf(withCompaction + tally.requestedTokens, withoutCompaction),
          },
        ];
      }),
    ) as Record<CacheProvider, PricedCost>;
    return {
      pricing,
      calls: own.totals.calls,
      withCompaction: { ...own.totals },
      withoutCompaction: { ...this.withoutMeters[pricing].totals },
      summaryCalls: tally.requested,
      summaryInputTokens: tally.requestedTokens,
      ratio: byPricing[pricing].ratio,
      cacheInvalidatingCompactions: own.invalidatingCompactions,
      callsOverBudgetWithout: this.overBudget,
      byPricing,
    };
  }
}

/** Replay one session and report on it. */
export function replaySession(session: TranscriptSession, options: ReplayOptions = {}): SessionReport {
  let state = startSession(session, options);
  const tally = newTally();
  const turns: TurnReport[] | undefined = options.everyTurn ? [] : undefined;
  const meter = new SessionCostMeter(state);
  const compactedAt: number[] = [];
  let calls = 0;
  for (const message of session.messages) {
    meter.beforeMessage(state, message);
    const compactionsBefore = tally.compactions;
    state = appendAndCompact(state, message, tally, options.digestAnswers, options.summaryLag);
    if (message.role === 'assistant') calls++;
    const compacted = tally.compactions > compactionsBefore;
    if (compacted) compactedAt.push(calls);
    meter.afterStep(state, compacted);
    if (turns && message.role === 'user') {
      const eff = effectiveEntries(state).map((e) => toTranscriptMessage(e.message));
      turns.push({
        index: state.originals.length - 1,
        tokens: effectiveTotal(state),
        fits: fitsNow(state),
        effective: eff,
      });
    }
  }
  const stats = sessionStats(state);
  const effective = effectiveEntries(state).map((e) => e.message);
  // Invariants 2 and 3 by the engine's own checks (the state's originals are the session's messages).
  const { input: inputViolations, shown, created: violations } = pairViolations(state, { allowPendingTail: true });
  const floor = floorPositions(state.originals, state.policy.tail.conversationalFloor);
  const missing = missingFloor(state, floor);
  const protectedTokens = protectedMinimum(state, floor);
  const visibleBlocks = new Set(effectiveEntries(state).flatMap((e) => (e.blockId ? [e.blockId] : [])));
  const blocks: BlockReport[] = [...state.blocks.values()].map((b) => ({
    id: b.id,
    stage: b.stage,
    range: { from: b.range.from, to: b.range.to },
    edits: b.edits.map((e) => ({ from: e.from, to: e.to, replacementMessages: e.replacement.length })),
    tokensBefore: b.tokensBefore,
    tokensAfter: b.tokensAfter,
    tokensSaved: b.tokensSaved,
    basedOnPosition: b.basedOnPosition,
    visible: visibleBlocks.has(b.id),
  }));
  return {
    id: session.id,
    ...(session.source !== undefined ? { source: session.source } : {}),
    messagesBefore: session.messages.length,
    messagesAfter: effective.length,
    tokensBefore: rawTotal(state),
    tokensAfter: effectiveTotal(state),
    budget: state.budget.historyBudget,
    fits: stats.fits,
    ...(stats.reason !== undefined ? { reason: stats.reason } : {}),
    stages: { ...stats.savedByStage },
    blocks,
    orphans: violations.length,
    inputOrphansShown: shown.length - violations.length,
    ...(violations.length > 0 ? { orphanDetails: violations } : {}),
    inputOrphans: inputViolations.length,
    floorKept: missing.length === 0,
    ...(missing.length > 0 ? { floorMissing: missing } : {}),
    protectedTokens,
    ...(stats.fits ? {} : { diagnosis: diagnose(state, protectedTokens) }),
    provider: state.config.provider ?? 'anthropic',
    ...(state.config.model ? { model: state.config.model } : {}),
    contextWindow: state.budget.contextWindow,
    compactions: tally.compactions,
    summaries: {
      requested: tally.requested,
      completed: tally.completed,
      rejected: tally.rejected,
      failed: tally.failed,
    },
    digestSummaries: { ...tally.digest, unanswered: [...tally.digest.unanswered] },
    refusals: tally.refusals,
    messageTokens: [...state.originalTokens],
    effective: effective.map(toTranscriptMessage),
    ...(turns ? { turns } : {}),
    turnsBetweenCompactions: turnsBetween(compactedAt),
    cost: meter.report(state.config.provider ?? 'anthropic', tally),
  };
}

function addStages(into: Partial<Record<Stage, number>>, from: Partial<Record<Stage, number>>): void {
  for (const [k, v] of Object.entries(from) as [Stage, number][]) into[k] = (into[k] ?? 0) + v;
}

/** Sum the sessions' costs (each under its own pricing; `byPricing` all under one). */
export function costSummary(sessions: readonly SessionReport[]): CostSummary {
  const withCompaction = emptyTotals();
  const withoutCompaction = emptyTotals();
  let summaryInputTokens = 0;
  let invalidating = 0;
  let overBudget = 0;
  const priced = Object.fromEntries(CACHE_PROVIDERS.map((p) => [p, { with: 0, without: 0 }])) as Record<
    CacheProvider,
    { with: number; without: number }
  >;
  for (const s of sessions) {
    addBill(withCompaction, s.cost.withCompaction);
    addBill(withoutCompaction, s.cost.withoutCompaction);
    summaryInputTokens += s.cost.summaryInputTokens;
    invalidating += s.cost.cacheInvalidatingCompactions;
    overBudget += s.cost.callsOverBudgetWithout;
    for (const p of CACHE_PROVIDERS) {
      priced[p].with += s.cost.byPricing[p].withCompaction;
      priced[p].without += s.cost.byPricing[p].withoutCompaction;
    }
  }
  const byPricing = Object.fromEntries(
    CACHE_PROVIDERS.map((p) => [
      p,
      {
        withCompaction: priced[p].with,
        withoutCompaction: priced[p].without,
        ratio: ratioOf(priced[p].with + summaryInputTokens, priced[p].without),
      },
    ]),
  ) as Record<CacheProvider, PricedCost>;
  return {
    calls: withCompaction.calls,
    withCompaction,
    withoutCompaction,
    summaryInputTokens,
    ratio: ratioOf(withCompaction.billed + summaryInputTokens, withoutCompaction.billed),
    cacheInvalidatingCompactions: invalidating,
    callsOverBudgetWithout: overBudget,
    byPricing,
  };
}

function minTurns(sessions: readonly SessionReport[]): number | null {
  const mins = sessions.flatMap((s) => (s.turnsBetweenCompactions.min === null ? [] : [s.turnsBetweenCompactions.min]));
  return mins.length ? Math.min(...mins) : null;
}

export function totalsOf(sessions: readonly SessionReport[], errors: readonly ReplayError[]): ReplayTotals {
  const stages: Partial<Record<Stage, number>> = {};
  const sum = (f: (s: SessionReport) => number) => sessions.reduce((a, s) => a + f(s), 0);
  for (const s of sessions) addStages(stages, s.stages);
  const sources = new Map<string, SessionReport[]>();
  for (const s of sessions) {
    const key = s.source ?? '(none)';
    const list = sources.get(key);
    if (list) list.push(s);
    else sources.set(key, [s]);
  }
  const bySource = Object.fromEntries(
    [...sources].map(([k, list]) => [k, { sessions: list.length, cost: costSummary(list) }]),
  );
  return {
    sessions: sessions.length,
    badLines: errors.filter((e) => e.kind === 'input').length,
    engineErrors: errors.filter((e) => e.kind === 'engine').length,
    messagesBefore: sum((s) => s.messagesBefore),
    messagesAfter: sum((s) => s.messagesAfter),
    tokensBefore: sum((s) => s.tokensBefore),
    tokensAfter: sum((s) => s.tokensAfter),
    budget: sum((s) => s.budget),
    fits: sum((s) => (s.fits ? 1 : 0)),
    notFitting: sum((s) => (s.fits ? 0 : 1)),
    orphans: sum((s) => s.orphans),
    inputOrphans: sum((s) => s.inputOrphans),
    floorKept: sum((s) => (s.floorKept ? 1 : 0)),
    blocks: sum((s) => s.blocks.length),
    compactions: sum((s) => s.compactions),
    summaries: sum((s) => s.summaries.completed),
    stages,
    minTurnsBetweenCompactions: minTurns(sessions),
    cost: costSummary(sessions),
    bySource,
  };
}

export interface ReplayProgress {
  readonly done: number;
  readonly sessionId?: string;
  readonly line: number;
}

/**
 * Replay every session of a transcript file's text. Bad lines become errors (line and field) and the other
 * sessions still run; an engine failure on one session is reported the same way and does not stop the rest.
 */
export function replayText(
  text: string,
  options: ReplayOptions = {},
  onProgress?: (p: ReplayProgress) => void,
): ReplayReport {
  const sessions: SessionReport[] = [];
  const errors: ReplayError[] = [];
  let done = 0;
  for (const parsed of parseTranscripts(text)) {
    if (!parsed.ok) {
      errors.push({ kind: 'input', ...parsed.error });
      onProgress?.({ done: ++done, line: parsed.error.line });
      continue;
    }
    try {
      sessions.push(replaySession(parsed.session, options));
    } catch (error) {
      errors.push({
        kind: 'engine',
        line: parsed.line,
        field: '(engine)',
        sessionId: parsed.session.id,
        message: `the engine failed on session ${parsed.session.id}: ${(error as Error).stack ?? String(error)}`,
      });
    }
    onProgress?.({ done: ++done, sessionId: parsed.session.id, line: parsed.line });
  }
  return { engineVersion: ENGINE_VERSION, options, sessions, errors, totals: totalsOf(sessions, errors) };
}

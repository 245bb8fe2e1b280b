/**
 * Replays transcripts through the engine's decider exactly as the compaction service drives it: each
 * message is appended (evolve MessageAppended), then `decide(Compact auto)` and every decided event is
 * evolved. A summary request is answered at once by the offline deterministic summarizer
 * (`decide(CompleteSummary)`): the engine has no LLM. Pure apart from the clock-free engine: same input,
 * same report.
 */
import {
  ENGINE_VERSION,
  counterFor,
  decide,
  effectiveEntries,
  effectiveTotal,
  estimateMessagesTokens,
  evolve,
  findToolPairViolations,
  initialSessionState,
  isConversational,
  isOriginal,
  rawTotal,
  sessionStats,
  type ChatMessage,
  type SessionCommand,
  type SessionConfig,
  type SessionEvent,
  type SessionState,
  type Stage,
  type ToolPairViolation,
} from '@ctxledger/context-engine';
import { summarizeDeterministic } from '@ctxledger/context-engine/summarizer';
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
}

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

export interface SessionReport {
  readonly id: string;
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
  /** Tool-pair violations of the effective history, calls still pending at the very end excluded. */
  readonly orphans: number;
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
  /** Refusals / no-progress outcomes the decider reported, by reason. */
  readonly refusals: Partial<Record<string, number>>;
  readonly messageTokens: number[];
  readonly effective: TranscriptMessage[];
  readonly turns?: TurnReport[];
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
  requested: number;
  completed: number;
  rejected: number;
  failed: number;
  refusals: Record<string, number>;
}

/** Safety bound on summary round-trips per decision (a stale range is asked again at most a few times). */
const MAX_SUMMARY_ROUNDS = 8;

function applyEvents(state: SessionState, events: readonly SessionEvent[], tally: Tally): SessionState {
  for (const e of events) {
    state = evolve(state, e);
    switch (e.type) {
      case 'CompactionCompleted':
        tally.compactions++;
        break;
      case 'SummaryRequested':
        tally.requested++;
        break;
      case 'SummaryRejected':
        tally.rejected++;
        break;
      case 'SummaryFailed':
        tally.failed++;
        break;
      case 'BlockCreated':
        if (e.data.block.stage === 'summary') tally.completed++;
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
  return state;
}

const run = (state: SessionState, command: SessionCommand, tally: Tally): SessionState =>
  applyEvents(state, decide(command, state), tally);

/** One replay step: append the message, decide(Compact auto), answer summary requests offline. */
export function appendAndCompact(state: SessionState, message: ChatMessage, tally: Tally = newTally()): SessionState {
  state = evolve(state, { type: 'MessageAppended', data: { position: state.originals.length, message } });
  state = run(state, { type: 'Compact', data: { trigger: 'auto' } }, tally);
  for (let round = 0; state.pendingSummary && round < MAX_SUMMARY_ROUNDS; round++) {
    const request = state.pendingSummary;
    const summary = summarizeDeterministic({ messages: request.messages, previousSummary: request.previousSummary });
    state = run(
      state,
      { type: 'CompleteSummary', data: { requestId: request.requestId, summary: summary.text } },
      tally,
    );
    if (state.pendingSummary?.requestId === request.requestId) break; // not answered: leave it pending (reported)
  }
  return state;
}

export const newTally = (): Tally => ({
  compactions: 0,
  requested: 0,
  completed: 0,
  rejected: 0,
  failed: 0,
  refusals: {},
});

/** A fresh engine state configured for `session` under `options`. */
export function startSession(session: TranscriptSession, options: ReplayOptions): SessionState {
  return evolve(initialSessionState(session.id), {
    type: 'SessionConfigured',
    data: { config: sessionConfig(session, options) },
  });
}

/** Input positions the floor (invariant 3) must keep verbatim: last user, last assistant text reply, last N conversational. */
export function floorPositions(messages: readonly ChatMessage[], conversationalFloor: number): number[] {
  const out = new Set<number>();
  let lastUser = -1;
  let lastReply = -1;
  let conv = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (lastUser < 0 && m.role === 'user') lastUser = i;
    if (lastReply < 0 && m.role === 'assistant' && isConversational(m) && m.content.trim() !== '') lastReply = i;
    if (conv < conversationalFloor && isConversational(m)) {
      out.add(i);
      conv++;
    }
    if (lastUser >= 0 && lastReply >= 0 && conv >= conversationalFloor) break;
  }
  if (lastUser >= 0) out.add(lastUser);
  if (lastReply >= 0) out.add(lastReply);
  return [...out].sort((a, b) => a - b);
}

const sameMessage = (a: ChatMessage, b: ChatMessage): boolean =>
  a === b || JSON.stringify(toTranscriptMessage(a)) === JSON.stringify(toTranscriptMessage(b));

/** Floor positions that are not verbatim (as an unedited original) in the state's effective history. */
export function missingFloor(state: SessionState, positions: readonly number[]): number[] {
  const verbatim = new Map<number, ChatMessage>();
  for (const e of effectiveEntries(state)) if (isOriginal(e) && e.from === e.to) verbatim.set(e.from, e.message);
  return positions.filter((p) => {
    const m = verbatim.get(p);
    return !m || !sameMessage(m, state.originals[p]!);
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

const pairViolations = (messages: readonly ChatMessage[]) =>
  findToolPairViolations(messages, { allowPendingTail: true });

const fitsNow = (state: SessionState): boolean =>
  !state.budget.unusableReason && effectiveTotal(state) <= state.budget.historyBudget;

/** Replay one session and report on it. */
export function replaySession(session: TranscriptSession, options: ReplayOptions = {}): SessionReport {
  let state = startSession(session, options);
  const tally = newTally();
  const turns: TurnReport[] | undefined = options.everyTurn ? [] : undefined;
  for (const message of session.messages) {
    state = appendAndCompact(state, message, tally);
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
  const violations = pairViolations(effective);
  const floor = floorPositions(session.messages, state.policy.tail.conversationalFloor);
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
    ...(violations.length > 0 ? { orphanDetails: violations } : {}),
    inputOrphans: pairViolations(session.messages).length,
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
    refusals: tally.refusals,
    messageTokens: [...state.originalTokens],
    effective: effective.map(toTranscriptMessage),
    ...(turns ? { turns } : {}),
  };
}

function addStages(into: Partial<Record<Stage, number>>, from: Partial<Record<Stage, number>>): void {
  for (const [k, v] of Object.entries(from) as [Stage, number][]) into[k] = (into[k] ?? 0) + v;
}

export function totalsOf(sessions: readonly SessionReport[], errors: readonly ReplayError[]): ReplayTotals {
  const stages: Partial<Record<Stage, number>> = {};
  const sum = (f: (s: SessionReport) => number) => sessions.reduce((a, s) => a + f(s), 0);
  for (const s of sessions) addStages(stages, s.stages);
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

import type { ChatMessage } from '../model/message';
import type { Stage } from '../model/block';
import { buildEffectiveEntries, isOriginal, type EffectiveEntry } from '../overlay';
import { computeTailProtection } from '../stages';
import { effectiveTotal, rawTotal, type SessionState } from './state';

/** The effective history: what to send to the model (before provider rendering). */
export const effectiveHistory = (state: SessionState): ChatMessage[] => state.entries.map((e) => e.message);
export const effectiveEntries = (state: SessionState): readonly EffectiveEntry[] => state.entries;

export interface SessionStats {
  readonly sessionId: string;
  readonly messageCount: number;
  readonly effectiveMessageCount: number;
  readonly blockCount: number;
  readonly activeBlockCount: number;
  readonly rawTokens: number;
  readonly effectiveTokens: number;
  readonly contextWindow: number;
  readonly historyBudget: number;
  readonly thresholdTokens: number;
  readonly targetTokens: number;
  readonly usageRatio: number;
  readonly fits: boolean;
  /** Why the history does not fit (only when it does not). */
  readonly reason?: string;
  /** Tokens saved by the visible edits, per stage (sums to raw − effective). */
  readonly savedByStage: Partial<Record<Stage, number>>;
  readonly summaryPending: boolean;
}

export function sessionStats(state: SessionState): SessionStats {
  const effective = effectiveTotal(state);
  const raw = rawTotal(state);
  const b = state.budget;
  const savedByStage: Partial<Record<Stage, number>> = {};
  const entries = state.entries;
  // Spans hidden by an edit with no replacement (a dropped marker) leave a gap between entries.
  let next = 0;
  let dropStages: Map<number, Stage> | undefined;
  const gap = (to: number) => {
    if (to < next) return;
    let before = 0;
    for (let p = next; p <= to; p++) before += state.originalTokens[p]!;
    dropStages ??= stagesOfDrops(state);
    const stage = dropStages.get(next) ?? 'keep-within-budget';
    savedByStage[stage] = (savedByStage[stage] ?? 0) + before;
  };
  for (const e of entries) {
    gap(e.from - 1);
    next = Math.max(next, e.to + 1);
  }
  gap(state.originals.length - 1);
  for (let i = 0; i < entries.length;) {
    const e = entries[i]!;
    if (isOriginal(e)) {
      i++;
      continue;
    }
    let after = 0;
    let j = i;
    while (j < entries.length && entries[j]!.blockId === e.blockId && entries[j]!.from === e.from)
      after += entries[j++]!.tokens;
    let before = 0;
    for (let p = e.from; p <= e.to; p++) before += state.originalTokens[p]!;
    savedByStage[e.stage!] = (savedByStage[e.stage!] ?? 0) + before - after;
    i = j;
  }
  const fits = !b.unusableReason && effective <= b.historyBudget;
  let reason: string | undefined;
  if (!fits) {
    reason =
      b.unusableReason ??
      protectedOverBudget(state) ??
      state.lastNoOpReason ??
      (state.pendingSummary
        ? 'a summary is pending; the cheap stages could not bring the history under the budget'
        : 'the history is over the budget and no compaction has brought it under yet');
  }
  return {
    sessionId: state.sessionId,
    messageCount: state.originals.length,
    effectiveMessageCount: entries.length,
    blockCount: state.blocks.size,
    activeBlockCount: state.active.length,
    rawTokens: raw,
    effectiveTokens: effective,
    contextWindow: b.contextWindow,
    historyBudget: b.historyBudget,
    thresholdTokens: b.thresholdTokens,
    targetTokens: b.targetTokens,
    usageRatio: b.historyBudget > 0 ? effective / b.historyBudget : Number.POSITIVE_INFINITY,
    fits,
    reason,
    savedByStage,
    summaryPending: state.pendingSummary !== undefined,
  };
}

/** The stage of the latest active edit without replacement that starts at `from` (a gap in the view). */
/**
 * The stage of the newest active block that drops (replaces by nothing) a span starting at each position: what a
 * gap between entries is counted as saved by (one pass over the active blocks, not one per gap).
 */
function stagesOfDrops(state: SessionState): Map<number, Stage> {
  const out = new Map<number, Stage>();
  for (const id of state.active) {
    const b = state.blocks.get(id)!;
    for (const e of b.edits) if (e.replacement.length === 0) out.set(e.from, b.stage);
  }
  return out;
}

/** Explain an over-budget history by what compaction may not touch, when that alone is over the budget. */
function protectedOverBudget(state: SessionState): string | undefined {
  const entries = state.entries;
  const p = computeTailProtection(entries, state.policy.tail, state.budget.historyBudget);
  let head = 0;
  for (let i = 0; i < p.headEnd; i++) head += entries[i]!.tokens;
  let from = p.lastUser < 0 ? entries.length : p.lastUser;
  for (const v of p.verbatim) from = Math.min(from, v);
  while (from > p.headEnd && from < entries.length && entries[from]!.message.role !== 'user') from--;
  let kept = 0;
  for (let i = Math.max(from, p.headEnd); i < entries.length; i++) kept += entries[i]!.tokens;
  if (head + kept + state.counter.perConversation <= state.budget.historyBudget) return undefined;
  return (
    `the pinned system messages (${head} tokens) and the turns that must stay verbatim after compaction ` +
    `(${kept} tokens: the current turn, the last reply and the floor of recent conversational messages) ` +
    `alone exceed the ${state.budget.historyBudget}-token history budget`
  );
}

/** Full recount from scratch (for tests: the incremental totals must equal it). */
export function recount(state: SessionState): {
  rawTokens: number;
  effectiveTokens: number;
  entries: EffectiveEntry[];
  userPositions: number[];
} {
  const originalTokens = state.originals.map((m) => state.counter.message(m));
  const entries = buildEffectiveEntries(
    state.originals,
    originalTokens,
    state.active.map((id) => state.blocks.get(id)!),
    (m) => state.counter.message(m),
  );
  return {
    rawTokens: originalTokens.reduce((a, b) => a + b, 0),
    effectiveTokens: entries.reduce((a, e) => a + e.tokens, 0),
    entries,
    userPositions: state.originals.flatMap((m, i) => (m.role === 'user' ? [i] : [])),
  };
}

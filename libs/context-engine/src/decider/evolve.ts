import type { CompactionBlock, PositionRange } from '../model/block';
import type { SessionEvent } from '../model/events';
import { applyNewBlockToView, assertLaminar, buildEffectiveEntries } from '../overlay';
import { NO_PROGRESS_TEXT, refusalText } from './refusal';
import { configure, type SessionState } from './state';

const rebuild = (
  s: SessionState,
  active: readonly string[],
  blocks: ReadonlyMap<string, CompactionBlock>,
): Pick<SessionState, 'entries' | 'effectiveTokens'> => {
  const activeBlocks = active.map((id) => blocks.get(id)!);
  const entries = buildEffectiveEntries(s.originals, s.originalTokens, activeBlocks, (m) => s.counter.message(m));
  return { entries, effectiveTokens: entries.reduce((t, e) => t + e.tokens, 0) };
};

const sameRange = (a: PositionRange, b: PositionRange): boolean => a.from === b.from && a.to === b.to;

/** Fold one event into the session state (Emmett's evolve). */
export function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionConfigured': {
      const next = { ...state, ...configure(event.data.config) };
      if (next.counter === state.counter || state.originals.length === 0) return next;
      // A new tokenizer: recount everything once (rare).
      const originalTokens = state.originals.map((m) => next.counter.message(m));
      const withTokens = { ...next, originalTokens, rawTokens: originalTokens.reduce((a, b) => a + b, 0) };
      return { ...withTokens, ...rebuild(withTokens, state.active, state.blocks) };
    }
    case 'MessageAppended': {
      const { position, message } = event.data;
      if (position < state.originals.length) return state; // redelivery: already applied
      if (position > state.originals.length) {
        throw new RangeError(
          `session ${state.sessionId}: message position ${position} skips ${state.originals.length}`,
        );
      }
      const tokens = state.counter.message(message);
      state.originals.push(message);
      state.originalTokens.push(tokens);
      state.entries.push({ message, from: position, to: position, tokens });
      if (message.role === 'user') state.userPositions.push(position);
      for (const call of message.toolCalls ?? []) state.callPositions.set(call.id, position);
      if (message.role === 'tool' && message.toolCallId && !state.resultPositions.has(message.toolCallId)) {
        state.resultPositions.set(message.toolCallId, position);
      }
      const guard =
        message.role === 'user'
          ? { ...state.guard, ineffectiveStreak: 0, noOpStreak: 0 }
          : message.role === 'assistant' // one model call (the anti-thrash hold counts them)
            ? { ...state.guard, callsSinceCompaction: state.guard.callsSinceCompaction + 1 }
            : state.guard;
      return { ...state, rawTokens: state.rawTokens + tokens, effectiveTokens: state.effectiveTokens + tokens, guard };
    }
    case 'BlockCreated': {
      const { block } = event.data;
      if (state.active.includes(block.id)) return state; // redelivery
      if (block.sessionId !== state.sessionId)
        throw new Error(`block ${block.id} belongs to session ${block.sessionId}`);
      const blocks = new Map(state.blocks).set(block.id, block);
      const active = [...state.active, block.id];
      let reverted = state.reverted;
      if (reverted.has(block.id)) {
        const r = new Set(reverted);
        r.delete(block.id);
        reverted = r;
      }
      // A summary block ends the wait of the request for its range (a digest summary's range is its replacement's).
      const digest = state.pendingDigestSummary;
      const supersedes = block.stage === 'summary' && digest && sameRange(digest.range, block.range);
      const turns = state.pendingSummary;
      const pendingSummary =
        block.stage === 'summary' && (!supersedes || (turns && sameRange(turns.range, block.range)))
          ? undefined
          : turns;
      const pendingDigestSummary = supersedes ? undefined : digest;
      // The common case: a block computed on the current view applies to it directly (laminarity implied).
      const next = { ...state, blocks, active, reverted, pendingSummary, pendingDigestSummary };
      const applied = applyNewBlockToView(state.entries, block, (m) => state.counter.message(m));
      if (applied) {
        return { ...next, entries: applied.entries, effectiveTokens: state.effectiveTokens + applied.tokenDelta };
      }
      assertLaminar(
        block,
        state.active.map((id) => state.blocks.get(id)!),
      );
      return { ...next, ...rebuild(state, active, blocks) };
    }
    case 'BlockReverted': {
      const { blockId } = event.data;
      if (!state.active.includes(blockId)) return state;
      const active = state.active.filter((id) => id !== blockId);
      const reverted = new Set(state.reverted).add(blockId);
      return { ...state, active, reverted, ...rebuild(state, active, state.blocks) };
    }
    case 'SummaryRequested':
      return event.data.request.supersedes
        ? {
            ...state,
            pendingDigestSummary: event.data.request,
            notesAsked: new Set(state.notesAsked).add(event.data.request.supersedes.blockId),
          }
        : { ...state, pendingSummary: event.data.request };
    case 'SummaryFailed':
    case 'SummaryRejected':
      if (state.pendingSummary?.requestId === event.data.requestId) return { ...state, pendingSummary: undefined };
      if (state.pendingDigestSummary?.requestId === event.data.requestId)
        return { ...state, pendingDigestSummary: undefined };
      return state;
    case 'CompactionCompleted': {
      const effective = event.data.tokensAfter;
      const ineffective = effective > state.budget.thresholdTokens && !event.data.summaryRequested;
      return {
        ...state,
        lastNoOpReason: undefined,
        guard: {
          compactions: state.guard.compactions + 1,
          lastAttemptRaw: state.rawTokens,
          noOpStreak: 0,
          ineffectiveStreak: ineffective ? state.guard.ineffectiveStreak + 1 : 0,
          callsSinceCompaction: 0,
        },
      };
    }
    case 'CompactionSkipped':
      return event.data.reason === 'no-progress'
        ? {
            ...state,
            lastNoOpReason: NO_PROGRESS_TEXT,
            guard: { ...state.guard, noOpStreak: state.guard.noOpStreak + 1, lastAttemptRaw: state.rawTokens },
          }
        : state;
    case 'CompactionRefused':
      return { ...state, lastNoOpReason: refusalText(event.data.reason, event.data.detail) };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${(never as { type: string }).type}`);
    }
  }
}

/**
 * DESIGN.md's invariants as functions of the engine's state, each returning what breaks it in words (empty:
 * it holds). Replay reports them on real transcripts, the property specs assert them on generated sessions.
 */
import type { SessionEvent } from '../model/events';
import { isConversational, type ChatMessage } from '../model/message';
import { blockStructureViolations, isOriginal } from '../overlay';
import { findToolPairViolations, type ToolPairOptions, type ToolPairViolation } from '../repair';
import { evolve } from './evolve';
import { runCommand } from './run-command';
import { effectiveTotal, type SessionState } from './state';
import { effectiveHistory, sessionStats } from './stats';

export interface InvariantViolation {
  /** The number of the invariant in DESIGN.md. */
  readonly invariant: 1 | 2 | 3 | 4 | 6;
  readonly text: string;
}

const violation = (invariant: InvariantViolation['invariant'], text: string): InvariantViolation => ({
  invariant,
  text,
});

/**
 * Invariant 1: the effective history fits its budget, or the session says why — and then no stage can do more (a
 * manual compaction, which no guard holds back, creates no block).
 */
export function budgetViolations(state: SessionState): InvariantViolation[] {
  const stats = sessionStats(state);
  if (stats.fits) return [];
  const out: InvariantViolation[] = [];
  const over = `the effective history (${stats.effectiveTokens} tokens) is over the ${stats.historyBudget}-token budget`;
  if (!stats.reason) out.push(violation(1, `${over} and the session does not say why`));
  const more = runCommand(state, { type: 'Compact', data: { trigger: 'manual' } }).events.flatMap((e) =>
    e.type === 'BlockCreated' ? [e.data.block.stage] : [],
  );
  if (more.length > 0)
    out.push(violation(1, `${over} although a manual compaction still creates blocks (${more.join(', ')})`));
  return out;
}

/** A violation by its kind and tool call id (positions differ between the originals and the effective history). */
const violationKey = (v: ToolPairViolation): string =>
  `${v.kind}\u0000${'toolCallId' in v ? (v.toolCallId ?? '') : ''}`;

export interface PairViolations {
  /** The originals' own violations (a raw producer may break pairs; the served history repairs them). */
  readonly input: ToolPairViolation[];
  /** Every violation the effective history shows. */
  readonly shown: ToolPairViolation[];
  /** The shown ones the originals do not have (by kind and tool call id): compaction's own. */
  readonly created: ToolPairViolation[];
}

/**
 * Invariant 2, the tool pairs: the violations of the effective history, told apart from the originals' own.
 * `allowPendingTail`: calls of a final batch still waiting for their results are no violation.
 */
export function pairViolations(state: SessionState, options: ToolPairOptions = {}): PairViolations {
  const input = findToolPairViolations(state.originals, options);
  const keys = new Set(input.map(violationKey));
  const shown = findToolPairViolations(effectiveHistory(state), options);
  return { input, shown, created: shown.filter((v) => !keys.has(violationKey(v))) };
}

/**
 * Invariant 2: compaction breaks no tool pair (every call keeps the result it had, no result loses its call, none
 * is duplicated or displaced), and a session that starts with a user message still does after its system messages.
 */
export function turnViolations(state: SessionState): InvariantViolation[] {
  const out = pairViolations(state).created.map((v) => violation(2, `compaction left a ${describePair(v)}`));
  const first = (messages: readonly ChatMessage[]) => messages.find((m) => m.role !== 'system')?.role;
  const shownFirst = first(effectiveHistory(state));
  if (first(state.originals) === 'user' && shownFirst !== 'user')
    out.push(
      violation(
        2,
        `after the system messages the effective history starts with ${shownFirst ? `role '${shownFirst}'` : 'nothing'}, not 'user'`,
      ),
    );
  return out;
}

function describePair(v: ToolPairViolation): string {
  switch (v.kind) {
    case 'missing-result':
      return `call ${v.toolCallId} (${v.toolName}) without its result`;
    case 'orphan-result':
      return `result${v.toolCallId ? ` of ${v.toolCallId}` : ''} without its call (message ${v.index})`;
    case 'duplicate-result':
      return `second result${v.toolCallId ? ` of ${v.toolCallId}` : ''} (message ${v.index})`;
    case 'result-before-call':
      return `result of ${v.toolCallId} before its call (message ${v.index})`;
    case 'displaced-result':
      return `result of ${v.toolCallId} away from its call (message ${v.index})`;
    case 'duplicate-call-id':
      return `second call with id ${v.toolCallId} (message ${v.callMessageIndex})`;
    default: {
      const never: never = v;
      return JSON.stringify(never);
    }
  }
}

/**
 * Invariant 3: the positions that must stay verbatim — the last user message, the last assistant text reply and the
 * last `conversationalFloor` conversational messages (user messages and assistant messages without tool calls).
 */
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

const sameMessage = (a: ChatMessage, b: ChatMessage): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The floor positions (by default the session policy's) not shown verbatim, as an unedited original. */
export function missingFloor(
  state: SessionState,
  positions: readonly number[] = floorPositions(state.originals, state.policy.tail.conversationalFloor),
): number[] {
  const verbatim = new Map<number, ChatMessage>();
  for (const e of state.entries) if (isOriginal(e) && e.from === e.to) verbatim.set(e.from, e.message);
  return positions.filter((p) => {
    const m = verbatim.get(p);
    return !m || !sameMessage(m, state.originals[p]!);
  });
}

/** Invariant 3 on a state: each floor message missing from the effective history. */
export function floorViolations(state: SessionState): InvariantViolation[] {
  const floor = state.policy.tail.conversationalFloor;
  return missingFloor(state).map((p) =>
    violation(
      3,
      `message ${p} (${state.originals[p]!.role}) is not verbatim in the effective history: the last user message, the last reply and the last ${floor} conversational messages must be`,
    ),
  );
}

/** Invariants 1, 2 and 3: what must hold of every state the engine reaches. */
export const checkInvariants = (state: SessionState): InvariantViolation[] => [
  ...budgetViolations(state),
  ...turnViolations(state),
  ...floorViolations(state),
];

/** Where a step started: the effective history and its tokens before the events of the step. */
export interface StepStart {
  readonly view: readonly ChatMessage[];
  readonly tokens: number;
}

/**
 * Invariants 4 and 6 over one step — `events` decided from `before`, leading to `state`: reverting the blocks it
 * created restores exactly the view before it; every block is well formed and saves tokens, a completed compaction
 * with blocks shrinks the history, and so does the step.
 */
export function stepViolations(
  state: SessionState,
  events: readonly SessionEvent[],
  before: StepStart,
): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  const blocks = events.flatMap((e) => (e.type === 'BlockCreated' ? [e.data.block] : []));
  if (blocks.length > 0) {
    let reverted = state;
    for (const b of [...blocks].reverse())
      reverted = evolve(reverted, { type: 'BlockReverted', data: { blockId: b.id } });
    const differs = firstDifference(effectiveHistory(reverted), before.view);
    if (differs !== undefined)
      out.push(violation(4, `reverting the step's blocks does not restore the view before it (${differs})`));
    const after = effectiveTotal(state);
    if (after >= before.tokens)
      out.push(violation(6, `the step created blocks but the history went from ${before.tokens} to ${after} tokens`));
  }
  for (const b of blocks) {
    for (const v of blockStructureViolations(b)) out.push(violation(6, `block ${b.id} (${b.stage}): ${v}`));
    if (b.tokensSaved <= 0) out.push(violation(6, `block ${b.id} (${b.stage}) saves ${b.tokensSaved} tokens`));
    if (b.tokensSaved !== b.tokensBefore - b.tokensAfter)
      out.push(
        violation(
          6,
          `block ${b.id} (${b.stage}) says it saves ${b.tokensSaved} tokens, not ${b.tokensBefore} − ${b.tokensAfter}`,
        ),
      );
  }
  for (const e of events)
    if (e.type === 'CompactionCompleted' && e.data.blockIds.length > 0 && e.data.tokensAfter >= e.data.tokensBefore)
      out.push(
        violation(6, `a compaction with blocks went from ${e.data.tokensBefore} to ${e.data.tokensAfter} tokens`),
      );
  return out;
}

function firstDifference(a: readonly ChatMessage[], b: readonly ChatMessage[]): string | undefined {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!sameMessage(a[i]!, b[i]!)) return `message ${i} differs`;
  return a.length === b.length ? undefined : `${a.length} messages instead of ${b.length}`;
}

import { hasToolCalls, type ChatMessage } from '../model/message';

/**
 * Turns (seed 004): a turn starts at a user message and runs to the next one. The turn is the atomic unit
 * of compaction; a tool-call group (an assistant message with calls + the tool messages answering it) is
 * the atomic unit inside a turn (split-turn compression only).
 */
export function turnStarts(messages: readonly ChatMessage[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') out.push(i);
  });
  return out;
}

/** Index of the last user message, or -1. */
export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return -1;
}

/**
 * Snap a cut target to a turn boundary (PicoClaw's findSafeBoundary, SCENARIOS #13): the nearest user
 * message at or before the target; if that leaves nothing before the cut, the next user message after the
 * target; 0 when there is no safe split ("cannot split").
 */
export function findSafeCutIndex(messages: readonly ChatMessage[], target: number): number {
  const n = messages.length;
  if (n === 0 || target <= 0) return 0;
  const t = Math.min(target, n);
  for (let i = t; i > 0; i--) {
    if (i < n && messages[i]!.role === 'user') return i;
  }
  for (let i = t + 1; i < n; i++) if (messages[i]!.role === 'user') return i;
  return 0;
}

/** A cut before `index` keeps every call with all its results (parallel calls included). */
export function isPairSafeCut(messages: readonly ChatMessage[], index: number): boolean {
  if (index <= 0 || index >= messages.length) return true;
  return messages[index]!.role !== 'tool';
}

/**
 * Snap a split to a tool-pair boundary (NeuroLink's tool-pairing rule, SCENARIOS #11): back to the start of
 * the call group it falls into; when that is the very start, forward past the group instead.
 */
export function snapToPairBoundary(messages: readonly ChatMessage[], index: number): number {
  const n = messages.length;
  if (index <= 0 || index >= n) return Math.max(0, Math.min(index, n));
  if (isPairSafeCut(messages, index)) return index;
  let back = index;
  while (back > 0 && messages[back]!.role === 'tool') back--;
  if (back > 0) return back;
  let fwd = index;
  while (fwd < n && messages[fwd]!.role === 'tool') fwd++;
  return fwd;
}

export interface ToolPair {
  /** Index of the assistant message carrying the calls. */
  readonly callIndex: number;
  /** Indices of the tool messages answering them (in order). */
  readonly resultIndices: readonly number[];
  /** Last index of the group. */
  readonly end: number;
}

/** Tool-call groups in [from, to): an assistant message with calls plus the tool messages right after it. */
export function toolPairsIn(messages: readonly ChatMessage[], from = 0, to = messages.length): ToolPair[] {
  const pairs: ToolPair[] = [];
  for (let i = from; i < to; i++) {
    const m = messages[i]!;
    if (!hasToolCalls(m)) continue;
    const results: number[] = [];
    let j = i + 1;
    while (j < to && messages[j]!.role === 'tool') results.push(j++);
    pairs.push({ callIndex: i, resultIndices: results, end: j - 1 });
    i = j - 1;
  }
  return pairs;
}

export interface PairingReport {
  /** Tool results whose call is not earlier in the list. */
  readonly orphanResults: string[];
  /** Calls without any result later in the list. */
  readonly unansweredCalls: string[];
  /** Results answering a call already answered. */
  readonly duplicateResults: string[];
}

/** Id-aware pairing audit of a message list (used by invariants and tests). */
export function auditToolPairs(messages: readonly ChatMessage[]): PairingReport {
  const open = new Set<string>();
  const answered = new Set<string>();
  const orphanResults: string[] = [];
  const duplicateResults: string[] = [];
  for (const m of messages) {
    if (m.toolCalls) for (const c of m.toolCalls) open.add(c.id);
    if (m.role === 'tool') {
      const id = m.toolCallId ?? '';
      if (answered.has(id)) duplicateResults.push(id);
      else if (open.has(id)) {
        open.delete(id);
        answered.add(id);
      } else orphanResults.push(id);
    }
  }
  return { orphanResults, unansweredCalls: [...open], duplicateResults };
}

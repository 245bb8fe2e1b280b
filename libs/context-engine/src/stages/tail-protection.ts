import { isConversational } from '../model/message';
import type { TailPolicy } from '../model/policy';
import { isOriginal, type EffectiveEntry } from '../overlay';

/**
 * Tail protection (seed 001, both options) over a view:
 * - the tail is measured backwards with each tool result capped (option B) while the full results stay;
 * - then extended to a floor of recent conversational messages (option A);
 * - the last user message and the last assistant text reply are always inside, whatever the cost;
 * - the tail starts at a pair-safe index (never between a call and its results);
 * - when the tail measured in full tokens is over maxOverrun × budget, its oversized tool bodies are listed
 *   for head+tail truncation (`demote`) instead of pushing the conversation out.
 */
/** A demoted tool body keeps at least this many tokens of head and tail. */
export const MIN_DEMOTED_TOKENS = 200;

export interface TailProtection {
  /** View index where the protected tail starts. */
  readonly tailStart: number;
  /** Leading original system messages: never compacted. */
  readonly headEnd: number;
  /** View index of the last original user message, or -1. */
  readonly lastUser: number;
  /** View index of the last original assistant text reply (no tool calls), or -1. */
  readonly lastReply: number;
  /** View indices that must stay verbatim: last user, last reply, the conversational floor. */
  readonly verbatim: ReadonlySet<number>;
  /** Tool results the model has not answered yet (after the last assistant message): never elided. */
  readonly unconsumed: ReadonlySet<number>;
  /** Tail tool results to truncate (head+tail) down to `demoteTo` tokens. */
  readonly demote: readonly number[];
  readonly demoteTo: number;
  readonly tailBudget: number;
}

export function computeTailProtection(
  entries: readonly EffectiveEntry[],
  policy: TailPolicy,
  historyBudget: number,
): TailProtection {
  const n = entries.length;
  const tailBudget = Math.max(0, Math.floor(historyBudget * policy.budgetRatio));
  const cap = policy.toolResultCapTokens;
  const measured = (e: EffectiveEntry) => (e.message.role === 'tool' ? Math.min(e.tokens, cap) : e.tokens);

  let headEnd = 0;
  while (headEnd < n && entries[headEnd]!.message.role === 'system' && isOriginal(entries[headEnd]!)) headEnd++;

  let lastUser = -1;
  let lastReply = -1;
  let lastAssistant = -1;
  for (let i = n - 1; i >= headEnd && (lastUser < 0 || lastReply < 0 || lastAssistant < 0); i--) {
    const e = entries[i]!;
    if (!isOriginal(e)) continue;
    if (lastUser < 0 && e.message.role === 'user') lastUser = i;
    if (e.message.role === 'assistant') {
      if (lastAssistant < 0) lastAssistant = i;
      if (lastReply < 0 && isConversational(e.message) && e.message.content.trim() !== '') lastReply = i;
    }
  }
  const unconsumed = new Set<number>();
  for (let i = Math.max(lastAssistant + 1, headEnd); i < n; i++)
    if (entries[i]!.message.role === 'tool') unconsumed.add(i);

  // Option B: capped backward walk.
  let start = n;
  let acc = 0;
  while (start > headEnd) {
    const t = measured(entries[start - 1]!);
    if (acc + t > tailBudget && start < n) break;
    acc += t;
    start--;
  }
  // Last user and last reply always inside.
  for (const must of [lastUser, lastReply]) {
    while (must >= 0 && start > must) acc += measured(entries[--start]!);
  }
  // Option A: the conversational floor always holds; the tool bodies it drags in are demoted below.
  const verbatim = new Set<number>();
  let conv = 0;
  for (let i = n - 1; i >= start; i--) {
    if (isOriginal(entries[i]!) && isConversational(entries[i]!.message)) conv++;
  }
  while (conv < policy.conversationalFloor && start > headEnd) {
    const e = entries[--start]!;
    acc += measured(e);
    if (isOriginal(e) && isConversational(e.message)) conv++;
  }
  // Pair-safe start: include the calls of leading tool results.
  while (start > headEnd && start < n && entries[start]!.message.role === 'tool') start--;

  let floorLeft = policy.conversationalFloor;
  for (let i = n - 1; i >= start && floorLeft > 0; i--) {
    if (isOriginal(entries[i]!) && isConversational(entries[i]!.message)) {
      verbatim.add(i);
      floorLeft--;
    }
  }
  if (lastUser >= 0) verbatim.add(lastUser);
  if (lastReply >= 0) verbatim.add(lastReply);

  // Demotion: the full tail may not exceed maxOverrun × budget because of tool bodies. Water-fill one
  // per-body cap so that the tail's tool bodies, truncated to it, bring the tail back under the limit.
  let full = 0;
  for (let i = start; i < n; i++) full += entries[i]!.tokens;
  const demote: number[] = [];
  let demoteTo = cap;
  const limit = policy.maxOverrun * tailBudget;
  if (full > limit) {
    const candidates: number[] = [];
    for (let i = start; i < n; i++) {
      const e = entries[i]!;
      if (e.message.role === 'tool' && e.tokens > MIN_DEMOTED_TOKENS && isOriginal(e) && !unconsumed.has(i))
        candidates.push(i);
    }
    const sizes = candidates.map((i) => entries[i]!.tokens).sort((a, b) => a - b);
    let room = limit - (full - sizes.reduce((a, b) => a + b, 0));
    let left = sizes.length;
    let level = 0;
    for (const t of sizes) {
      level = room / left;
      if (t > level) break;
      room -= t;
      left--;
      level = left > 0 ? room / left : t;
    }
    demoteTo = Math.max(MIN_DEMOTED_TOKENS, Math.min(cap, Math.floor(level)));
    for (const i of candidates) if (entries[i]!.tokens > demoteTo) demote.push(i);
  }
  return { tailStart: start, headEnd, lastUser, lastReply, verbatim, unconsumed, demote, demoteTo, tailBudget };
}

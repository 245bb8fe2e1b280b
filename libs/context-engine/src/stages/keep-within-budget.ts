import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { makeBlock, viewTokens, type StageContext } from './common';

export const COMPACTED_MARKER = '[Context compacted';
export const compactedMarker = (removed: number, why: string): ChatMessage => ({
  role: 'system',
  content: `${COMPACTED_MARKER}: ${removed} messages removed ${why}]`,
});

/**
 * The latest view index at which a turn-safe cut still keeps everything that must stay verbatim: the last
 * user message, the last reply and the conversational floor (invariant 3 holds even for the last resorts).
 */
export function latestTurnSafeCut(ctx: StageContext): number {
  const { entries, protection } = ctx;
  let limit = protection.lastUser < 0 ? entries.length : protection.lastUser;
  let earliest = limit;
  for (const v of protection.verbatim) earliest = Math.min(earliest, v);
  if (earliest < limit) {
    let t = earliest;
    while (t > protection.headEnd && entries[t]!.message.role !== 'user') t--;
    limit = Math.min(limit, t);
  }
  return limit;
}

/**
 * Stage 7 (seed 003 keep_within_budget), turn-safe: keep the pinned head and the newest whole turns that
 * fit the target (at least the turn of the last user message and the last reply); one marker for the rest.
 */
export function keepWithinBudget(ctx: StageContext): CompactionBlock | null {
  const { entries, protection } = ctx;
  const start = protection.headEnd;
  const limit = latestTurnSafeCut(ctx);
  if (limit <= start) return null;
  const total = viewTokens(entries, ctx.counter);
  const marker = ctx.counter.message(compactedMarker(0, 'to fit the context window')) + 2;
  let hidden = 0;
  let cut: number | undefined;
  for (let i = start; i < limit; i++) {
    hidden += entries[i]!.tokens;
    const next = i + 1;
    if (next > start && entries[next]?.message.role === 'user') {
      cut = next;
      if (total - hidden + marker <= ctx.targetTokens) break;
    }
  }
  if (cut === undefined) return null;
  return makeBlock(ctx, 'keep-within-budget', [
    {
      from: entries[start]!.from,
      to: entries[cut - 1]!.to,
      replacement: [compactedMarker(entries[cut - 1]!.to - entries[start]!.from + 1, 'to fit the context window')],
    },
  ]);
}

/**
 * Seed 004's reactive path after a provider overflow error: drop the oldest ~dropTurnRatio of the turns
 * before the current one (the preamble and summaries stay), with one marker.
 */
export function emergencyDrop(ctx: StageContext): CompactionBlock | null {
  const { entries, protection } = ctx;
  let first = protection.headEnd;
  while (first < entries.length && entries[first]!.message.role !== 'user') first++;
  const limit = latestTurnSafeCut(ctx);
  const starts: number[] = [];
  for (let i = first; i < limit; i++) if (entries[i]!.message.role === 'user') starts.push(i);
  if (starts.length === 0) return null;
  const drop = Math.max(1, Math.ceil(starts.length * ctx.policy.emergency.dropTurnRatio));
  const cut = drop < starts.length ? starts[drop]! : limit;
  if (cut <= first) return null;
  return makeBlock(ctx, 'emergency', [
    {
      from: entries[first]!.from,
      to: entries[cut - 1]!.to,
      replacement: [compactedMarker(entries[cut - 1]!.to - entries[first]!.from + 1, 'after a context-overflow error')],
    },
  ]);
}

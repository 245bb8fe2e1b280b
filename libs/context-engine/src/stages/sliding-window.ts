import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import type { EffectiveEntry } from '../overlay';
import { viewTokens, type StageContext } from './common';
import { markerBlock, workingStateTokenBound } from './working-state';

export const TRUNCATION_MARKER = '[Earlier conversation history was truncated to fit within context limits';

/** The system-role marker: between an assistant and a user message it creates no same-role neighbours. */
export const truncationMarker = (hidden: number): ChatMessage => ({
  role: 'system',
  content: `${TRUNCATION_MARKER}: ${hidden} messages hidden]`,
});

const turnStartsFrom = (entries: readonly EffectiveEntry[], from: number, to: number): number[] => {
  const out: number[] = [];
  for (let i = from; i <= to && i < entries.length; i++) if (entries[i]!.message.role === 'user') out.push(i);
  return out;
};

/** First index after the preamble (head, summaries) and after the first exchange when it is small enough. */
export function firstExchangeEnd(ctx: StageContext, alwaysKeepFirst: boolean): number {
  const { entries, protection } = ctx;
  let first = protection.headEnd;
  while (first < entries.length && entries[first]!.message.role !== 'user') first++;
  if (first >= entries.length) return -1;
  let next = first + 1;
  while (next < entries.length && entries[next]!.message.role !== 'user') next++;
  let t = 0;
  for (let i = first; i < next; i++) t += entries[i]!.tokens;
  return alwaysKeepFirst || t <= ctx.policy.firstExchangeMaxShare * ctx.targetTokens ? next : first;
}

/**
 * Stage 6 (seed 002 stage 4, seed 003 level 3): keep the preamble and the first exchange, hide whole turns
 * from the oldest on, insert one marker. With `fraction`, hide that share of the messages after the first
 * exchange (rounded down to an even count, snapped back to a turn boundary), as the seed does; otherwise the
 * fewest oldest turns that bring the view under the target, never into the protected tail.
 */
export function slidingWindow(ctx: StageContext, options: { fraction?: number } = {}): CompactionBlock | null {
  const { entries, protection } = ctx;
  const n = entries.length;
  const keepFirst = firstExchangeEnd(ctx, options.fraction !== undefined);
  if (keepFirst < 0 || keepFirst >= n) return null;
  const limit =
    options.fraction !== undefined
      ? protection.lastUser < 0
        ? n
        : protection.lastUser
      : Math.min(protection.tailStart, protection.lastUser < 0 ? n : protection.lastUser);
  const candidates = turnStartsFrom(entries, keepFirst + 1, limit).filter((c) => c <= limit);
  if (candidates.length === 0) return null;
  let cut: number | undefined;
  if (options.fraction !== undefined) {
    let hide = Math.floor((n - keepFirst) * options.fraction);
    if (hide % 2 === 1) hide--;
    const want = keepFirst + hide;
    cut = [...candidates].reverse().find((c) => c <= want);
  } else {
    const total = viewTokens(entries, ctx.counter);
    // The marker carries the working state of what it hides: count it at its bound.
    const marker = ctx.counter.message(truncationMarker(0)) + 2 + workingStateTokenBound(ctx);
    let hidden = 0;
    let k = keepFirst;
    for (const c of candidates) {
      for (; k < c; k++) hidden += entries[k]!.tokens;
      cut = c;
      if (total - hidden + marker <= ctx.targetTokens) break;
    }
  }
  if (cut === undefined || cut <= keepFirst) return null;
  return markerBlock(
    ctx,
    'sliding-window',
    keepFirst,
    cut - 1,
    truncationMarker(entries[cut - 1]!.to - entries[keepFirst]!.from + 1),
  );
}

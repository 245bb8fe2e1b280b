import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { toolPairsIn } from '../turns';
import { clip, formatKeyArgs, looksLikeError, makeBlock, oneLine, type StageContext } from './common';

export const SPLIT_TURN_HEADER = '[Turn prefix compressed';

/** Tokens of the current turn (from the last user message) plus the pinned head. */
export function currentTurnTokens(ctx: Pick<StageContext, 'entries' | 'protection'>): number {
  const { entries, protection } = ctx;
  let t = 0;
  for (let i = 0; i < protection.headEnd; i++) t += entries[i]!.tokens;
  for (let i = Math.max(protection.lastUser, protection.headEnd); i < entries.length; i++) t += entries[i]!.tokens;
  return t;
}

/** The note's lines for a run of view entries (earlier notes' lines are carried over). */
function noteLines(entries: readonly EffectiveEntry[], from: number, to: number, maxArg: number): string[] {
  const results = new Map<string, ChatMessage>();
  for (let i = from; i <= to; i++) {
    const m = entries[i]!.message;
    if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  }
  const lines: string[] = [];
  for (let i = from; i <= to; i++) {
    const e = entries[i]!;
    const m = e.message;
    if (!isOriginal(e) && e.stage === 'split-turn') {
      lines.push(...m.content.split('\n').filter((l) => l.startsWith('- ')));
      continue;
    }
    if (m.role === 'assistant') {
      if (!m.toolCalls?.length && m.content.trim()) lines.push(`- assistant: ${clip(oneLine(m.content), 2 * maxArg)}`);
      for (const c of m.toolCalls ?? []) {
        const r = results.get(c.id);
        const status = !r ? 'no result' : looksLikeError(r) ? 'error' : 'completed';
        lines.push(`- ${c.name}(${formatKeyArgs(c.arguments, maxArg)}) → ${status}`);
      }
    }
  }
  return lines;
}

/**
 * Stage 4 (seed 000): when the current turn alone does not fit the target and has more than `tailPairs`
 * tool-call groups, the older groups are collapsed into one non-empty note (tool, key args ≤ 40 chars,
 * status); the newest `tailPairs` groups, the user message, the verbatim set and unconsumed results stay.
 */
export function splitTurn(
  ctx: StageContext,
  tailPairs = ctx.policy.splitTurnTailPairs,
  force = false,
): CompactionBlock | null {
  const { entries, protection } = ctx;
  const u = protection.lastUser;
  if (u < 0) return null;
  if (!force && currentTurnTokens(ctx) <= ctx.targetTokens) return null;
  const messages = entries.map((e) => e.message);
  const pairs = toolPairsIn(messages, u + 1, messages.length);
  if (pairs.length <= tailPairs) return null;
  // tailPairs 0 (the very last resort): every answered pair of the turn goes into the note; a pair at the
  // very end of the view may still be waiting for results (or be unanswered by the model) and stays.
  const last = pairs[pairs.length - 1]!;
  const keepFrom =
    tailPairs > 0
      ? pairs[pairs.length - tailPairs]!.callIndex
      : last.end === messages.length - 1
        ? last.callIndex
        : last.end + 1;
  let start = u + 1;
  for (let i = u + 1; i < keepFrom; i++) {
    if (protection.verbatim.has(i) || protection.unconsumed.has(i)) start = i + 1;
  }
  while (start < keepFrom && messages[start]!.role === 'tool') start++;
  const end = keepFrom - 1;
  if (start > end) return null;
  const lines = noteLines(entries, start, end, tailPairs === 0 ? 16 : 40);
  const calls = lines.filter((l) => !l.startsWith('- assistant:')).length;
  if (lines.length === 0) return null;
  const note: ChatMessage = {
    role: 'system',
    content: `${SPLIT_TURN_HEADER} — ${calls} earlier tool call(s)]\n## In-Turn Prefix\n${lines.join('\n')}`,
  };
  return makeBlock(ctx, 'split-turn', [{ from: entries[start]!.from, to: entries[end]!.to, replacement: [note] }]);
}

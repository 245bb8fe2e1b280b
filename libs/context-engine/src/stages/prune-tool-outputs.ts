import type { BlockEdit, CompactionBlock } from '../model/block';
import { isOriginal } from '../overlay';
import { launchHandles } from '../summarizer/background';
import { commitLineOf, failureOf } from '../summarizer/call-outcome';
import { prunedPlaceholder } from '../summarizer/pruned-result';
import { toolActivity } from '../summarizer/tool-activity';
import { callsById, formatKeyArgs, makeBlock, type StageContext } from './common';

/** Budget-scaled prune thresholds: seed 002's 40k / 20k as caps, fractions of the budget below them. */
export function pruneThresholds(ctx: Pick<StageContext, 'policy' | 'budget'>): {
  protectTokens: number;
  minimumSavings: number;
} {
  const p = ctx.policy.prune;
  const b = ctx.budget.historyBudget;
  return {
    protectTokens: p.protectTokens ?? Math.min(p.protectCap, Math.floor(b * p.protectRatio)),
    minimumSavings: p.minimumSavings ?? Math.min(p.minimumSavingsCap, Math.floor(b * p.minimumSavingsRatio)),
  };
}

/**
 * Stage 2 (seed 002 stage 1): walk tool results newest → oldest; the newest `protectTokens` of output stay
 * (a result is protected while the output seen so far is under the budget), results of protected tools
 * (e.g. `skill`), unconsumed results and the results of background launches are never touched; the older ones
 * become a placeholder — all at once, and only if the savings reach `minimumSavings`. Tool bodies inside the
 * protected tail may be pruned: the tail protects the conversation (seed 001), and its tool bodies are demotable
 * anyway.
 */
export function pruneToolOutputs(ctx: StageContext): CompactionBlock | null {
  const { entries, policy, protection, counter } = ctx;
  const { protectTokens, minimumSavings } = pruneThresholds(ctx);
  const protectedTools = new Set(policy.prune.protectedTools.map((t) => t.toLowerCase()));
  const calls = callsById(entries);
  const edits: BlockEdit[] = [];
  let seen = 0;
  let saved = 0;
  for (let i = entries.length - 1; i >= protection.headEnd; i--) {
    const e = entries[i]!;
    const m = e.message;
    if (m.role !== 'tool' || !isOriginal(e)) continue;
    const call = m.toolCallId ? calls.get(m.toolCallId)?.call : undefined;
    const name = m.toolName ?? call?.name ?? 'tool';
    if (protectedTools.has(name.toLowerCase())) continue;
    if (seen < protectTokens) {
      seen += e.tokens;
      continue;
    }
    if (protection.unconsumed.has(i)) continue;
    const activity = call ? toolActivity(call, {}) : undefined;
    // A launch's result names what still runs (an agent's id, a log file), which no other message does: it stays
    // until a note takes the launch in. Such results are short.
    if (launchHandles(activity, m)) continue;
    // What failed stays in the placeholder: a cleared failure must not read as a success. And the commit a git
    // command made (its hash is what a later `git show` or `revert` names).
    const failure = failureOf(activity, m);
    const commit = failure === undefined ? commitLineOf(activity, m) : undefined;
    const keyArgs = call ? formatKeyArgs(call.arguments) : '';
    const replacement = { ...m, content: prunedPlaceholder(name, keyArgs, m.content.length, failure, commit) };
    const after = counter.message(replacement);
    if (after >= e.tokens) continue;
    saved += e.tokens - after;
    edits.push({ from: e.from, to: e.to, replacement: [replacement] });
  }
  if (saved < minimumSavings) return null;
  return makeBlock(ctx, 'prune', edits);
}

import type { BlockEdit, CompactionBlock } from '../model/block';
import { isOriginal } from '../overlay';
import type { ChatMessage } from '../model/message';
import { errorLineOf, tellingErrorLine } from '../summarizer/call-outcome';
import { keptFailureLine } from '../summarizer/pruned-result';
import { toolActivity } from '../summarizer/tool-activity';
import { callsById, makeBlock, truncateHeadTail, type StageContext } from './common';

/**
 * Stage 1 (seed 003 level 1, seed 002 limits): huge single tool outputs truncated head+tail with an
 * omitted-lines notice. "Huge" = over seed 002's byte or line limit, or over `budgetShare` of the history
 * budget (so small budgets are served too). Also truncates the tail's oversized tool bodies that tail
 * protection demoted (seed 001: the floor may not blow the tail past 1.5× its budget).
 */
export function truncateToolOutputs(ctx: StageContext, force = false): CompactionBlock | null {
  if (force) return truncateEverything(ctx);
  const { entries, policy, budget, counter, protection } = ctx;
  const shareTokens = Math.max(200, Math.floor(budget.historyBudget * policy.truncate.budgetShare));
  const edits: BlockEdit[] = [];
  const demoted = new Set(protection.demote);
  const calls = callsById(entries);
  entries.forEach((e, i) => {
    const m = e.message;
    if (m.role !== 'tool' || !isOriginal(e)) return;
    const bytes = Buffer.byteLength(m.content, 'utf8');
    const lines = m.content.length === 0 ? 0 : m.content.split('\n').length;
    const huge = bytes > policy.truncate.maxBytes || lines > policy.truncate.maxLines || e.tokens > shareTokens;
    if (!huge && !demoted.has(i)) return;
    const targetTokens = demoted.has(i) ? Math.min(shareTokens, protection.demoteTo) : shareTokens;
    const ratio = Math.min(1, targetTokens / Math.max(1, e.tokens));
    const maxChars = Math.min(policy.truncate.maxBytes, Math.max(300, Math.floor(m.content.length * ratio * 0.95)));
    const content = withFailure(m, truncateHeadTail(m.content, maxChars, policy.truncate.maxLines), calls);
    if (content.length >= m.content.length) return;
    const replacement = { ...m, content };
    if (counter.message(replacement) >= e.tokens) return;
    edits.push({ from: e.from, to: e.to, replacement: [replacement] });
  });
  return makeBlock(ctx, 'truncate', edits);
}

/** Tool bodies are cut to this many characters by the last-resort pass. */
export const LAST_RESORT_TOOL_CHARS = 400;

/**
 * Last resort when the history is still over the budget: every tool body (already truncated ones too, but
 * not the unconsumed results) is cut head+tail to LAST_RESORT_TOOL_CHARS characters.
 */
function truncateEverything(ctx: StageContext): CompactionBlock | null {
  const { entries, counter, protection } = ctx;
  const edits: BlockEdit[] = [];
  const calls = callsById(entries);
  entries.forEach((e, i) => {
    const m = e.message;
    if (m.role !== 'tool' || protection.unconsumed.has(i)) return;
    if (!isOriginal(e) && e.stage !== 'truncate') return;
    if (m.content.length <= LAST_RESORT_TOOL_CHARS + 100) return;
    const replacement = {
      ...m,
      content: withFailure(m, truncateHeadTail(m.content, LAST_RESORT_TOOL_CHARS, 20), calls),
    };
    if (counter.message(replacement) >= e.tokens) return;
    edits.push({ from: e.from, to: e.to, replacement: [replacement] });
  });
  return makeBlock(ctx, 'truncate', edits);
}

/**
 * The truncated text, ending with what failed when the failure's line was in the part cut (a compiler's error
 * before a package manager's closing lines, say): a cut failure must not read as a success.
 */
function withFailure(result: ChatMessage, truncated: string, calls: ReturnType<typeof callsById>): string {
  const call = result.toolCallId ? calls.get(result.toolCallId)?.call : undefined;
  const errorLine = errorLineOf(result, call ? toolActivity(call, {}) : undefined);
  if (errorLine === undefined) return truncated;
  const line = tellingErrorLine(result, errorLine).trim();
  return truncated.includes(line) ? truncated : `${truncated}\n${keptFailureLine(line)}`;
}

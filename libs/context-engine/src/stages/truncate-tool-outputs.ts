import type { BlockEdit, CompactionBlock } from '../model/block';
import { isOriginal } from '../overlay';
import type { ChatMessage } from '../model/message';
import { commitLineOf, errorLineOf, tellingErrorLine } from '../summarizer/call-outcome';
import { launchLines } from '../summarizer/background';
import { unwrappedResult } from '../summarizer/harness-frame';
import { keptFailureLine } from '../summarizer/pruned-result';
import { toolActivity } from '../summarizer/tool-activity';
import { callsById, makeBlock, parseArguments, truncateHeadTail, type StageContext } from './common';
import { focusOf, truncateFocused, type Focus } from './focus';

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
    const focus = focusAt(entries, i, calls);
    const inner = unwrappedResult(m);
    const cut = truncateFocused(inner.content, maxChars, policy.truncate.maxLines, focus, truncateHeadTail);
    const content = withKeptLines(m, cut, calls);
    if (content.length >= m.content.length) return;
    const replacement = cutResult(m, inner, content);
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
    const inner = unwrappedResult(m);
    const replacement = cutResult(
      m,
      inner,
      withKeptLines(
        m,
        truncateFocused(inner.content, LAST_RESORT_TOOL_CHARS, 20, focusAt(entries, i, calls), truncateHeadTail),
        calls,
      ),
    );
    if (counter.message(replacement) >= e.tokens) return;
    edits.push({ from: e.from, to: e.to, replacement: [replacement] });
  });
  return makeBlock(ctx, 'truncate', edits, 'last-resort');
}

/**
 * A result cut to `content`: what the harness returned, cut inside its wrapping (`inner`: a Codex result's JSON is cut
 * as the output it holds, its exit status as the line a shell prints; a cut JSON text is no JSON), flagged as an
 * error when the wrapping said it failed (OpenHands' `ERROR:` line, which the cut may leave out).
 */
function cutResult(m: ChatMessage, inner: ChatMessage, content: string): ChatMessage {
  return { ...m, content, ...(inner.isError && !m.isError && { isError: true }) };
}

/** Assistant messages after a result read for what the agent took from it: its reaction to the result. */
const REACTION_MESSAGES = 2;

/**
 * What the agent pointed at in the result at view index `i`: the call's own arguments, and the next assistant
 * messages' text and call arguments (up to the next user message).
 */
function focusAt(entries: StageContext['entries'], i: number, calls: ReturnType<typeof callsById>): Focus {
  const result = entries[i]!.message;
  const call = result.toolCallId ? calls.get(result.toolCallId)?.call : undefined;
  const reaction: string[] = [];
  let seen = 0;
  for (let j = i + 1; j < entries.length && seen < REACTION_MESSAGES; j++) {
    const m = entries[j]!.message;
    if (m.role === 'user') break;
    if (m.role !== 'assistant') continue;
    seen++;
    reaction.push(m.content, ...(m.toolCalls ?? []).map((c) => argumentText(c.arguments)));
  }
  return focusOf(unwrappedResult(result).content, reaction.join('\n'), call ? argumentText(call.arguments) : '');
}

/** A call's argument values as text, one after the other (an edit's `old_str` with its real line breaks). */
function argumentText(args: string): string {
  const parsed = parseArguments(args);
  if (!parsed) return args;
  return Object.values(parsed)
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    .join('\n');
}

/**
 * The truncated text, followed by what must outlive the cut when it was in the part cut: the lines naming what the
 * call left running (a sub-agent's id, a log file: without them nothing can collect it), the commit git made (its
 * hash), then what failed (a compiler's error before a package manager's closing lines, say: a cut failure must not
 * read as a success). The failure stays the last line, where a later note reads it.
 */
export function withKeptLines(result: ChatMessage, truncated: string, calls: ReturnType<typeof callsById>): string {
  const call = result.toolCallId ? calls.get(result.toolCallId)?.call : undefined;
  const activity = call ? toolActivity(call, {}) : undefined;
  let text = truncated;
  const handles = launchLines(activity, result, truncated);
  if (handles?.length) text = `${text}\n${handles.join('\n')}`;
  const commit = commitLineOf(activity, result);
  if (commit !== undefined && !truncated.includes(commit)) text = `${text}\n${commit}`;
  const errorLine = errorLineOf(result, activity);
  if (errorLine === undefined) return text;
  const line = tellingErrorLine(result, errorLine).trim();
  return truncated.includes(line) ? text : `${text}\n${keptFailureLine(line)}`;
}

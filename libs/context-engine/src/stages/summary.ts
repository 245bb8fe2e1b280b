import type { CompactionBlock, PositionRange } from '../model/block';
import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { findSafeCutIndex } from '../turns';
import { clip, makeBlock, oneLine, viewTokens, type StageContext } from './common';
import { factsMissingFrom, KEPT_HEADING } from './summary-facts';
import { DEFAULT_MAX_SUMMARY_CHARS } from '../summarizer/deterministic-summarizer';
import {
  CHARS_PER_TOKEN,
  WORKING_STATE_HEADING,
  condensedTextOf,
  withWorkingState,
  workingStateChars,
} from './working-state';

export const SUMMARY_HEADER = '[Summary of earlier conversation';
export const DIGEST_HEADER = '[Digest of earlier turns';

export interface SummaryRange {
  /** View indices [start, end] (inclusive) to summarize. */
  readonly start: number;
  readonly end: number;
  /** The original positions they span. */
  readonly range: PositionRange;
  /** The messages to summarize (earlier summaries excluded: they travel as previousSummary). */
  readonly messages: ChatMessage[];
  readonly previousSummary?: string;
}

/**
 * Stage 5's span: from the pinned head to the earliest turn boundary whose summary brings the view under the
 * target, at most up to the boundary that keeps max(keepRecentMin, keepRecentRatio × n) recent messages and the
 * whole protected tail. Recent turns stay verbatim rather than a fixed share of the messages being summarized.
 */
export function selectSummaryRange(ctx: StageContext): SummaryRange | null {
  const { entries, policy, protection } = ctx;
  const n = entries.length;
  const start = protection.headEnd;
  const keepRecent = Math.max(policy.keepRecentMin, Math.ceil(n * policy.keepRecentRatio));
  const limit = Math.min(n - keepRecent, protection.tailStart, protection.lastUser < 0 ? n : protection.lastUser);
  if (limit <= start) return null;
  const messages = entries.map((e) => e.message);
  const latest = findSafeCutIndex(messages, limit);
  if (latest <= start || latest > limit) return null;
  const cut = smallestSufficientCut(ctx, start, latest);
  const end = cut - 1;
  const toSummarize: ChatMessage[] = [];
  const previous: string[] = [];
  for (let i = start; i <= end; i++) {
    const e = entries[i]!;
    // Summaries, digests, and notes or markers with a working state travel as the previous summary.
    const condensed = condensedTextOf(e);
    if (condensed !== undefined) previous.push(condensed);
    else toSummarize.push(e.message);
  }
  // Re-wrapping only markers and notes gains nothing worth a summary: at least one original message.
  let originals = 0;
  for (let i = start; i <= end; i++) if (isOriginal(entries[i]!)) originals++;
  if (toSummarize.length === 0 || originals === 0) return null;
  return {
    start,
    end,
    range: { from: entries[start]!.from, to: entries[end]!.to },
    messages: toSummarize,
    previousSummary: previous.length ? previous.join('\n\n') : undefined,
  };
}

/** A summary's expected size: a quarter of what it replaces, at most the offline summary's bound (in tokens). */
const expectedSummaryTokens = (replaced: number): number =>
  Math.min(Math.ceil(replaced / 4), Math.ceil(DEFAULT_MAX_SUMMARY_CHARS / CHARS_PER_TOKEN));

/**
 * The earliest turn boundary in (start, latest] whose summary brings the view under the target: the recent
 * turns stay verbatim rather than a fixed share of the messages being summarized. `latest` when none suffices.
 */
function smallestSufficientCut(ctx: StageContext, start: number, latest: number): number {
  const { entries } = ctx;
  const total = viewTokens(entries, ctx.counter);
  let hidden = 0;
  for (let i = start; i < latest; i++) {
    hidden += entries[i]!.tokens;
    const next = i + 1;
    if (next < latest && entries[next]!.message.role === 'user') {
      if (total - hidden + expectedSummaryTokens(hidden) <= ctx.targetTokens) return next;
    }
  }
  return latest;
}

export const summaryMessage = (summary: string, count: number): ChatMessage => ({
  role: 'system',
  content: `${SUMMARY_HEADER} — ${count} messages]\n${summary.trim()}`,
});

/** The header of a model summary that supersedes a deterministic replacement inside the current turn. */
export const STEPS_SUMMARY_HEADER = '[Summary of earlier steps of this turn';

/**
 * A summary block over the range, if the range still covers whole entries of the current view. A model summary
 * never knows less than the working state of the same span: the facts it leaves out are appended under
 * `KEPT_HEADING`; when the summary with them would not shrink the span, there is no block (the caller keeps the
 * deterministic replacement: a summary is never accepted without the facts it lost).
 */
export function summaryBlock(
  ctx: StageContext,
  range: PositionRange,
  summary: string,
  header: 'conversation' | 'steps' = 'conversation',
): CompactionBlock | null {
  const { entries } = ctx;
  const i = entries.findIndex((e) => e.from === range.from);
  let j = -1;
  for (let k = entries.length - 1; k >= 0; k--)
    if (entries[k]!.to === range.to) {
      j = k;
      break;
    }
  if (i < 0 || j < i) return null;
  for (const e of entries)
    if (e.from <= range.to && range.from <= e.to && (e.from < range.from || e.to > range.to)) return null;
  for (let k = i; k <= j; k++) if (ctx.protection.verbatim.has(k)) return null;
  const missing = factsMissingFrom(summary, entries, i, j, workingStateChars(ctx), ctx.originals);
  const text = missing ? `${summary.trimEnd()}\n${KEPT_HEADING}\n${missing}` : summary;
  const message =
    header === 'steps'
      ? {
          role: 'system' as const,
          content: `${STEPS_SUMMARY_HEADER} — ${range.to - range.from + 1} messages]\n${text.trim()}`,
        }
      : summaryMessage(text, j - i + 1);
  return makeBlock(ctx, 'summary', [{ from: range.from, to: range.to, replacement: [message] }]);
}

export { KEPT_HEADING, factsMissingFrom } from './summary-facts';

/**
 * Seed 003 level 2 as the offline fallback: one line per old turn (the user's ask; the assistant's short
 * text or the tools it used), bounded to `digestMaxChars`.
 */
export function digestLines(entries: readonly EffectiveEntry[], start: number, end: number): string[] {
  const lines: string[] = [];
  let user = '';
  let said: string[] = [];
  const tools = new Map<string, number>();
  const flush = () => {
    if (!user && said.length === 0 && tools.size === 0) return;
    const toolText = tools.size ? ` [used ${[...tools].map(([n, c]) => (c > 1 ? `${n}×${c}` : n)).join(', ')}]` : '';
    const reply = said.length ? clip(oneLine(said.join(' ')), 200) : tools.size ? '' : '[assistant response]';
    lines.push(`- ${user ? `user: "${clip(oneLine(user), 160)}" → ` : ''}${reply}${toolText}`.trim());
    user = '';
    said = [];
    tools.clear();
  };
  for (let i = start; i <= end; i++) {
    const e = entries[i]!;
    const m = e.message;
    if (condensedTextOf(e) !== undefined) {
      // What it condensed travels in the working state; an earlier digest's turn lines are carried over.
      flush();
      if (e.stage === 'digest') {
        const turns = m.content.split(`\n${WORKING_STATE_HEADING}\n`)[0]!;
        lines.push(...turns.split('\n').filter((l) => l.startsWith('- ')));
      }
      continue;
    }
    if (m.role === 'user') {
      flush();
      user = m.content;
    } else if (m.role === 'assistant') {
      if (m.content.trim() && m.content.length <= 200) said.push(m.content);
      for (const c of m.toolCalls ?? []) tools.set(c.name, (tools.get(c.name) ?? 0) + 1);
    }
  }
  flush();
  return lines;
}

export function digestBlock(ctx: StageContext, sel: SummaryRange): CompactionBlock | null {
  const max = ctx.policy.digestMaxChars;
  const all = digestLines(ctx.entries, sel.start, sel.end);
  const header = `${DIGEST_HEADER} — ${sel.end - sel.start + 1} messages, offline]`;
  let body = '';
  let used = 0;
  for (const l of all) {
    if (header.length + body.length + l.length + 60 > max) break;
    body += `\n${l}`;
    used++;
  }
  if (used < all.length) body += `\n[... ${all.length - used} more turns omitted]`;
  const message: ChatMessage = {
    role: 'system',
    content: withWorkingState(header + body, ctx.entries, sel.start, sel.end, workingStateChars(ctx), ctx.originals),
  };
  return makeBlock(ctx, 'digest', [{ from: sel.range.from, to: sel.range.to, replacement: [message] }]);
}

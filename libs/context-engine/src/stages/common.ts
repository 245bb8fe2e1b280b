import { createHash } from 'node:crypto';
import { ENGINE_VERSION, type BlockEdit, type CompactionBlock, type Stage } from '../model/block';
import type { ChatMessage, ToolCall } from '../model/message';
import type { CompactionPolicy } from '../model/policy';
import type { HistoryBudget } from '../budget';
import type { EffectiveEntry } from '../overlay';
import type { TokenCounter } from '../tokens';
import type { TailProtection } from './tail-protection';

/** What every stage sees: the current effective view and the session's rules. Stages are pure. */
export interface StageContext {
  readonly sessionId: string;
  readonly entries: readonly EffectiveEntry[];
  /** The session's messages as appended, by position (what an entry's `from`..`to` stand for). */
  readonly originals: readonly ChatMessage[];
  readonly counter: TokenCounter;
  readonly policy: CompactionPolicy;
  readonly budget: HistoryBudget;
  /** The token level the pipeline is compacting down to. */
  readonly targetTokens: number;
  readonly basedOnPosition: number;
  readonly protection: TailProtection;
  /** Block ids that were reverted: never re-emitted automatically (the user asked for the originals). */
  readonly suppressedIds?: ReadonlySet<string>;
  /** `stage:from-to` of every edit of a reverted block: such an edit is left out of new blocks of that stage. */
  readonly suppressedEdits?: ReadonlySet<string>;
  /** Active block ids: a block with the same id would be a no-op for the overlay, so it is never emitted. */
  readonly activeIds?: readonly string[];
}

/** Tokens of a view including the per-conversation framing. */
export const viewTokens = (entries: readonly EffectiveEntry[], counter: TokenCounter): number =>
  entries.length === 0 ? 0 : entries.reduce((s, e) => s + e.tokens, counter.perConversation);

/**
 * A block's id, from its stage and its edits' ranges: the same block computed again (a redelivery, a replay, a
 * stage redoing its own ranges) has the same id and is no new block. `pass` names a second pass of a stage that
 * may redo the ranges of the stage's first (the last resort cutting truncated results harder): its blocks have
 * ids of their own.
 */
export function blockId(
  sessionId: string,
  stage: Stage,
  edits: readonly { from: number; to: number }[],
  pass?: string,
): string {
  const ranges = [...edits]
    .sort((a, b) => a.from - b.from)
    .map((e) => `${e.from}-${e.to}`)
    .join(',');
  const kind = pass === undefined ? stage : `${stage}\u0000${pass}`;
  return createHash('sha256').update(`${sessionId}\u0000${kind}\u0000${ranges}`).digest('hex').slice(0, 24);
}

/**
 * Build a block from edits over the view; null when it would not shrink the history (never-grows guard)
 * or was reverted before. `tokensBefore` counts the view entries the edits cover.
 */
export function makeBlock(ctx: StageContext, stage: Stage, edits: BlockEdit[], pass?: string): CompactionBlock | null {
  const kept = ctx.suppressedEdits?.size ? edits.filter((e) => !ctx.suppressedEdits!.has(editKey(stage, e))) : edits;
  if (kept.length === 0) return null;
  const sorted = [...kept].sort((a, b) => a.from - b.from);
  let before = 0;
  let k = 0;
  for (const e of ctx.entries) {
    while (k < sorted.length && sorted[k]!.to < e.from) k++;
    const edit = sorted[k];
    if (edit && e.from >= edit.from && e.to <= edit.to) before += e.tokens;
  }
  let after = 0;
  for (const e of sorted) for (const m of e.replacement) after += ctx.counter.message(m);
  if (after >= before) return null;
  const id = blockId(ctx.sessionId, stage, sorted, pass);
  if (ctx.suppressedIds?.has(id) || ctx.activeIds?.includes(id)) return null;
  return {
    id,
    sessionId: ctx.sessionId,
    stage,
    range: { from: sorted[0]!.from, to: sorted[sorted.length - 1]!.to },
    edits: sorted,
    tokensBefore: before,
    tokensAfter: after,
    tokensSaved: before - after,
    basedOnPosition: ctx.basedOnPosition,
    engineVersion: ENGINE_VERSION,
  };
}

export const editKey = (stage: Stage, e: { from: number; to: number }): string => `${stage}:${e.from}-${e.to}`;

/** An edit replacing view entries [i, j] (inclusive) with `replacement`. */
export const editOver = (
  entries: readonly EffectiveEntry[],
  i: number,
  j: number,
  replacement: ChatMessage[],
): BlockEdit => ({
  from: entries[i]!.from,
  to: entries[j]!.to,
  replacement,
});

/** Call id → the call, over the view. */
export function callsById(entries: readonly EffectiveEntry[]): Map<string, { call: ToolCall; index: number }> {
  const map = new Map<string, { call: ToolCall; index: number }>();
  entries.forEach((e, index) => {
    for (const call of e.message.toolCalls ?? []) map.set(call.id, { call, index });
  });
  return map;
}

export function parseArguments(args: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Seed 000: the first two arguments, each value truncated to 40 characters. */
export function formatKeyArgs(args: string, maxValue = 40): string {
  const parsed = parseArguments(args);
  if (!parsed) return clip(oneLine(args), maxValue);
  return Object.entries(parsed)
    .slice(0, 2)
    .map(([k, v]) => `${k}=${clip(oneLine(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')), maxValue)}`)
    .join(', ');
}

/** A failed tool result: flagged, or an error-looking first line. */
export function looksLikeError(m: ChatMessage): boolean {
  if (m.isError) return true;
  const head = m.content.trimStart().slice(0, 160).toLowerCase();
  return /^(error\b|error:|enoent|eacces|no such file|file not found|cannot |could not |failed\b|traceback|exception\b)/.test(
    head,
  );
}

export { clip, oneLine };

/** Head+tail truncation by lines then characters, with an omitted-lines notice (seed 003 level 1, seed 002 limits). */
export function truncateHeadTail(text: string, maxChars: number, maxLines: number): string {
  const lines = text.split('\n');
  let out = text;
  if (lines.length > maxLines) {
    const head = Math.floor(maxLines / 2);
    const tail = maxLines - head;
    out = `${lines.slice(0, head).join('\n')}\n\n[... ${lines.length - head - tail} lines truncated ...]\n\n${lines.slice(lines.length - tail).join('\n')}`;
  }
  if (out.length > maxChars) {
    const keep = Math.max(0, maxChars - 80);
    const head = Math.ceil(keep / 2);
    const tail = keep - head;
    const omittedText = out.slice(head, out.length - tail);
    const omittedLines = omittedText.split('\n').length - 1;
    out = `${out.slice(0, head)}\n\n[... ${omittedText.length} chars, ${omittedLines} lines truncated ...]\n\n${out.slice(out.length - tail)}`;
  }
  return out;
}

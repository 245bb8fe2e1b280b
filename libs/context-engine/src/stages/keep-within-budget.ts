import type { BlockEdit, CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { callsById, makeBlock, viewTokens, type StageContext } from './common';
import { TRUNCATION_MARKER } from './sliding-window';
import { shortNote, type NoteCut } from './split-turn';
import { withKeptLines } from './truncate-tool-outputs';
import { compactState, launchesKept, markerBlock, SQUEEZED_MARKER, workingStateTokenBound } from './working-state';

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
  const marker = ctx.counter.message(compactedMarker(0, 'to fit the context window')) + 2 + workingStateTokenBound(ctx);
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
  return markerBlock(
    ctx,
    'keep-within-budget',
    start,
    cut - 1,
    compactedMarker(entries[cut - 1]!.to - entries[start]!.from + 1, 'to fit the context window'),
  );
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
  return markerBlock(
    ctx,
    'emergency',
    first,
    cut - 1,
    compactedMarker(entries[cut - 1]!.to - entries[first]!.from + 1, 'after a context-overflow error'),
  );
}

/** What a squeezed tool body keeps of its head, in characters. */
export const SQUEEZED_TOOL_CHARS = 80;
const SHORT_MARKER = SQUEEZED_MARKER;
const MARKER_HEADERS = [COMPACTED_MARKER, TRUNCATION_MARKER];

const NOTE_CUTS: readonly NoteCut[] = ['state', 'compact', 'bare'];

const isMarker = (e: EffectiveEntry): boolean =>
  !isOriginal(e) && e.message.role === 'system' && MARKER_HEADERS.some((h) => e.message.content.startsWith(h));

/** The entry is the only one standing for its span (so an edit over that span replaces just it). */
const alone = (entries: readonly EffectiveEntry[], i: number): boolean => {
  const e = entries[i]!;
  const same = (k: number) => entries[k] !== undefined && entries[k]!.from === e.from && entries[k]!.to === e.to;
  return !same(i - 1) && !same(i + 1);
};

/**
 * The last squeeze, only while the view is over the history budget although what must stay verbatim fits:
 * markers shortened (to their first line and the launches they list), the tool bodies outside the unconsumed
 * results cut to a short head and a notice (largest first), then markers listing no launch dropped where that
 * leaves no two user or assistant messages in a row — each step only while still over the budget. Never touches
 * the protected messages nor the shape of a tool pair (a call keeps its results; only their text shrinks).
 */
export function squeezeToBudget(ctx: StageContext): CompactionBlock | null {
  if (viewTokens(ctx.entries, ctx.counter) <= ctx.budget.historyBudget) return null;
  // Split-turn notes give up their steps and working state, and markers their task and requests, only when that is
  // what makes the view fit (the least lossy squeeze otherwise).
  let least: { edits: BlockEdit[]; total: number } | undefined;
  for (const [shrinkNotes, launchesOnly] of [
    [false, false],
    [true, false],
    [true, true],
  ] as const) {
    const squeezed = squeeze(ctx, shrinkNotes, launchesOnly);
    least ??= squeezed;
    if (squeezed.total <= ctx.budget.historyBudget) {
      least = squeezed;
      break;
    }
  }
  return least!.edits.length ? makeBlock(ctx, 'keep-within-budget', least!.edits) : null;
}

function squeeze(
  ctx: StageContext,
  shrinkNotes: boolean,
  launchesOnly: boolean,
): { edits: BlockEdit[]; total: number } {
  const { entries, counter, protection } = ctx;
  const limit = ctx.budget.historyBudget;
  let total = viewTokens(entries, counter);
  const edits = new Map<number, BlockEdit>();
  const tokensOf = new Map<number, number>();
  const apply = (i: number, replacement: ChatMessage[]) => {
    const after = replacement.reduce((s, m) => s + counter.message(m), 0);
    const before = tokensOf.get(i) ?? entries[i]!.tokens;
    if (after >= before) return;
    edits.set(i, { from: entries[i]!.from, to: entries[i]!.to, replacement });
    tokensOf.set(i, after);
    total -= before - after;
  };
  const markers: number[] = [];
  entries.forEach((e, i) => {
    if (isMarker(e) && alone(entries, i)) markers.push(i);
  });
  // A marker keeps its working state at its most telling (the task, the newest request, the changes, the newest
  // unresolved error, in a few lines) and its launches: what still runs is named nowhere else.
  for (const i of markers)
    if (total > limit)
      apply(i, [{ role: 'system', content: `${SHORT_MARKER}${compactState(entries[i]!.message.content)}` }]);
  // Split-turn notes keep their newest steps, then only their header and those steps (the working state last).
  const notes: number[] = [];
  entries.forEach((e, i) => {
    if (!isOriginal(e) && e.stage === 'split-turn' && alone(entries, i)) notes.push(i);
  });
  for (const keep of shrinkNotes ? NOTE_CUTS : [])
    for (const i of notes)
      if (total > limit) apply(i, [{ role: 'system', content: shortNote(entries[i]!.message.content, keep) }]);
  const bodies: number[] = [];
  entries.forEach((e, i) => {
    if (e.message.role !== 'tool' || protection.unconsumed.has(i) || !alone(entries, i)) return;
    if (isOriginal(e) || e.stage === 'truncate' || e.stage === 'dedupe') bodies.push(i);
  });
  bodies.sort((a, b) => entries[b]!.tokens - entries[a]!.tokens || a - b);
  const calls = callsById(entries);
  for (const i of bodies) {
    if (total <= limit) break;
    const m = entries[i]!.message;
    if (m.content.length <= SQUEEZED_TOOL_CHARS + 40) continue;
    const head = m.content.slice(0, SQUEEZED_TOOL_CHARS).trimEnd();
    const squeezed = `${head}\n[... ${m.content.length - head.length} chars omitted to fit the context window]`;
    // What failed and what still runs stay, when their lines were in the part cut.
    apply(i, [{ ...m, content: withKeptLines(m, squeezed, calls) }]);
  }
  // Then only its launches.
  for (const i of launchesOnly ? markers : [])
    if (total > limit)
      apply(i, [{ role: 'system', content: `${SHORT_MARKER}${launchesKept(entries[i]!.message.content)}` }]);
  const chatRole = (k: number) => {
    const r = entries[k]?.message.role;
    return r === 'user' || r === 'assistant' ? r : undefined;
  };
  for (const i of markers) {
    if (total <= limit) break;
    const prev = chatRole(i - 1);
    if (prev && prev === chatRole(i + 1)) continue;
    if (i - 1 >= 0 && entries[i - 1]!.message.toolCalls?.length) continue;
    // Nor the one naming what still runs.
    if (launchesKept(entries[i]!.message.content) !== '') continue;
    apply(i, []);
  }
  return { edits: [...edits.values()], total };
}

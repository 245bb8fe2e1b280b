import { createHash } from 'node:crypto';
import type { CompactionBlock, Stage } from '../model/block';
import type { CompactionTrigger, SessionCommand, SessionEvent, SummaryRequest } from '../model/events';
import type { ChatMessage } from '../model/message';
import { applyBlockToEntries, buildEffectiveEntries, isOriginal, type EffectiveEntry } from '../overlay';
import { condensedTextOf } from '../stages/working-state';
import {
  computeTailProtection,
  editKey,
  dedupeFileReads,
  digestBlock,
  emergencyDrop,
  keepWithinBudget,
  pruneToolOutputs,
  selectSummaryRange,
  slidingWindow,
  splitTurn,
  squeezeToBudget,
  summaryBlock,
  truncateToolOutputs,
  viewTokens,
  type StageContext,
} from '../stages';
import { classifyProviderError } from '../errors';
import { evolve } from './evolve';
import { refusalText } from './refusal';
import { effectiveTotal, type SessionState } from './state';

type RefusalReason = Extract<SessionEvent, { type: 'CompactionRefused' }>['data']['reason'];

type StageFn = (ctx: StageContext) => CompactionBlock | null;

/** A compaction pass over a view: the blocks it made and the view they lead to. */
interface Pass {
  entries: EffectiveEntry[];
  readonly blocks: CompactionBlock[];
  readonly events: SessionEvent[];
  /** The view each block of `blocks` was computed on (same index). */
  readonly views: EffectiveEntry[][];
}

const contextFor = (state: SessionState, entries: readonly EffectiveEntry[], targetTokens: number): StageContext => ({
  sessionId: state.sessionId,
  entries,
  originals: state.originals,
  counter: state.counter,
  policy: state.policy,
  budget: state.budget,
  targetTokens,
  basedOnPosition: state.originals.length - 1,
  protection: computeTailProtection(entries, state.policy.tail, state.budget.historyBudget),
  suppressedIds: state.reverted,
  suppressedEdits: suppressedEdits(state),
  activeIds: state.active,
});

function suppressedEdits(state: SessionState): ReadonlySet<string> {
  const out = new Set<string>();
  for (const id of state.reverted) {
    const b = state.blocks.get(id);
    if (b) for (const e of b.edits) out.add(editKey(b.stage, e));
  }
  return out;
}

function step(state: SessionState, pass: Pass, target: number, fn: StageFn): CompactionBlock | null {
  // A block of this pass is active too: a later stage must not emit another block with its id (same stage
  // and ranges), which the state would ignore as a redelivery while the pass applied it.
  const ctx = contextFor(state, pass.entries, target);
  const activeIds = pass.blocks.length ? [...state.active, ...pass.blocks.map((b) => b.id)] : state.active;
  const block = fn({ ...ctx, activeIds });
  if (!block) return null;
  pass.blocks.push(block);
  pass.views.push(pass.entries);
  pass.events.push({ type: 'BlockCreated', data: { block } });
  pass.entries = applyBlockToEntries(pass.entries, block, (m) => state.counter.message(m));
  return block;
}

const over = (state: SessionState, pass: Pass, limit: number) => viewTokens(pass.entries, state.counter) > limit;

function requestId(state: SessionState, from: number, to: number): string {
  return createHash('sha256')
    .update(`${state.sessionId}\u0000summary-request\u0000${from}-${to}\u0000${state.originals.length - 1}`)
    .digest('hex')
    .slice(0, 24);
}

/** Rounds of the fallback at most, while it still makes progress over the budget (one or two in practice). */
const FALLBACK_ROUNDS = 4;

/**
 * Stages 6 and 7 (and split-turn down to one pair as the very last resort), while over `limit`; again while still
 * over the budget and the round before made a block, since each can open room for another (a note squeezed to its
 * marker lets keep-within-budget take the messages around it): invariant 1 holds only if no stage can do more.
 */
function cheapFallback(state: SessionState, pass: Pass, target: number, limit: number): void {
  for (let round = 0; round < FALLBACK_ROUNDS; round++) {
    const made = pass.blocks.length;
    fallbackRound(state, pass, target, limit);
    if (pass.blocks.length === made || !over(state, pass, state.budget.historyBudget)) return;
  }
}

function fallbackRound(state: SessionState, pass: Pass, target: number, limit: number): void {
  if (state.policy.stages.slidingWindow && over(state, pass, limit)) step(state, pass, target, (c) => slidingWindow(c));
  if (over(state, pass, limit)) step(state, pass, target, keepWithinBudget);
  if (over(state, pass, state.budget.historyBudget)) step(state, pass, target, (c) => splitTurn(c, 1, true));
  if (over(state, pass, state.budget.historyBudget)) step(state, pass, target, (c) => truncateToolOutputs(c, true));
  // Still over although the verbatim minimum may fit: squeeze markers and bodies, then the whole current turn.
  if (over(state, pass, state.budget.historyBudget)) step(state, pass, target, squeezeToBudget);
  if (over(state, pass, state.budget.historyBudget)) {
    step(state, pass, target, (c) => splitTurn(c, 0, true));
    if (over(state, pass, state.budget.historyBudget)) step(state, pass, target, squeezeToBudget);
  }
}

function offlineSummary(state: SessionState, pass: Pass, target: number): void {
  step(state, pass, target, (c) => {
    const sel = selectSummaryRange(c);
    return sel ? digestBlock(c, sel) : null;
  });
}

/**
 * Run the pipeline on the state's view. `mode` 'normal' may request a summary; 'offline' uses the digest.
 * Events: BlockCreated…, SummaryRequested?, BlockCreated…, then CompactionCompleted or CompactionSkipped.
 */
/**
 * How much the provider's own count exceeds our estimate, from the numbers an overflow error states
 * ("resulted in 150000 tokens"): our estimate of the whole prompt is history + fixed overhead. ≥ 1.
 */
export function overflowUnderestimate(state: SessionState, errorText?: string): number {
  if (!errorText) return 1;
  const c = classifyProviderError(errorText);
  if (c.kind !== 'overflow' || !c.actualTokens) return 1;
  const ours = viewTokens(state.entries, state.counter) + state.budget.fixedOverhead;
  return ours > 0 ? Math.max(1, Math.min(4, c.actualTokens / ours)) : 1;
}

function compact(
  state: SessionState,
  trigger: CompactionTrigger,
  mode: 'normal' | 'offline',
  options: { readonly errorText?: string; readonly askModel?: boolean } = {},
): SessionEvent[] {
  const { errorText, askModel = mode === 'normal' } = options;
  const pass: Pass = { entries: state.entries, blocks: [], events: [], views: [] };
  const b = state.budget;
  const before = viewTokens(state.entries, state.counter);
  // After an overflow the provider proved our estimate low: aim at 70 % of the budget, in its units.
  const target =
    trigger === 'overflow'
      ? Math.floor(
          Math.min(b.targetTokens, b.historyBudget * state.policy.emergency.targetRatio) /
            overflowUnderestimate(state, errorText),
        )
      : b.targetTokens;
  const st = state.policy.stages;
  if (trigger === 'overflow') step(state, pass, target, emergencyDrop);
  const cheap: [boolean, StageFn][] = [
    [st.truncate, truncateToolOutputs],
    [st.prune, pruneToolOutputs],
    [st.dedupe, dedupeFileReads],
    [st.splitTurn, (c) => splitTurn(c)],
  ];
  for (const [enabled, fn] of cheap) if (enabled && over(state, pass, target)) step(state, pass, target, fn);

  let summaryRequested = false;
  if (over(state, pass, target)) {
    if (mode === 'normal' && state.policy.summaries === 'on') {
      if (!state.pendingSummary) {
        const ctx = contextFor(state, pass.entries, target);
        const sel = selectSummaryRange(ctx);
        if (sel) {
          let tokensBefore = 0;
          for (let i = sel.start; i <= sel.end; i++) tokensBefore += pass.entries[i]!.tokens;
          const request: SummaryRequest = {
            requestId: requestId(state, sel.range.from, sel.range.to),
            sessionId: state.sessionId,
            range: sel.range,
            messages: sel.messages,
            previousSummary: sel.previousSummary,
            basedOnPosition: state.originals.length - 1,
            tokensBefore,
          };
          pass.events.push({ type: 'SummaryRequested', data: { request } });
          summaryRequested = true;
        }
      }
      // Never leave a session over its budget waiting for an LLM: the cheap stages act at once.
      const limit = trigger === 'overflow' || !(summaryRequested || state.pendingSummary) ? target : b.historyBudget;
      if (over(state, pass, limit)) cheapFallback(state, pass, target, limit);
    } else {
      offlineSummary(state, pass, target);
      cheapFallback(state, pass, target, target);
    }
  }
  if (pass.blocks.length === 0 && !summaryRequested) {
    return [...pass.events, { type: 'CompactionSkipped', data: { trigger, reason: 'no-progress' } }];
  }
  // A range condensed deterministically goes to the summarizer too; its replacement serves until the answer.
  const digestRequest = askModel && trigger !== 'overflow' ? digestSummaryRequest(state, pass) : undefined;
  if (digestRequest) pass.events.push({ type: 'SummaryRequested', data: { request: digestRequest } });
  const after = viewTokens(pass.entries, state.counter);
  const stages: Stage[] = [...new Set(pass.blocks.map((x) => x.stage))];
  return [
    ...pass.events,
    {
      type: 'CompactionCompleted',
      data: {
        trigger,
        tokensBefore: before,
        tokensAfter: after,
        blockIds: pass.blocks.map((x) => x.id),
        stages,
        fits: after <= b.historyBudget,
        summaryRequested,
      },
    },
  ];
}

/** Emmett's decide: the events a command produces on a state. Pure. */
export function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  switch (command.type) {
    case 'Compact': {
      const { trigger } = command.data;
      const b = state.budget;
      // A refusal is recorded once; repeating it on every automatic check would only add noise.
      const refuse = (reason: RefusalReason, detail: string): SessionEvent[] =>
        trigger === 'auto' && state.lastNoOpReason === refusalText(reason, detail)
          ? []
          : [{ type: 'CompactionRefused', data: { trigger, reason, detail } }];
      if (b.unusableReason) return refuse('budget-unusable', b.unusableReason);
      if (b.overheadOverThreshold) {
        return refuse(
          'fixed-overhead-over-threshold',
          `system prompt + tool definitions (${b.fixedOverhead} tokens) alone reach the ${state.policy.thresholdRatio} threshold of ${b.availableInput} available input tokens`,
        );
      }
      const effective = effectiveTotal(state);
      if (trigger === 'auto') {
        if (effective <= b.thresholdTokens) return []; // O(1): the common case on every append
        const g = state.guard;
        // The guards protect the threshold, never the budget: over the budget we always try.
        const grown =
          effective > b.historyBudget ||
          state.rawTokens - g.lastAttemptRaw >= state.policy.guard.retryAfterGrowthRatio * b.historyBudget;
        if (!grown && g.noOpStreak >= state.policy.guard.maxConsecutiveNoOps) {
          return refuse('no-progress-guard', `${g.noOpStreak} consecutive compactions changed nothing`);
        }
        if (!grown && g.ineffectiveStreak >= state.policy.guard.maxIneffectiveCompactions) {
          return refuse(
            'compaction-limit',
            `${g.ineffectiveStreak} compactions in a row left the history over the threshold`,
          );
        }
        // Waiting for the summarizer inside the budget is the expected state: nothing to record.
        if (state.pendingSummary && effective <= b.historyBudget) return [];
        // Anti-thrash: a few model calls between compactions keep the prompt cache alive; never over the budget.
        const hold = state.policy.guard.minTurnsBetweenCompactions;
        if (g.compactions > 0 && g.callsSinceCompaction < hold && effective <= b.historyBudget) return [];
      } else if (trigger === 'manual' && effective <= b.targetTokens) {
        return [{ type: 'CompactionSkipped', data: { trigger, reason: 'fits' } }];
      }
      return compact(state, trigger, 'normal', { errorText: command.data.errorText });
    }
    case 'CompleteSummary': {
      const digest = state.pendingDigestSummary;
      if (digest && digest.requestId === command.data.requestId)
        return completeDigestSummary(state, digest, command.data);
      const pending = state.pendingSummary;
      if (!pending || pending.requestId !== command.data.requestId) return []; // stale or duplicate
      const ctx = contextFor(state, state.entries, state.budget.targetTokens);
      const block = summaryBlock(ctx, pending.range, command.data.summary);
      if (!block) {
        const stale = !fitsView(state.entries, pending.range);
        const rejected: SessionEvent = {
          type: 'SummaryRejected',
          data: { requestId: pending.requestId, reason: stale ? 'stale-range' : 'not-smaller' },
        };
        const next = evolve(state, rejected);
        // A stale range is asked again on the current view; a summary that does not shrink falls back offline.
        const tail =
          effectiveTotal(next) > next.budget.targetTokens
            ? compact(next, 'auto', stale ? 'normal' : 'offline', { askModel: stale })
            : [];
        return [rejected, ...tail];
      }
      const events: SessionEvent[] = [{ type: 'BlockCreated', data: { block } }];
      const next = evolve(state, events[0]!);
      if (effectiveTotal(next) <= next.budget.targetTokens) {
        const t = effectiveTotal(next);
        return [
          ...events,
          {
            type: 'CompactionCompleted',
            data: {
              trigger: 'auto',
              tokensBefore: effectiveTotal(state),
              tokensAfter: t,
              blockIds: [block.id],
              stages: ['summary'],
              fits: t <= next.budget.historyBudget,
              summaryRequested: false,
            },
          },
        ];
      }
      const rest = compact(next, 'auto', 'offline', { askModel: true });
      return [...events, ...rest.filter((e) => e.type !== 'CompactionSkipped')];
    }
    case 'FailSummary': {
      const digest = state.pendingDigestSummary;
      // A digest summary that fails leaves the deterministic replacement in place: nothing else to do.
      if (digest && digest.requestId === command.data.requestId) {
        return [{ type: 'SummaryFailed', data: { requestId: digest.requestId, reason: command.data.reason } }];
      }
      const pending = state.pendingSummary;
      if (!pending || pending.requestId !== command.data.requestId) return [];
      const failed: SessionEvent = {
        type: 'SummaryFailed',
        data: { requestId: pending.requestId, reason: command.data.reason },
      };
      const next = evolve(state, failed);
      const tail =
        effectiveTotal(next) > next.budget.targetTokens ? compact(next, 'auto', 'offline', { askModel: false }) : [];
      return [failed, ...tail];
    }
    case 'SummarizeNote': {
      const request = pauseSummaryRequest(state);
      return request ? [{ type: 'SummaryRequested', data: { request } }] : [];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${(never as { type: string }).type}`);
    }
  }
}

function fitsView(entries: readonly EffectiveEntry[], range: { from: number; to: number }): boolean {
  let startOk = false;
  let endOk = false;
  for (const e of entries) {
    if (e.from <= range.to && range.from <= e.to && (e.from < range.from || e.to > range.to)) return false;
    if (e.from === range.from) startOk = true;
    if (e.to === range.to) endOk = true;
  }
  return startOk && endOk;
}

/** The stages whose one replacement condenses a range deterministically: a model summary may supersede it. */
const DIGEST_STAGES: ReadonlySet<Stage> = new Set(['split-turn', 'digest', 'sliding-window', 'keep-within-budget']);

/** The view entry that is exactly the replacement of `stage` over `range`, if the view shows it. */
function replacementAt(
  entries: readonly EffectiveEntry[],
  range: { from: number; to: number },
  stage: Stage,
): EffectiveEntry | undefined {
  const found = entries.filter((e) => e.from <= range.to && range.from <= e.to);
  const e = found.length === 1 ? found[0]! : undefined;
  return e && !isOriginal(e) && e.stage === stage && e.from === range.from && e.to === range.to ? e : undefined;
}

/** A note or marker (one system message) standing for a range; never a cut tool body (its call needs a result). */
function noteEdit(block: CompactionBlock): CompactionBlock['edits'][number] | undefined {
  const [edit, more] = block.edits;
  if (!DIGEST_STAGES.has(block.stage) || !edit || more || edit.replacement.length !== 1) return undefined;
  return edit.replacement[0]!.role === 'system' ? edit : undefined;
}

/**
 * Policy `digestSummaries: 'on'`: a model summary of the largest range this pass condensed deterministically (an
 * in-turn prefix's note, a digest, a marker) that the final view still shows as one replacement, unless the pending
 * one is still answerable (one at a time; a stale one is replaced).
 */
function digestSummaryRequest(state: SessionState, pass: Pass): SummaryRequest | undefined {
  if (state.policy.digestSummaries !== 'on' || pendingDigestAnswerable(state, pass.entries)) return undefined;
  let best: { block: CompactionBlock; view: EffectiveEntry[]; entry: EffectiveEntry } | undefined;
  pass.blocks.forEach((block, k) => {
    const edit = noteEdit(block);
    const entry = edit && replacementAt(pass.entries, edit, block.stage);
    if (entry && (!best || block.tokensBefore > best.block.tokensBefore)) best = { block, view: pass.views[k]!, entry };
  });
  return best && noteSummaryRequest(state, best.block, best.view, best.entry);
}

/** A note smaller than this is not worth a model call at a pause: its summary with the facts would not be smaller. */
const MIN_PAUSE_NOTE_TOKENS = 200;

/**
 * Policy `digestSummaries: 'pause'` (command `SummarizeNote`): a model summary of the largest note the view shows
 * that was never asked about, unless the pending one is still answerable.
 */
function pauseSummaryRequest(state: SessionState): SummaryRequest | undefined {
  if (state.policy.digestSummaries === 'off' || pendingDigestAnswerable(state)) return undefined;
  let best: { block: CompactionBlock; entry: EffectiveEntry } | undefined;
  for (const entry of state.entries) {
    if (isOriginal(entry) || entry.tokens < MIN_PAUSE_NOTE_TOKENS || state.notesAsked.has(entry.blockId!)) continue;
    const block = state.blocks.get(entry.blockId!)!;
    const edit = noteEdit(block);
    if (edit?.from !== entry.from || edit.to !== entry.to) continue;
    if (!best || entry.tokens > best.entry.tokens) best = { block, entry };
  }
  if (!best) return undefined;
  // What the note hides, as it was shown before the note: the view of the blocks activated before it.
  const earlier = state.active.slice(0, state.active.indexOf(best.block.id)).map((id) => state.blocks.get(id)!);
  const view = buildEffectiveEntries(state.originals, state.originalTokens, earlier, (m) => state.counter.message(m));
  return noteSummaryRequest(state, best.block, view, best.entry);
}

/**
 * The request for a model summary of the note `entry` (the replacement of `block`): its messages are what the note
 * hides, as `view` (the view the block was computed on) showed them; its `tokensBefore` is the note's size (what
 * the model's summary will replace).
 */
function noteSummaryRequest(
  state: SessionState,
  block: CompactionBlock,
  view: readonly EffectiveEntry[],
  entry: EffectiveEntry,
): SummaryRequest | undefined {
  const messages: ChatMessage[] = [];
  const previous: string[] = [];
  for (const e of view) {
    if (e.to < entry.from || e.from > entry.to) continue;
    const condensed = condensedTextOf(e);
    if (condensed !== undefined) previous.push(condensed);
    else messages.push(e.message);
  }
  if (messages.length === 0) return undefined;
  const range = { from: entry.from, to: entry.to };
  return {
    requestId: createHash('sha256')
      .update(`${state.sessionId}\u0000digest-summary\u0000${block.id}`)
      .digest('hex')
      .slice(0, 24),
    sessionId: state.sessionId,
    range,
    messages,
    previousSummary: previous.length ? previous.join('\n\n') : undefined,
    basedOnPosition: state.originals.length - 1,
    tokensBefore: entry.tokens,
    supersedes: { blockId: block.id, stage: block.stage },
  };
}

/**
 * Whether the pending model summary of a note could still supersede it: the view still shows the note. A request
 * not yet sent (the compaction service holds them until the session pauses) is not worth sending otherwise.
 */
export function pendingDigestAnswerable(
  state: SessionState,
  entries: readonly EffectiveEntry[] = state.entries,
): boolean {
  const pending = state.pendingDigestSummary;
  if (!pending?.supersedes) return false;
  return (
    state.active.includes(pending.supersedes.blockId) &&
    replacementAt(entries, pending.range, pending.supersedes.stage) !== undefined
  );
}

/**
 * A model summary for a range condensed deterministically: a new summary block superseding the replacement, when
 * the view still shows that replacement, the answer is a model's (an offline fallback only repeats the digest) and
 * the summary with the facts it lost is smaller than the replacement. Otherwise the replacement stays.
 * A late answer still supersedes while its replacement is shown: a read never waited for it.
 */
function completeDigestSummary(
  state: SessionState,
  request: SummaryRequest,
  answer: { readonly summary: string; readonly provider?: string },
): SessionEvent[] {
  const reject = (reason: 'stale-range' | 'not-smaller' | 'offline-answer'): SessionEvent[] => [
    { type: 'SummaryRejected', data: { requestId: request.requestId, reason } },
  ];
  if (answer.provider === 'offline') return reject('offline-answer');
  const superseded = request.supersedes!;
  if (!pendingDigestAnswerable(state)) return reject('stale-range');
  const ctx = contextFor(state, state.entries, state.budget.targetTokens);
  const block = summaryBlock(
    ctx,
    request.range,
    answer.summary,
    superseded.stage === 'split-turn' ? 'steps' : 'conversation',
  );
  if (!block) return reject('not-smaller');
  // A refinement of a compaction already counted, not another one: no CompactionCompleted (the guards ignore it).
  return [{ type: 'BlockCreated', data: { block } }];
}

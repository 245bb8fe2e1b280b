import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { toolPairsIn } from '../turns';
import { callOfStepLine, callOutcome, describeCall } from '../summarizer/call-outcome';
import { openedBefore, toolActivity, type ShellState } from '../summarizer/tool-activity';
import { clip, formatKeyArgs, looksLikeError, makeBlock, oneLine, type StageContext } from './common';
import {
  CHARS_PER_TOKEN,
  MIN_STATE_CHARS,
  SMALLER_STATES,
  STEPS_HEADING,
  WORKING_STATE_HEADING,
  compactState,
  launchesKept,
  unsqueezed,
  workingStateChars,
  workingStateOfSpan,
} from './working-state';
import { memoOfString } from './memo';

export const SPLIT_TURN_HEADER = '[Turn prefix compressed';
/** The count in a note's header (`[Turn prefix compressed — 5 earlier tool call(s)]`). */
const EARLIER_CALLS = /^\[Turn prefix compressed — (\d+) earlier tool call/;

/** Tokens of the current turn (from the last user message) plus the pinned head. */
export function currentTurnTokens(ctx: Pick<StageContext, 'entries' | 'protection'>): number {
  const { entries, protection } = ctx;
  let t = 0;
  for (let i = 0; i < protection.headEnd; i++) t += entries[i]!.tokens;
  for (let i = Math.max(protection.lastUser, protection.headEnd); i < entries.length; i++) t += entries[i]!.tokens;
  return t;
}

/** Seed 000's note lines for a run of view entries (earlier notes' lines are carried over). */
function seedNoteLines(entries: readonly EffectiveEntry[], from: number, to: number, maxArg: number): string[] {
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
      lines.push(...stepLinesOf(m.content));
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

/** Share of the compaction target a rich note's step lines may take. */
const STEPS_SHARE = 0.25;

/** The step lines of an earlier note (its working state is merged separately). */
function stepLinesOf(content: string): string[] {
  const at = content.indexOf(`\n${STEPS_HEADING}\n`);
  const wsAt = content.indexOf(`\n${WORKING_STATE_HEADING}\n`);
  const body = at >= 0 ? content.slice(at) : wsAt >= 0 ? content.slice(0, wsAt) : content;
  // An earlier note's count of omitted steps is not a step: the new note counts its own.
  return body.split('\n').filter((l) => l.startsWith('- ') && !l.startsWith('- (+'));
}

/** A step line whose call failed, read back as its call and result (`callOfStepLine`) and judged as any result is. */
const failedStep = memoOfString((line: string): boolean => {
  const step = callOfStepLine(line, 'step');
  return step !== undefined && !callOutcome(toolActivity(step.call, {}), step.result).ok;
});

/**
 * The `n` step lines a cut note keeps, in order: its newest, the newest of its failed calls (what went wrong must
 * not go first: a note stacked on this one has only these lines to pass on), then the newest others.
 */
export function keptSteps(steps: readonly string[], n: number): string[] {
  if (steps.length <= n) return [...steps];
  const chosen = new Set<number>([steps.length - 1]);
  for (let i = steps.length - 2; i >= 0 && chosen.size < n; i--) if (failedStep(steps[i]!)) chosen.add(i);
  for (let i = steps.length - 2; i >= 0 && chosen.size < n; i--) chosen.add(i);
  return steps.filter((_, i) => chosen.has(i));
}

/**
 * A note cut to three of its steps (`keptSteps`) and its whole working state, the most telling lines of it, or none of
 * it but its background launches (`NoteCut`: the squeeze's last resort while the view is over the budget).
 */
export function shortNote(content: string, keep: NoteCut): string {
  return cutNotes[keep](content);
}
/**
 * How much of a note the squeeze keeps besides its header: its whole working state and three steps; the state cut to
 * its most telling lines (`compactState`) and three steps without their prose; three steps and its launches only.
 */
export type NoteCut = 'state' | 'compact' | 'bare';
/** Notes of the views being compacted come back; a few hundred kilobytes of them at most are kept. */
const NOTES_KEPT = 256;
const cutNotes: Record<NoteCut, (content: string) => string> = {
  state: memoOfString((content: string) => cutNote(content, 'state'), NOTES_KEPT),
  compact: memoOfString((content: string) => cutNote(content, 'compact'), NOTES_KEPT),
  bare: memoOfString((content: string) => cutNote(content, 'bare'), NOTES_KEPT),
};

const isProse = (step: string): boolean => /^- (?:intent|said): /.test(step);

function cutNote(content: string, keep: NoteCut): string {
  const lines = content.split('\n');
  const at = lines.indexOf(STEPS_HEADING);
  const all = stepLinesOf(content);
  if (keep === 'compact') {
    const state = compactState(content);
    if (state !== '') {
      const steps = keptSteps(
        all.filter((l) => !isProse(l)),
        3,
      );
      return [`${lines[0]!}${state}`, ...(steps.length ? [STEPS_HEADING, ...steps] : [])].join('\n');
    }
  }
  const steps = keptSteps(all, 3);
  if (keep === 'state' && at > 0) return [...lines.slice(0, at + 1), ...steps].join('\n');
  // Without its working state, a note still names what the turn left running: no other line does.
  const head = `${lines[0]!}${launchesKept(content)}`;
  // The steps keep their heading: a later note reads a note's calls back from the lines under it.
  return [head, ...(steps.length ? [STEPS_HEADING, ...steps] : [])].join('\n');
}

/** Prose of an assistant message on one line: fenced code left out. */
const intentOf = (text: string): string => oneLine(text.replace(/```[\s\S]*?(?:```|$)/g, ' '));

/**
 * The rich note's step lines: per assistant message its intent (the text that came with the calls), then one
 * line per call with its outcome read from the result; identical consecutive lines collapsed (×N).
 */
function richStepLines(
  entries: readonly EffectiveEntry[],
  from: number,
  to: number,
  originals: readonly ChatMessage[],
): string[] {
  const results = new Map<string, ChatMessage>();
  for (let i = from; i <= to; i++) {
    const m = entries[i]!.message;
    if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  }
  const out: { text: string; count: number }[] = [];
  const push = (text: string) => {
    const last = out[out.length - 1];
    if (last && last.text === text) last.count++;
    else out.push({ text, count: 1 });
  };
  const shell: ShellState = {};
  for (let i = from; i <= to; i++) {
    const e = entries[i]!;
    const m = e.message;
    // Past a replacement, the open file is the one before the next original message (SWE-agent's range edits).
    if (!isOriginal(e)) shell.lastOpened = undefined;
    if (!isOriginal(e) && e.stage === 'split-turn') {
      for (const l of stepLinesOf(m.content)) push(l.slice(2));
      continue;
    }
    if (m.role !== 'assistant') continue;
    shell.openedEarlier = () => openedBefore(originals, e.from);
    const intent = intentOf(m.content);
    if (intent) push(`${m.toolCalls?.length ? 'intent' : 'said'}: ${clip(intent, 240)}`);
    for (const c of m.toolCalls ?? []) {
      const activity = toolActivity(c, shell);
      push(describeCall(c, activity, callOutcome(activity, results.get(c.id))));
    }
  }
  return out.map((l) => `- ${l.text}${l.count > 1 ? ` (×${l.count})` : ''}`);
}

/** The newest lines that fit `maxChars`, with a count of the older ones left out. */
function newestWithin(lines: readonly string[], maxChars: number): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let k = lines.length - 1; k >= 0; k--) {
    if (used + lines[k]!.length + 1 > maxChars) break;
    kept.push(lines[k]!);
    used += lines[k]!.length + 1;
  }
  kept.reverse();
  const left = lines.length - kept.length;
  return left > 0
    ? [`- (+${left} earlier steps omitted: their files, commands and errors are in the working state)`, ...kept]
    : kept;
}

/**
 * The rich notes, longest first: header, working state of the prefix, then its newest steps; when that would not
 * shrink the prefix, its cut forms, the working state at a half and a quarter of its size (a shorter state, not
 * none: a state slightly over the room left lost every file it listed), and the steps alone. Built as they are asked
 * for: most prefixes take the first.
 */
function* richNotes(ctx: StageContext, start: number, end: number, calls: number): Generator<ChatMessage> {
  const header = `${SPLIT_TURN_HEADER} — ${calls} earlier tool call(s)]`;
  const source = unsqueezed(ctx.entries, start, end, ctx.originals);
  const last = source.length - 1;
  // The steps may take a quarter of the target (the newest first), the working state its own share.
  const stepChars = Math.max(800, Math.floor(ctx.targetTokens * STEPS_SHARE * CHARS_PER_TOKEN));
  const steps = newestWithin(richStepLines(source, 0, last, ctx.originals), stepChars);
  const noteWith = (stateChars: number): ChatMessage => {
    // The latest intent is the last step: the working state's "Current state" would repeat it.
    const state = workingStateOfSpan(source, stateChars, ctx.originals)?.replace(/\n?## Current state\n[\s\S]*$/, '');
    const withState = state ? `${header}\n${WORKING_STATE_HEADING}\n${state}\n` : `${header}\n`;
    return { role: 'system', content: `${withState}${STEPS_HEADING}\n${steps.join('\n')}` };
  };
  const full = workingStateChars(ctx);
  const rich = noteWith(full);
  yield rich;
  // Built from the originals of a cut note, the rich note may be longer than the span it replaces: its cut forms.
  if (source.length > end - start + 1)
    for (const cut of ['state', 'compact'] as const) yield { role: 'system', content: shortNote(rich.content, cut) };
  for (const share of SMALLER_STATES) if (full * share >= MIN_STATE_CHARS) yield noteWith(Math.floor(full * share));
  yield {
    role: 'system',
    content: `${header}\n${STEPS_HEADING}\n${newestWithin(steps, workingStateChars(ctx, 0.5)).join('\n')}`,
  };
}

/**
 * Stage 4 (seed 000): when the current turn alone does not fit the target and has more than `tailPairs`
 * tool-call groups, the older groups are collapsed into one non-empty note; the newest `tailPairs` groups, the
 * user message, the verbatim set and unconsumed results stay. The note is the rich one (`policy.inTurnDigest`:
 * working state, then one line per call with its outcome) or seed 000's (tool, key args ≤ 40 chars, status); a
 * shorter rich note, then the seed's, when a longer one would not shrink the prefix.
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
  let calls = 0;
  for (let i = start; i <= end; i++) {
    const e = entries[i]!;
    // An earlier note counts the calls it stands for, also once the squeeze has shortened it (a keep-within-budget
    // block then holds it): its working state carries them all.
    const earlier = isOriginal(e) ? undefined : EARLIER_CALLS.exec(e.message.content);
    calls += earlier ? Number(earlier[1]) : (e.message.toolCalls?.length ?? 0);
  }
  const seed = (): ChatMessage | null => {
    const lines = seedNoteLines(entries, start, end, tailPairs === 0 ? 16 : 40);
    if (lines.length === 0) return null;
    const n = lines.filter((l) => !l.startsWith('- assistant:')).length;
    return {
      role: 'system',
      content: `${SPLIT_TURN_HEADER} — ${n} earlier tool call(s)]\n## In-Turn Prefix\n${lines.join('\n')}`,
    };
  };
  // The rich note, or a shorter one when it would not shrink the prefix; the seed's note as the last try.
  function* notes(): Generator<ChatMessage | null> {
    if (ctx.policy.inTurnDigest !== 'seed') yield* richNotes(ctx, start, end, calls);
    yield seed();
  }
  const edit = { from: entries[start]!.from, to: entries[end]!.to };
  for (const note of notes()) {
    if (!note) continue;
    const block = makeBlock(ctx, 'split-turn', [{ ...edit, replacement: [note] }]);
    if (block) return block;
  }
  return null;
}

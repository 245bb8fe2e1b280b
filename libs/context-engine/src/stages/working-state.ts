import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { isBackgroundLine } from '../summarizer/background';
import { callOfStepLine } from '../summarizer/call-outcome';
import { summarizeDeterministic, type SummarySection } from '../summarizer/deterministic-summarizer';
import { openedBefore } from '../summarizer/tool-activity';
import { makeBlock, type StageContext } from './common';

/**
 * The working state a replacement carries: what the messages it hides told the agent — every user request,
 * the files read and changed with their last action, the commands with their last outcome, the errors and
 * whether a later step resolved them, decisions, the latest plan. It is merged into every later replacement
 * that hides this one (a note, a summary, a marker), so it is never lost when blocks stack; it is computed from
 * the view, so a reverted block's originals are read again. Bounded by priority (recent first, the first
 * request kept) to `policy.workingStateShare` of the compaction target.
 */
export const WORKING_STATE_HEADING = '# Working state';

/** The calibrated estimate is about 2.9 characters per token on agent transcripts; 3 errs on the small side. */
export const CHARS_PER_TOKEN = 3;

/**
 * When a replacement with its whole working state would not shrink the span it hides, it is tried with the state at
 * these shares of its size before going without one; a state under MIN_STATE_CHARS is not tried.
 */
export const SMALLER_STATES = [0.5, 0.25] as const;
export const MIN_STATE_CHARS = 400;

/** The character budget of one working state in this compaction (0: off). */
export function workingStateChars(ctx: Pick<StageContext, 'policy' | 'targetTokens'>, share = 1): number {
  const s = ctx.policy.workingStateShare * share;
  if (!(s > 0)) return 0;
  return Math.max(MIN_STATE_CHARS, Math.floor(ctx.targetTokens * s * CHARS_PER_TOKEN));
}

/**
 * Tokens to reserve for a working state when a stage sizes its cut before writing it: its character bound at a
 * conservative 2.5 characters per token.
 */
export const workingStateTokenBound = (ctx: Pick<StageContext, 'policy' | 'targetTokens'>): number =>
  Math.ceil(workingStateChars(ctx) / 2.5);

/**
 * What a replacement cut to its first line must still carry of its working state: the background launches not
 * collected (their handles are in no other message), as a working state of their own; '' when it lists none.
 */
export function launchesKept(content: string): string {
  const state = workingStateSection(content);
  const launches = state?.split('\n').filter(isLaunchItem) ?? [];
  return launches.length ? `\n${WORKING_STATE_HEADING}\n${PENDING_HEADING}\n${launches.join('\n')}` : '';
}
const heading = (section: SummarySection): string => `## ${section}`;
const PENDING_HEADING = heading('Pending work');
const CURRENT_STATE_HEADING = heading('Current state');
const FILES_HEADING = heading('Files touched');
/** A working state's item line that names a background launch not collected. */
const isLaunchItem = (line: string): boolean => line.startsWith('- ') && isBackgroundLine(line.slice(2));

/**
 * What a replacement's working state is cut to when its whole would not fit (`compactState`), in characters: room for
 * the task, the newest request, a changed file and the newest unresolved error with their headings (240 left the error
 * out).
 */
export const COMPACT_STATE_CHARS = 320;
/** The shares of COMPACT_STATE_CHARS a marker over a condensed span tries, largest first. */
const COMPACT_SHARES = [1, 0.75, 0.5] as const;
const ONLY_SEEN = /^- .* \(seen\)$/;

/**
 * A replacement's working state re-ranked into at most `maxChars` characters, and its launches' lines whole, under its
 * heading: what a cut to its first line would lose for good, at its most telling (the task and the newest request,
 * changed files, the newest unresolved error: `summarizeDeterministic`'s priorities; files only seen left out), and
 * every launch (what still runs is named nowhere else); '' when it has none.
 */
export function compactState(content: string, maxChars = COMPACT_STATE_CHARS): string {
  const state = workingStateSection(content);
  if (state === undefined) return '';
  const launches: string[] = [];
  const others: string[] = [];
  let section = '';
  for (const l of state.split('\n')) {
    if (l.startsWith('## ')) section = l;
    if (isLaunchItem(l)) launches.push(l);
    // A file only seen in a listing or a search is the least telling line: none takes the room of a change.
    else if (!(section === FILES_HEADING && ONLY_SEEN.test(l))) others.push(l);
  }
  const body = summarizeDeterministic({ messages: [], previousSummary: others.join('\n'), maxChars })
    .text.split('\n')
    .slice(1);
  if (launches.length > 0) {
    // First under Pending work, which comes before the current state only.
    const pending = body.indexOf(PENDING_HEADING);
    const at = pending >= 0 ? pending + 1 : body.indexOf(CURRENT_STATE_HEADING);
    if (pending >= 0) body.splice(at, 0, ...launches);
    else body.splice(at >= 0 ? at : body.length, 0, PENDING_HEADING, ...launches);
  }
  const text = body.join('\n').trim();
  return text === '' ? '' : `\n${WORKING_STATE_HEADING}\n${text}`;
}

/** The working-state part of a replacement's text (up to the next top-level heading), if it has one. */
export function workingStateSection(content: string): string | undefined {
  const at = content.indexOf(`\n${WORKING_STATE_HEADING}\n`);
  if (at < 0) return undefined;
  const body = content.slice(at + WORKING_STATE_HEADING.length + 2);
  const next = body.search(/^# /m);
  return next < 0 ? body : body.slice(0, next);
}

/** An entry whose knowledge is already condensed: a summary, a digest, or any replacement with a working state. */
export function condensedTextOf(e: EffectiveEntry): string | undefined {
  if (isOriginal(e)) return undefined;
  if (e.stage === 'summary' || e.stage === 'digest') return e.message.content;
  return workingStateSection(e.message.content);
}

/** A split-turn note's step lines start under this heading, after its working state. */
export const STEPS_HEADING = '# In-turn steps (oldest first)';
const STEPS_AT = `\n${STEPS_HEADING}`;

/**
 * An entry cut short: a tool result truncated to its ends or deduplicated to a pointer (the names in a long listing,
 * a file's length, an error in its middle are in the original), or an entry the squeeze cut (keep-within-budget's
 * last resort): a note cut to a few steps, a marker cut to its first line, a tool body cut to its head. (A marker of
 * keep-within-budget's own turn cut carries its working state. A pruned result is read as its placeholder, which
 * states a failure's outcome with its exit status and test counts.)
 */
const cutShort = (e: EffectiveEntry): boolean =>
  ((e.stage === 'truncate' || e.stage === 'dedupe') && e.message.role === 'tool') ||
  (e.stage === 'keep-within-budget' &&
    (e.message.role === 'tool' ||
      e.message.content.includes(STEPS_AT) ||
      e.message.content.startsWith(SQUEEZED_MARKER) ||
      workingStateSection(e.message.content) === undefined));
/** A marker the squeeze cut to its first line (and a few lines of its working state): keep-within-budget's. */
export const SQUEEZED_MARKER = '[Context compacted]';

/**
 * View entries [i, j], each entry cut short given back as the original messages it stands for: a note, a marker or a
 * summary built over a cut entry could otherwise pass on only what the cut kept (a listing's first files, three
 * steps, a marker's first line), though the new one has room for more.
 */
export function unsqueezed(
  entries: readonly EffectiveEntry[],
  i: number,
  j: number,
  originals: readonly ChatMessage[],
): EffectiveEntry[] {
  const out: EffectiveEntry[] = [];
  for (let k = i; k <= j; k++) {
    const e = entries[k]!;
    if (!cutShort(e)) out.push(e);
    else for (let p = e.from; p <= e.to; p++) out.push({ message: originals[p]!, from: p, to: p, tokens: 0 });
  }
  return out;
}

/**
 * The working state of the view entries [i, j], at most `maxChars` characters (without its heading), or
 * undefined when there is nothing to tell or the budget is 0. With the session's `originals`, an entry the squeeze
 * cut is read as the messages it stands for (`unsqueezed`).
 */
export function workingStateOf(
  entries: readonly EffectiveEntry[],
  i: number,
  j: number,
  maxChars: number,
  originals?: readonly ChatMessage[],
): string | undefined {
  if (maxChars <= 0) return undefined;
  return workingStateOfSpan(
    originals ? unsqueezed(entries, i, j, originals) : entries.slice(i, j + 1),
    maxChars,
    originals,
  );
}

/**
 * `workingStateOf` of a span already read (`unsqueezed` when `originals` are given: a range edit's file is then looked
 * up in them).
 */
export function workingStateOfSpan(
  span: readonly EffectiveEntry[],
  maxChars: number,
  originals?: readonly ChatMessage[],
): string | undefined {
  if (maxChars <= 0) return undefined;
  const messages: ChatMessage[] = [];
  const previous: string[] = [];
  // The person's messages the condensed entries stand for: the task they carry cut short is read whole again.
  const recalled: ChatMessage[] = [];
  for (let k = 0; k < span.length; k++) {
    const e = span[k]!;
    if (isOriginal(e)) {
      if (e.message.role !== 'system') messages.push(e.message);
      continue;
    }
    const condensed = condensedTextOf(e);
    if (condensed && originals)
      for (let p = e.from; p <= e.to; p++) if (originals[p]?.role === 'user') recalled.push(originals[p]!);
    if (condensed) previous.push(condensed);
    else if (e.message.role !== 'system') messages.push(e.message);
    // A note that could not carry a working state still names its calls: read them back from its step lines.
    else messages.push(...messagesOfSteps(e.message.content, k));
  }
  if (messages.length === 0 && previous.length === 0) return undefined;
  const summary = summarizeDeterministic({
    messages,
    ...(previous.length ? { previousSummary: previous.join('\n\n') } : {}),
    maxChars,
    ...(originals && { openedBefore: openedBeforeIn(span, originals) }),
    ...(recalled.length > 0 && { recalled }),
  });
  const body = summary.text.split('\n').slice(1).join('\n').trim();
  return body === '' ? undefined : body;
}

/** The file open before an original message of the span, looked up in the session's messages before it. */
export function openedBeforeIn(
  span: readonly EffectiveEntry[],
  originals: readonly ChatMessage[],
): (m: ChatMessage) => string | undefined {
  let at: Map<ChatMessage, number> | undefined;
  return (m) => {
    at ??= new Map(span.filter(isOriginal).map((e) => [e.message, e.from]));
    const i = at.get(m);
    return i === undefined ? undefined : openedBefore(originals, i);
  };
}

/** The step lines of a note (`# In-turn steps …` then `- …` lines), as the calls and results they describe. */
function messagesOfSteps(content: string, at: number): ChatMessage[] {
  const heading = content.indexOf(STEPS_AT);
  if (heading < 0) return [];
  const out: ChatMessage[] = [];
  content
    .slice(heading + 1)
    .split('\n')
    .slice(1)
    .forEach((line, n) => {
      if (!line.startsWith('- ')) return;
      const intent = /^- (?:intent|said): (.*)$/.exec(line);
      if (intent) return void out.push({ role: 'assistant', content: intent[1]! });
      const step = callOfStepLine(line, `step-${at}-${n}`);
      if (!step) return;
      out.push({ role: 'assistant', content: '', toolCalls: [step.call] });
      if (step.result) out.push(step.result);
    });
  return out;
}

/** `header` and, when there is one, the working state of entries [i, j] under its heading. */
export function withWorkingState(
  header: string,
  entries: readonly EffectiveEntry[],
  i: number,
  j: number,
  maxChars: number,
  originals?: readonly ChatMessage[],
): string {
  const state = workingStateOf(entries, i, j, maxChars, originals);
  return state ? `${header}\n${WORKING_STATE_HEADING}\n${state}` : header;
}

/**
 * A block replacing view entries [i, j] with `bare` (a marker) followed by the working state of what it hides;
 * when that would not shrink the span, a smaller working state (SMALLER_STATES), then the marker and the state's most
 * telling lines with its launches (`compactState`), then the launches alone, else the bare marker alone.
 */
export function markerBlock(
  ctx: StageContext,
  stage: 'sliding-window' | 'keep-within-budget' | 'emergency',
  i: number,
  j: number,
  bare: ChatMessage,
): CompactionBlock | null {
  const { entries } = ctx;
  const edit = { from: entries[i]!.from, to: entries[j]!.to };
  const rich: ChatMessage = {
    role: 'system',
    content: withWorkingState(bare.content, entries, i, j, workingStateChars(ctx), ctx.originals),
  };
  const withRich = makeBlock(ctx, stage, [{ ...edit, replacement: [rich] }]);
  if (withRich) return withRich;
  const full = workingStateChars(ctx);
  for (const share of SMALLER_STATES) {
    if (full * share < MIN_STATE_CHARS) break;
    const smaller = withWorkingState(bare.content, entries, i, j, Math.floor(full * share), ctx.originals);
    const block = makeBlock(ctx, stage, [{ ...edit, replacement: [{ role: 'system', content: smaller }] }]);
    if (block) return block;
  }
  // Its most telling lines (the task, the newest request, the changes, the newest unresolved error) and its launches:
  // a span already condensed (earlier markers and notes) is small, and a bare marker over it loses what they held.
  // (Shorter ones too: a condensed span may be smaller than the whole compact state.)
  const compact = COMPACT_SHARES.map((share) => compactState(rich.content, Math.floor(COMPACT_STATE_CHARS * share)));
  const launches = launchesKept(rich.content);
  for (const kept of new Set([...compact, launches]))
    if (kept !== '') {
      const block = makeBlock(ctx, stage, [{ ...edit, replacement: [{ ...bare, content: `${bare.content}${kept}` }] }]);
      if (block) return block;
    }
  return makeBlock(ctx, stage, [{ ...edit, replacement: [bare] }]);
}

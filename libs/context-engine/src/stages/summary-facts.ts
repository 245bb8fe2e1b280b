import type { ChatMessage } from '../model/message';
import { isOriginal, type EffectiveEntry } from '../overlay';
import { launchOfLine } from '../summarizer/background';
import { COMMAND_LINE } from '../summarizer/deterministic-summarizer';
import { ERROR_ITEM } from '../summarizer/errors-seen';
import { callOfStepLine } from '../summarizer/call-outcome';
import { parseArguments } from '../summarizer/tool-activity';
import { STEPS_HEADING, workingStateOf } from './working-state';

/**
 * What a model summary must not lose (DESIGN invariant 8: a model summary never knows less than the deterministic
 * digest of the same range). The working state the engine computes for a range lists the user's requests, the
 * files touched, code symbols, the commands with their outcomes, the errors and whether they were resolved,
 * decisions, the pending work and the current state. Every item of those sections the model's text does not
 * carry is appended to it under `KEPT_HEADING`, item for item as the working state words it.
 */
export const KEPT_HEADING = '# Kept from the messages (not in the summary above)';

/** Sections whose items the model's text must carry (decisions are its own to reword: they are not checked). */
const FACT_SECTIONS = new Set([
  '## User requests',
  '## Files touched',
  '## Code symbols',
  '## Commands run',
  '## Errors seen',
  '## Pending work',
  '## Current state',
]);

/** The prose sections: a request or a plan is carried when most of its words are in the summary. */
const PROSE_SECTIONS = new Set(['## User requests', '## Pending work', '## Current state']);

/** Share of a prose item's content words the summary must contain for the item to count as carried. */
const PROSE_COVERAGE = 0.6;

const words = (text: string): string[] =>
  (text.toLowerCase().match(/[\p{L}\p{N}_./-]{4,}/gu) ?? []).map((w) => w.replace(/[./-]+$/, ''));

/** Whether most content words of a request or plan are in the summary (a model may reword the rest). */
function proseCarried(item: string, summaryWords: ReadonlySet<string>): boolean {
  const ws = [...new Set(words(item))].filter((w) => w.length >= 4);
  if (ws.length === 0) return true;
  const found = ws.filter((w) => summaryWords.has(w)).length;
  return found / ws.length >= PROSE_COVERAGE;
}

/**
 * What a list item names and the outcome it states: a command and its last outcome, an error's target and its
 * status (fixed / unresolved; a superseded one, its target only: a model words how a later error replaced it), a
 * file's path, a symbol. Every part must be in the summary.
 */
export function factParts(item: string): (string | RegExp)[] {
  // Work left running: its ids (a model may word the rest).
  const launch = launchOfLine(item);
  if (launch) return launch.handles.map((h) => h.value.replace(/^…\//, ''));
  const command = COMMAND_LINE.exec(item);
  if (command) return [command[1]!, ...(command[4] ? [outcomeKey(command[4])] : [])];
  const error = ERROR_ITEM.exec(item);
  if (error) {
    const target = error[1]!.replace(/^\S+\s+/, '');
    return error[4] === 'superseded' ? [target] : [target, error[4] === 'unresolved' ? 'unresolved' : 'fixed'];
  }
  return [item.replace(/ \([^()]*\)$/, '')];
}

/**
 * The telling part of a command's outcome: its exit status, said as one (`exit 1`, `exit code 1`, `exited with status
 * 1`, `returned 1`: a bare digit anywhere in a summary tells nothing), or its first words (a model may word the rest).
 */
function outcomeKey(outcome: string): string | RegExp {
  const exit = /exit(?: code)? (\d+)/i.exec(outcome);
  if (exit) return new RegExp(`\\b(?:exit(?:ed)?|code|status|returned)\\b\\D{0,16}\\b${exit[1]!}\\b`, 'i');
  return outcome
    .split(/[;:,(]/)[0]!
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .join(' ');
}

/** Whether the summary names a part (case-insensitively; parts under 3 characters are not checked). */
const names = (summaryLower: string, part: string | RegExp): boolean =>
  typeof part !== 'string'
    ? part.test(summaryLower)
    : part.length < 3
      ? !/^\d+$/.test(part) || summaryLower.includes(part)
      : summaryLower.includes(part.toLowerCase());

/**
 * The working-state items of view entries [i, j] that `summary` does not carry, under their section headings, or
 * undefined when it carries them all (or there is no working state).
 */
export function factsMissingFrom(
  summary: string,
  entries: readonly EffectiveEntry[],
  i: number,
  j: number,
  maxChars: number,
  originals?: readonly ChatMessage[],
): string | undefined {
  const state = workingStateOf(entries, i, j, maxChars, originals) ?? '';
  const facts = withStepFacts(state, entries.slice(i, j + 1));
  return facts.trim() === '' ? undefined : missingItems(summary, facts);
}

/**
 * A working state with the files and commands the step lines of the notes among `span` name that it does not list
 * (its bound left them out): a model summary superseding a note knows no less than the note's text.
 */
function withStepFacts(state: string, span: readonly EffectiveEntry[]): string {
  const lines = state === '' ? [] : state.split('\n');
  const files = new Set<string>();
  const commands = new Map<string, string>();
  for (const e of span) {
    const at = isOriginal(e) ? -1 : e.message.content.indexOf(`\n${STEPS_HEADING}\n`);
    if (at < 0) continue;
    e.message.content
      .slice(at)
      .split('\n')
      .forEach((line, n) => {
        const step = callOfStepLine(line, `fact-${n}`);
        if (!step) return;
        const args = parseArguments(step.call.arguments) ?? {};
        const outcome = line.slice(line.lastIndexOf(' → ') + 3).replace(/ \(×\d+\)$/, '');
        if (typeof args.command === 'string') commands.set(args.command, `- \`${args.command}\` → ${outcome}`);
        else if (typeof args.path === 'string') files.add(args.path);
      });
  }
  /** Whether the section lists `name` as an item (alone, or followed by its actions or outcome). */
  const has = (section: string, name: string): boolean => {
    let current = '';
    return lines.some((l) => {
      if (l.startsWith('## ')) current = l;
      return current === section && (l === `- ${name}` || l.startsWith(`- ${name} `));
    });
  };
  const missingFiles = [...files].filter((f) => !has('## Files touched', f)).map((f) => `- ${f}`);
  const missingCommands = [...commands].filter(([c]) => !has('## Commands run', `\`${c}\``)).map(([, item]) => item);
  return withItems(withItems(lines, '## Files touched', missingFiles), '## Commands run', missingCommands).join('\n');
}

/** `lines` with `items` at the end of the section under `heading` (a section of its own at the end if none). */
function withItems(lines: readonly string[], heading: string, items: readonly string[]): string[] {
  if (items.length === 0) return [...lines];
  const start = lines.indexOf(heading);
  if (start < 0) return [...lines, heading, ...items];
  let end = start + 1;
  while (end < lines.length && !lines[end]!.startsWith('## ')) end++;
  return [...lines.slice(0, end), ...items, ...lines.slice(end)];
}

/** The items of a working state (its text, sections `## …` of `- ` items) that `summary` does not carry. */
export function missingItems(summary: string, state: string): string | undefined {
  const lower = summary.toLowerCase();
  const summaryWords = new Set(words(summary));
  const out: string[] = [];
  let section = '';
  let heading: string | undefined;
  const keep = (line: string) => {
    if (heading) out.push(heading);
    heading = undefined;
    out.push(line);
  };
  for (const line of state.split('\n')) {
    if (line.startsWith('## ')) {
      section = line;
      heading = line;
      continue;
    }
    if (!FACT_SECTIONS.has(section) || line.trim() === '' || /^- \(\+\d+ more omitted\)$/.test(line)) continue;
    // The current state is one paragraph; every other section is a list.
    const item = line.startsWith('- ') ? line.slice(2) : section === '## Current state' ? line : undefined;
    if (item === undefined) continue;
    const carried =
      PROSE_SECTIONS.has(section) && !launchOfLine(item)
        ? proseCarried(item, summaryWords)
        : factParts(item).every((p) => names(lower, p));
    if (!carried) keep(line);
  }
  return out.length ? out.join('\n') : undefined;
}

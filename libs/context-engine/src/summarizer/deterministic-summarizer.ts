import type { ChatMessage, ToolCall } from '../model/message';
import { resolveToolResultCallIds } from '../repair';
import {
  backgroundLine,
  compactBackgroundLine,
  finishedInLaterNotes,
  isBackgroundLine,
  isSubAgentTool,
  launchLabel,
  launchOfLine,
  type Launch,
  openLaunchesOf,
  sharedLabelStart,
} from './background';
import {
  callOutcome,
  clipError,
  describeArguments,
  errorLineOf,
  outcomeTextOk,
  shortenPath,
  tellingErrorLine,
  withoutSite,
} from './call-outcome';
import { personsReply, type PersonsReply, unwrappedResult } from './harness-frame';
import {
  filesInListing,
  filesMissing,
  filesNamedIn,
  filesOfFailure,
  listsFiles,
  declaredNames,
  namesChangedBy,
  namesOfCall,
  symbolName,
} from './names';
import { isPlanLine, latestPlanOf, planLines, planOfCall, type PlanItem } from './plan';
import { ErrorsSeen, formatError } from './errors-seen';
import { isPartialResult } from './pruned-result';
import { closingQuestionsOf, decisionsOf, proseOf, todoLinesOf } from './prose';
import { listItemText, oneLine, taggedText } from './text';
import { webLookupLabel } from './web-lookup';
import {
  activitiesOf,
  changesAllOrNothing,
  changesFile,
  filesOfEditBlocks,
  isChange,
  looksAround,
  outputMayBePartial,
  parseArguments,
  type ToolActivity,
} from './tool-activity';

/**
 * The offline summarizer: a structured, bounded, deterministic digest of a span of conversation, built
 * from the messages alone (no LLM). The LLM summarizer's prompt asks for the same sections, so either
 * summary can be merged into the next one.
 */
export const SUMMARY_SECTIONS = [
  'User requests',
  'Files touched',
  'Code symbols',
  'Commands run',
  'Errors seen',
  'Decisions',
  'Pending work',
  'Current state',
] as const;
export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

export const SUMMARY_TITLE = '# Summary of the earlier conversation';

export interface SummarySections {
  /** User messages, oldest first, each trimmed to one bounded line. */
  readonly userRequests: readonly string[];
  /** `path (edit×2, read)`: files named by tool-call arguments or shell commands. */
  readonly filesTouched: readonly string[];
  /** Functions, classes and other identifiers the span searched for, defined, changed or named in its prose. */
  readonly codeSymbols: readonly string[];
  /** `` `command` ×N ``, oldest first. */
  readonly commandsRun: readonly string[];
  /** `tool target — first error line [fixed later|superseded|unresolved]`. */
  readonly errorsSeen: readonly string[];
  readonly decisions: readonly string[];
  readonly pendingWork: readonly string[];
  readonly currentState: string;
}

export interface SummarizeInput {
  readonly messages: readonly ChatMessage[];
  /** A summary this one absorbs: its sections are merged (ours or an LLM's with the same headings). */
  readonly previousSummary?: string;
  /** Default: min(8000, 40% of the input's chars). */
  readonly maxChars?: number;
  /**
   * The file SWE-agent's editor had open before one of `messages`, from the session's earlier messages: a range
   * edit (`edit 5:5`) before any `open` of the messages then names the file it changed.
   */
  readonly openedBefore?: (m: ChatMessage) => string | undefined;
  /**
   * The person's messages the previous summary stands for (the session's originals): the task it carries cut short
   * (`Add rate limiting to the signu…`, cut to fit a small note) is read whole from its message again, so it is not
   * cut shorter at each compaction that merges the one before.
   */
  readonly recalled?: readonly ChatMessage[];
}

export interface DeterministicSummary {
  readonly text: string;
  readonly sections: SummarySections;
  /** Items left out per section to stay within `maxChars` (earlier summaries' omissions included). */
  readonly omitted: Readonly<Record<keyof SummarySections, number>>;
  /** Chars of what the summary replaces: message contents, tool-call names and arguments, the previous summary. */
  readonly inputChars: number;
  readonly maxChars: number;
  /** The summary is not smaller than what it replaces: the caller should not use it. */
  readonly notSmaller: boolean;
}

export const DEFAULT_MAX_SUMMARY_CHARS = 16000;
export const DEFAULT_SUMMARY_RATIO = 0.4;

const LIMITS = {
  request: 300,
  /** A request kept longer with the room the note has left (the end of `summarizeDeterministic`). */
  requestWhole: 1_500,
  decision: 200,
  command: 160,
  /** The opening of a sub-agent's report, in its call's line of Commands run. */
  report: 200,
  earlierOutcome: 80,
  errorLine: 160,
  pending: 200,
  pendingItems: 12,
  state: 1500,
};

type ListKey = Exclude<keyof SummarySections, 'currentState'>;
const KEYS: readonly (keyof SummarySections)[] = [
  'userRequests',
  'filesTouched',
  'codeSymbols',
  'commandsRun',
  'errorsSeen',
  'decisions',
  'pendingWork',
  'currentState',
];
/** Share of the budget each section may claim when all are over their need (unused shares flow to the others). */
const SHARES: Readonly<Record<keyof SummarySections, number>> = {
  userRequests: 0.24,
  filesTouched: 0.16,
  codeSymbols: 0.08,
  commandsRun: 0.1,
  errorsSeen: 0.14,
  decisions: 0.06,
  pendingWork: 0.08,
  currentState: 0.14,
};

// ---------------------------------------------------------------------------------------------------
// Text helpers

/** A request line cut short (`… `, or `…` at its end): its words up to the first cut. */
const CUT_HEAD = /^(.*?)\s*…/;
/** Fewer characters than this before its cut are too few to tell which message a request line was. */
const MIN_RECALL_HEAD = 16;

/**
 * The task (the previous summary's first request) when it carries it cut short, read whole again from the person's
 * message it starts: cut to fit one small note, it would otherwise stay cut in every later one.
 */
function recallTask(model: Model, recalled: readonly ChatMessage[]): void {
  const k = model.requests.findIndex((r) => r.rank < 0);
  const task = model.requests[k];
  const head = task && CUT_HEAD.exec(task.text)?.[1];
  if (head === undefined || head.length < MIN_RECALL_HEAD) return;
  // (Two messages that start alike: which one it was is not known.)
  const sources = recalled.filter(
    (m) => m.role === 'user' && !toHarness(m.content) && flatWords(m.content).startsWith(head),
  );
  if (sources.length !== 1) return;
  model.requests[k] = { ...task!, text: requestLine(sources[0]!.content, LIMITS.request) };
}

/** What a person wrote (`personsWords`) on one line. */
const flatWords = (content: string): string => personsWords(content).replace(/\s+/g, ' ').trim();

/**
 * What a person asked, in at most `max` characters: without the reminders a harness puts into their message
 * (`<system-reminder>…</system-reminder>`: Claude Code, OpenCode), and, when longer, its start and its end — a
 * request often ends with the question after pasted context or a harness's preamble (`[analyze-mode] ANALYSIS MODE…`
 * before the person's own words).
 */
function requestLine(content: string, max: number): string {
  const flat = flatWords(content);
  if (flat.length <= max) return flat;
  const tail = Math.floor(max * 0.4);
  const head = flat.slice(0, max - tail - 3).replace(/\s+\S*$/, '');
  const end = flat.slice(flat.length - tail).replace(/^\S*\s+/, '');
  return `${head} … ${end}`;
}

/**
 * A harness's tag around what the person typed, among its own context: Cursor's `<user_query>`, Cline's and Roo
 * Code's `<task>` (the first message), `<feedback>`, `<answer>` and `<user_message>`.
 */
const PERSONS_WORDS = /<(user_query|user_request|task|feedback|answer|user_message)>([\s\S]*?)<\/\1>/g;
/** The context a harness appends to each message the person sends (Cline's and Roo Code's `<environment_details>`). */
const HARNESS_CONTEXT = /<environment_details>[\s\S]*?(?:<\/environment_details>|$)/g;

/**
 * What a person wrote in a user message: without the reminders and the context a harness puts into it (Claude
 * Code's, OpenCode's, Cline's), and only the words a harness tagged as theirs when it did (`<user_info>…<user_query>fix
 * it</user_query>`, `<task>…</task>`).
 */
function personsWords(text: string): string {
  const own = withoutReminders(text).replace(HARNESS_CONTEXT, ' ');
  const tagged = [...own.matchAll(PERSONS_WORDS)].map((m) => m[2]!.trim()).filter((t) => t !== '');
  return tagged.length > 0 ? tagged.join('\n') : own;
}

/** A message without the reminders a harness puts into a person's message (Claude Code's, OpenCode's). */
function withoutReminders(text: string): string {
  const [open, close] = ['<system-reminder>', '</system-reminder>'];
  if (!text.includes(open)) return text;
  let out = '';
  let at = 0;
  for (let from = text.indexOf(open); from >= 0; from = text.indexOf(open, at)) {
    const to = text.indexOf(close, from);
    if (to < 0) break;
    out += `${text.slice(at, from)} `;
    at = to + close.length;
  }
  return out + text.slice(at);
}

export function messageChars(m: ChatMessage): number {
  let n = m.content.length;
  for (const c of m.toolCalls ?? []) n += c.name.length + c.arguments.length;
  return n;
}

// ---------------------------------------------------------------------------------------------------
// The model a summary is built from (and a previous summary is parsed back into)

interface Ranked {
  readonly text: string;
  /** Recency: message index × 1000 + position; items of a previous summary are negative (older). */
  readonly rank: number;
  /** The item at up to `max` characters, longer than `text` (a person's request read from its message). */
  readonly longer?: (max: number) => string;
  /** Where it is listed, when not by its rank (a plan's lines: kept first, listed in the plan's order). */
  readonly order?: number;
}
interface FileEntry {
  readonly path: string;
  readonly counts: Map<string, number>;
  rank: number;
  /** Its latest change (`write`, `edit`, `delete`): whether a deleted file was made again after. */
  lastChange?: string;
  /** What its changes wrote there, by name (`namesChangedBy`), the latest last, at most CHANGED_NAMES. */
  changed?: string[];
}
interface CommandEntry {
  readonly command: string;
  count: number;
  rank: number;
  /** How its latest run ended (`ok`, `exit 1: …`, `tests 2 failed, 10 passed`). */
  last?: string;
  /** Its latest successful outcome, and the one before it that read otherwise (a failure is in Errors seen). */
  lastOk?: string;
  okBefore?: string;
}
interface SymbolEntry {
  /** As first written, `name` or `name()`. */
  readonly text: string;
  count: number;
  rank: number;
}
interface Model {
  readonly requests: Ranked[];
  readonly files: Map<string, FileEntry>;
  /** By name (without a call's parentheses). */
  readonly symbols: Map<string, SymbolEntry>;
  readonly commands: Map<string, CommandEntry>;
  readonly errors: ErrorsSeen;
  readonly decisions: Ranked[];
  readonly pending: Ranked[];
  state: string;
  readonly carriedOmitted: Record<keyof SummarySections, number>;
  /** The span's tool names and the programs its commands ran: the agent's tools, not the code's symbols. */
  readonly toolWords: Set<string>;
  /** Relative paths of calls whose results name them absolutely (`[File: /repo/src/a.py (40 lines total)]`). */
  readonly absoluteOf: Map<string, string>;
}

const emptyOmitted = (): Record<keyof SummarySections, number> => ({
  userRequests: 0,
  filesTouched: 0,
  codeSymbols: 0,
  commandsRun: 0,
  errorsSeen: 0,
  decisions: 0,
  pendingWork: 0,
  currentState: 0,
});

const SECTION_KEY: Readonly<Record<string, keyof SummarySections>> = Object.fromEntries(
  SUMMARY_SECTIONS.map((name, i) => [name.toLowerCase(), KEYS[i]]),
);
const HEADING = /^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*([A-Za-z ]+?)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$/;
const OMITTED_LINE = /^\(\+(\d+) more omitted\)$/;
const FILE_LINE = /^(.*?) \(((?:[^()]|\(\))*)\)$/;
/** Between a file's actions and the names its changes wrote: `src/a.ts (edit×2; changed parse, Lexer)`. */
const CHANGED_LEAD = '; changed ';
/**
 * A Commands run line: `` `cmd` ×N → earlier: …; last: … `` (command, count, latest outcome, the differing one before);
 * the command ends at the first backtick the rest can follow (an outcome may quote code: `` cannot find value `x` ``).
 */
export const COMMAND_LINE = /^`(.+?)`(?: ×(\d+))?(?: → (?:earlier: (.*?); last: |last: )?(.*))?$/;
/** Files only seen (named in a listing, an output, a report): listed unless the span did something with them. */
function seeFiles(model: Model, paths: Iterable<string>, rank: number): void {
  for (const path of paths) if (!model.files.has(path)) touchFile(model, path, SEEN, rank);
}

function touchFile(model: Model, path: string, action: string, rank: number, times = 1): void {
  const entry = model.files.get(path) ?? { path, counts: new Map<string, number>(), rank };
  entry.counts.set(action, (entry.counts.get(action) ?? 0) + times);
  entry.rank = Math.max(entry.rank, rank);
  if (isChange(action)) entry.lastChange = action;
  model.files.set(path, entry);
}

function addCommand(model: Model, command: string, rank: number, times = 1, last?: string, earlier?: string): void {
  const entry = model.commands.get(command) ?? { command, count: 0, rank };
  entry.count += times;
  entry.rank = Math.max(entry.rank, rank);
  if (earlier !== undefined) ranAgain(entry, earlier);
  if (last !== undefined) ranAgain(entry, last);
  model.commands.set(command, entry);
}

/** A run's outcome: the latest; of successes, also the one before that read otherwise. */
function ranAgain(entry: CommandEntry, outcome: string, ok = outcomeTextOk(outcome)): void {
  entry.last = outcome;
  if (!ok) return;
  if (entry.lastOk !== undefined && entry.lastOk !== outcome) entry.okBefore = entry.lastOk;
  entry.lastOk = outcome;
}

/**
 * What a command's run before its latest showed, when it read otherwise and succeeded: a reproduction's output before
 * the fix (`ok: 344`, then `ok: 345`), a script's output before it failed. (Failed runs are in Errors seen.)
 */
function earlierOutcome(c: CommandEntry): string | undefined {
  if (c.last !== c.lastOk) return c.lastOk;
  // A bare `ok` before an `ok: 345` tells nothing the latest does not.
  return c.okBefore === 'ok' && c.last?.startsWith('ok') ? undefined : c.okBefore;
}

function addSymbol(model: Model, raw: string, rank: number, requireCodeLike = false): void {
  const symbol = symbolName(raw, requireCodeLike);
  if (!symbol) return;
  const { name, text } = symbol;
  const entry = model.symbols.get(name);
  if (entry) {
    entry.count++;
    entry.rank = Math.max(entry.rank, rank);
    if (text.endsWith('()') && !entry.text.endsWith('()')) model.symbols.set(name, { ...entry, text });
  } else model.symbols.set(name, { text, count: 1, rank });
}

/** One mention of a symbol taken back (`addSymbol`'s); gone when it was the only one. */
function dropSymbol(model: Model, raw: string): void {
  const name = symbolName(raw)?.name;
  const entry = name === undefined ? undefined : model.symbols.get(name);
  if (!entry) return;
  if (entry.count > 1) entry.count--;
  else model.symbols.delete(name!);
}

/** The action of a file only seen in a listing or a search result (ls, find, grep -l, a glob tool). */
const SEEN = 'seen';
/** The action of a file a failed call said is not there (`No such file or directory`), and nothing else did. */
const NOT_FOUND = 'not found';
/** Only seen, or only said not to be there: listed after the files read and changed. */
const onlyNamed = (f: FileEntry): boolean => [...f.counts.keys()].every((a) => a === SEEN || a === NOT_FOUND);

/** Parses a summary with our headings back into the model; returns false when none of our headings is in it. */
function absorbPrevious(model: Model, text: string): boolean {
  const items = new Map<keyof SummarySections, string[]>();
  let current: keyof SummarySections | undefined;
  let recognized = false;
  for (const raw of text.split('\n')) {
    const heading = HEADING.exec(raw);
    const key = heading ? SECTION_KEY[heading[1].toLowerCase()] : undefined;
    if (key) {
      current = key;
      recognized = true;
      if (!items.has(key)) items.set(key, []);
      continue;
    }
    if (!current || raw.trim() === '') continue;
    const list = items.get(current) ?? [];
    if (current === 'currentState') list.push(raw.trim());
    else if (/^\s*(?:[-*•]|\d+[.)])\s+/.test(raw)) list.push(raw.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim());
    else if (list.length > 0) list[list.length - 1] += ` ${raw.trim()}`;
    else list.push(raw.trim());
    items.set(current, list);
  }
  if (!recognized && !text.trimStart().startsWith(SUMMARY_TITLE)) return false;

  const base = -1_000_000_000;
  for (const key of KEYS) {
    const list = items.get(key) ?? [];
    list.forEach((item, j) => {
      const rank = base + j;
      const omitted = OMITTED_LINE.exec(item);
      if (omitted) {
        model.carriedOmitted[key] += Number(omitted[1]);
        return;
      }
      switch (key) {
        case 'userRequests':
          model.requests.push({ text: oneLine(item, LIMITS.request), rank });
          return;
        case 'decisions':
          model.decisions.push({ text: oneLine(item, LIMITS.decision), rank });
          return;
        case 'pendingWork':
          model.pending.push({ text: oneLine(item, LIMITS.pending), rank });
          return;
        case 'codeSymbols':
          addSymbol(model, item, rank);
          return;
        case 'filesTouched': {
          // Listed most important first: keep that order among equals by ranking earlier lines higher.
          const fileRank = base - j;
          const m = FILE_LINE.exec(item);
          if (!m) return touchFile(model, item, 'touched', fileRank);
          const [actions, changed] = m[2].split(CHANGED_LEAD);
          for (const part of actions!.split(',')) {
            const a = /^\s*(.+?)(?:×(\d+))?\s*$/.exec(part);
            if (a) touchFile(model, m[1], a[1], fileRank, Number(a[2] ?? 1));
          }
          const entry = model.files.get(m[1]);
          if (entry && changed)
            noteChanged(
              entry,
              changed.split(', ').map((n) => n.replace(/\(\)$/, '')),
            );
          return;
        }
        case 'commandsRun': {
          const m = COMMAND_LINE.exec(item);
          if (m) addCommand(model, m[1], rank, Number(m[2] ?? 1), m[4], m[3]);
          else addCommand(model, oneLine(item, LIMITS.command), rank);
          return;
        }
        case 'errorsSeen':
          model.errors.readBack(item, rank);
          return;
        case 'currentState':
          return;
        default:
          return assertNever(key);
      }
    });
  }
  model.state = oneLine((items.get('currentState') ?? []).join(' '), LIMITS.state);
  return true;
}

function absorbMessages(
  model: Model,
  messages: readonly ChatMessage[],
  plan: readonly PlanItem[] | undefined,
  launched: readonly Launch[],
  activities: ReadonlyMap<ToolCall, ToolActivity>,
): void {
  const resolved = resolveToolResultCallIds(messages);
  // Each call with its line of Commands run (a shell command, or an action elsewhere), read once.
  const calls = new Map<
    string,
    { call: ToolCall; activity: ToolActivity; index: number; rank: number; listed?: string }
  >();
  const answered = new Set<string>();
  let lastUser = -1;
  let lastAssistantText = -1;

  messages.forEach((m, i) => {
    const rank = i * 1000;
    if (m.role === 'user' && m.content.trim() !== '') {
      const harness = toHarness(m.content);
      // Claude Code's continuation is read for what it says of the work, not its boilerplate opening and close; the
      // files it lists are files of the session.
      const parts = CONTINUATION.test(m.content) ? continuationParts(m.content) : undefined;
      if (parts) seeFiles(model, parts.get('files') ?? [], rank - 1);
      // Claude Code's record of a command the person ran at its prompt: `/model opus`, `! git status`; its notice
      // and a slash command's own output say nothing of the work.
      const local = parts ? undefined : localCommandLine(m.content);
      if (local === null) return;
      const line = (max: number) =>
        parts
          ? continuationLine(parts, m.content, max)
          : local !== undefined
            ? oneLine(local, max)
            : requestLine(m.content, max);
      model.requests.push({
        text: line(LIMITS.request),
        rank,
        // (The room left goes to what a person asked, not to a harness's setup: Codex's AGENTS.md, its environment.)
        ...((!harness || parts) && { longer: (max: number) => line(Math.min(max, LIMITS.requestWhole)) }),
      });
      // What the harness wrote awaits no answer of its own (a setup message, a notification).
      if (!harness) lastUser = i;
    } else if (m.role === 'assistant') {
      if (m.content.trim() !== '') {
        lastAssistantText = i;
        decisionsOf(m.content, LIMITS.decision).forEach((d, j) => model.decisions.push({ text: d, rank: rank + j }));
        for (const x of m.content.matchAll(/`([^`\n]{3,80})`/g)) addSymbol(model, x[1]!, rank, true);
        // An agent without file tools edits in its text (SEARCH/REPLACE blocks, patches).
        for (const f of filesOfEditBlocks(m.content)) touchFile(model, f.path, f.action, rank);
      }
      for (const call of m.toolCalls ?? []) {
        const activity = activities.get(call)!;
        model.toolWords.add(call.name);
        const program = activity.command?.match(/^\S+/)?.[0];
        if (program) model.toolWords.add(program);
        for (const name of namesOfCall(call, activity)) addSymbol(model, name, rank);
        const listed = activity.command !== undefined ? commandOf(activity) : otherActionOf(call, activity);
        calls.set(call.id, { call, activity, index: i, rank, ...(listed !== undefined && { listed }) });
        // A change is recorded with its result (a failed one did not happen); a read at once.
        for (const f of activity.files) if (!changesFile(f.action)) touchFile(model, f.path, f.action, rank);
        if (listed !== undefined) addCommand(model, listed, rank);
      }
    } else if (m.role === 'tool') {
      const id = m.toolCallId || resolved[i];
      if (id === undefined) return;
      const first = !answered.has(id);
      answered.add(id);
      const call = calls.get(id);
      // What the tool returned, out of a harness's wrapping (Codex's JSON, Claude Code's error tags).
      const { content } = unwrappedResult(m);
      const errorLine = errorLineOf(m, call?.activity);
      const outcome =
        call && (call.listed !== undefined || call.activity.webLookup)
          ? callOutcome(call.activity, m, errorLine)
          : undefined;
      // A failed test run whose output has no error line (only its counts tell) failed all the same.
      const line = errorLine ?? (outcome && !outcome.ok ? outcome.text : undefined);
      if (call && first) touchChanges(model, call, line !== undefined && changesAllOrNothing(call.activity), content);
      if (call && first && line !== undefined) failReads(model, call.activity, content);
      if (call && line === undefined && listsFiles(call.call.name, call.activity.command, content)) {
        seeFiles(model, filesInListing(content), rank - 1);
      } else if ((call && !call.activity.files.every((f) => f.action === 'read')) || line !== undefined) {
        // Files an output names (a stack trace, a failing test, a build error, git status): seen too; of a failed
        // output, those its failure lines name.
        const named = line !== undefined ? filesOfFailure(content) : filesNamedIn(content);
        // (Not one it says is not there: `grep: src/editor.ts: No such file or directory` lists it as not found.)
        const missing = line !== undefined ? filesMissing(content) : [];
        seeFiles(
          model,
          named.filter((path) => !missing.includes(path)),
          rank - 1,
        );
        for (const path of missing) if (!model.files.has(path)) touchFile(model, path, NOT_FOUND, rank - 1);
      }
      if (call) recordAbsolutePaths(model, call.activity, content);
      // What the person said in it (an answer to the agent's question, feedback, why they refused the call).
      const said = personsReply(content);
      if (said !== undefined) {
        const line = replyLine(said, call);
        model.requests.push({
          text: oneLine(line, LIMITS.request),
          rank,
          longer: (max: number) => oneLine(line, Math.min(max, LIMITS.requestWhole)),
        });
      }
      // A question answered is that request line, question and answer: not a command run besides.
      if ((said?.kind === 'answer' || said?.kind === 'answers') && call?.listed !== undefined)
        model.commands.delete(call.listed);
      // A sub-agent's report is the agent's own findings, delegated: read as its text is (and the files it names).
      if (call && line === undefined && isSubAgentReport(call.call.name, call.activity))
        absorbReport(model, launchLabel(call.call, call.activity), content, rank);
      // A web lookup: what it asked and what it found (its first link, or its first line).
      else if (call?.activity.webLookup && outcome) addCommand(model, webLookupLabel(call.call), rank, 1, outcome.text);
      if (call?.listed !== undefined && outcome) {
        const entry = model.commands.get(call.listed);
        if (entry) ranAgain(entry, outcome.text, outcome.ok);
      }
      // Targets are read only when there is an error to record or to resolve.
      const targetsOf = () => call?.activity.targets ?? [`call:${m.toolName ?? 'tool'}\u0000${id}`];
      if (line !== undefined) {
        const label = call?.activity.label ?? m.toolName ?? 'tool';
        const text = clipError(errorLine === undefined ? line : tellingErrorLine(m, errorLine), LIMITS.errorLine);
        const partial = isPartialResult(content) || outputMayBePartial(call?.activity.command ?? '', content);
        model.errors.failed(label, text, targetsOf(), rank, content, partial);
      } else if (!model.errors.isEmpty) model.errors.succeeded(targetsOf());
    }
  });

  // Pending: what the span left running and did not collect (kept before anything else: its ids are nowhere else),
  // the plan the agent last wrote (in its order), calls never answered in this span, then to-do lines of the last
  // user and assistant texts.
  let p = 0;
  const pendingRank = messages.length * 1000;
  launched.forEach((launch, k) =>
    model.pending.push({
      text: backgroundLine(launch),
      rank: BACKGROUND_RANK + 1000 + k,
      order: pendingRank - 499 + k,
    }),
  );
  planLines(plan ?? []).forEach((text, k) =>
    model.pending.push({
      text: oneLine(text, LIMITS.pending),
      rank: pendingRank + 999 - k,
      order: pendingRank - 999 + k,
    }),
  );
  for (const [id, call] of calls) {
    if (answered.has(id)) continue;
    touchChanges(model, call, false); // not refused (yet): recorded as made
    // A question put to the person and not answered yet: the conversation waits on them.
    const question = questionOf(call.call);
    model.pending.push({
      text: oneLine(
        question ? `Awaiting the user: ${question}` : `${call.activity.label} — no result yet`,
        LIMITS.pending,
      ),
      rank: pendingRank + p++,
    });
  }
  // What the unanswered request already shows (a to-do line within it is not listed again).
  let unanswered = '';
  if (lastUser > lastAssistantText && lastUser >= 0) {
    const text = `Unanswered: ${requestLine(messages[lastUser].content, LIMITS.pending - 12)}`;
    model.pending.push({ text, rank: pendingRank + p++ });
    unanswered = text.replace(/…$/, '');
  }
  const todo = [lastUser, lastAssistantText]
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)
    .flatMap((i) => todoLinesOf(proseOf(messages[i].content)));
  if (lastAssistantText > lastUser) {
    todo.push(...closingQuestionsOf(messages[lastAssistantText].content).map((q) => `Awaiting the user: ${q}`));
  }
  const todoLines = [...new Set(todo.map((t) => oneLine(t, LIMITS.pending)))].filter((t) => !unanswered.includes(t));
  for (const t of todoLines.slice(0, LIMITS.pendingItems)) {
    model.pending.push({ text: t, rank: pendingRank + p++ });
  }
  if (lastAssistantText >= 0) model.state = oneLine(messages[lastAssistantText].content, LIMITS.state);
}

/**
 * A shell command as Commands run lists it: with the file it changed when it does not name it (SWE-agent's `edit 5:5`
 * edits the file opened last: `` `edit 5:5 on src/a.py` ``, one line per file).
 */
const commandOf = (activity: ToolActivity): string =>
  activity.changesUnnamed === undefined
    ? activity.command!
    : `${activity.command!} on ${shortenPath(activity.changesUnnamed)}`;

/**
 * A harness's own calls that do nothing of the work (collecting a background shell's output, leaving plan mode, a
 * skill or slash command, thinking) and the calls that only look around (searches, listings): none is an action.
 */
const NO_ACTION =
  /^(?:BashOutput|TaskOutput|KillShell|KillBash|ExitPlanMode|EnterPlanMode|Skill|SlashCommand|think|LS|Glob|Grep|list_directory|glob|grep|search_file_content|find_file|search_dir|search_file|ListMcpResourcesTool|ReadMcpResourceTool|TodoRead|todoread)$/i;
/** Arguments of a search: a call that has one looks around. */
const SEARCH_ARGS = /^(?:pattern|query|q|regex|glob|search_term|search|file_name)$/;

/** A person's reply as a line of their requests: `Answer to "Which port?": 8080`, `Refusing Edit a.ts: keep it`. */
function replyLine(said: PersonsReply, call: { call: ToolCall; activity: ToolActivity } | undefined): string {
  switch (said.kind) {
    case 'answer': {
      // (The call's arguments are read for its question only here: a reply is rare, a result is not.)
      const question = questionOf(call?.call);
      return `Answer${question === undefined ? '' : ` to "${oneLine(question, 120)}"`}: ${said.text}`;
    }
    case 'answers':
      return `Answer to ${said.text}`;
    case 'refusal': {
      const plan = planTextOf(call?.call);
      const refused = plan === undefined ? (call?.activity.label ?? 'the call') : `the plan "${oneLine(plan, 80)}"`;
      return `Refusing ${refused}: ${said.text}`;
    }
    case 'feedback':
      return `Feedback: ${said.text}`;
    case 'approval': {
      const plan = planTextOf(call?.call);
      return plan === undefined ? 'Approved the plan' : `Approved the plan: ${plan}`;
    }
    default:
      return assertNever(said);
  }
}

/**
 * The plan a call put to the person (ExitPlanMode's `plan`), on one line: its headings dropped, its items joined
 * (`Add a users migration; Wire POST /users`).
 */
function planTextOf(call: ToolCall | undefined): string | undefined {
  const plan = call && parseArguments(call.arguments)?.['plan'];
  if (typeof plan !== 'string') return undefined;
  const items = plan
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .map((l) => listItemText(l).trim())
    .filter((l) => l !== '');
  return items.length > 0 ? items.join('; ') : undefined;
}

/**
 * What a call asks the person, when its arguments say: `ask_followup_question`'s `question`, AskUserQuestion's
 * `questions: [{question}]`, what Cline's `plan_mode_respond` put to them (`response`).
 */
function questionOf(call: ToolCall | undefined): string | undefined {
  const args = call && parseArguments(call.arguments);
  const asked = [
    args?.['question'] ?? args?.['response'],
    ...(Array.isArray(args?.['questions']) ? args['questions'] : []),
  ]
    .map((q) => (typeof q === 'object' && q !== null ? (q as Record<string, unknown>)['question'] : q))
    .filter((q): q is string => typeof q === 'string' && q.trim() !== '');
  return asked.length > 0 ? asked.join(' ') : undefined;
}

/**
 * A call that did something no section holds otherwise — no shell command, no file, no web lookup, no sub-agent, no
 * plan, no search: an MCP server's `create_pull_request`, a query, a message sent, a question put to the user — as a
 * line of Commands run: `` `mcp__github__create_pull_request(title=Fix add, head=fix)` → ok: {"number": 42, …} ``.
 */
function otherActionOf(call: ToolCall, activity: ToolActivity): string | undefined {
  if (activity.command !== undefined || activity.files.length > 0 || activity.webLookup) return undefined;
  if (NO_ACTION.test(call.name) || isSubAgentTool(call.name) || planOfCall(call)) return undefined;
  const args = parseArguments(call.arguments);
  if (args && Object.keys(args).some((k) => SEARCH_ARGS.test(k))) return undefined;
  const described = describeArguments(call);
  return oneLine(described === '' ? call.name : `${call.name}(${described})`, 160);
}

/** A sub-agent's call whose result is the report of the agent it ran (not a handle to collect it later). */
const isSubAgentReport = (name: string, activity: ToolActivity): boolean =>
  isSubAgentTool(name) && !activity.background;

/**
 * A report read as the agent's own text: the decisions it states, the code it names, the files it names (seen); and
 * a line of Commands run for the call with what the report opens with (`` `Task "Why the store test fails"` → ok:
 * Sessions are stored by SessionStore … ``).
 */
function absorbReport(model: Model, label: string, report: string, rank: number): void {
  decisionsOf(report, LIMITS.decision).forEach((d, j) => model.decisions.push({ text: d, rank: rank + j }));
  for (const x of report.matchAll(/`([^`\n]{3,80})`/g)) addSymbol(model, x[1]!, rank, true);
  seeFiles(model, filesNamedIn(report), rank - 1);
  const gist = reportGist(report);
  addCommand(model, label, rank, 1, gist ? `ok: ${gist}` : 'ok');
}

/** A heading of a report (`## Summary`, `**Findings:**`, `Root cause:`), not a finding. */
const REPORT_HEADING = /^(?:#+\s.*|\*\*[^*]+\*\*:?|[\w ]{1,40}:)$/;

/** What a report opens with: its first lines of prose (not headings, not code), up to LIMITS.report characters. */
function reportGist(report: string): string {
  const out: string[] = [];
  let length = 0;
  for (const raw of proseOf(report.slice(0, 8_000)).split('\n')) {
    const line = raw
      .trim()
      .replace(/^(?:[-*•>]|\d+[.)])\s+/, '')
      .trim();
    if (line === '' || REPORT_HEADING.test(line)) continue;
    out.push(line);
    length += line.length + 1;
    if (length >= LIMITS.report) break;
  }
  return oneLine(out.join(' '), LIMITS.report);
}

/**
 * A read that failed is no read (`cat .env` → `No such file or directory`: the file may not exist): `failed read`.
 * A file tool's one file; of a command, the files its output names (`cat a.ts b.ts` may fail on one of them).
 */
function failReads(model: Model, activity: ToolActivity, output: string): void {
  for (const f of activity.files) {
    if (f.action !== 'read' || (activity.command !== undefined && !output.includes(f.path))) continue;
    const entry = model.files.get(f.path);
    const reads = entry?.counts.get('read') ?? 0;
    if (!entry || reads === 0) continue;
    if (reads === 1) entry.counts.delete('read');
    else entry.counts.set('read', reads - 1);
    const failedRead = `${FAILED_LEAD}read`;
    entry.counts.set(failedRead, (entry.counts.get(failedRead) ?? 0) + 1);
  }
}

/**
 * The changes a call made, at its rank, and what it wrote there by name; `failed`: refused as a whole (`failed edit`:
 * the file is as it was).
 */
function touchChanges(
  model: Model,
  call: { call: ToolCall; activity: ToolActivity; rank: number },
  failed: boolean,
  result?: string,
): void {
  for (const f of call.activity.files) {
    if (!changesFile(f.action)) continue;
    touchFile(model, f.path, failed ? `${FAILED_LEAD}${f.action}` : f.action, call.rank);
  }
  // A change refused as a whole wrote nothing: what its code declared is no symbol of the session (unless named
  // elsewhere too).
  if (failed) {
    if (call.activity.files.some((f) => changesFile(f.action)))
      for (const name of declaredNames(call.call, call.activity)) dropSymbol(model, name);
    return;
  }
  for (const [path, names] of namesChangedBy(call.call, call.activity, result)) {
    const entry = model.files.get(path);
    if (entry) noteChanged(entry, names);
  }
}

/** A change refused as a whole is recorded as `failed edit` (`failed write`, …): the file is as it was. */
const FAILED_LEAD = 'failed ';
/** How many names of what its changes wrote a file's line keeps (the latest). */
const CHANGED_NAMES = 3;
function noteChanged(entry: FileEntry, names: readonly string[]): void {
  const fresh = names.filter((n) => symbolName(n) !== undefined).slice(0, CHANGED_NAMES);
  if (fresh.length === 0) return;
  entry.changed = [...(entry.changed ?? []).filter((n) => !fresh.includes(n)), ...fresh].slice(-CHANGED_NAMES);
}

/** Pending lines of work left running rank above all others: a lost id cannot be found again. */
const BACKGROUND_RANK = 2 ** 40;

/**
 * A previous summary's pending work describes where its span ended; a span with new conversation supersedes it —
 * except its plan lines, which stand until the agent writes a new plan, and its launches, which stand (first) until
 * a call collects them (`stillOpen`: the lines of those not collected).
 */
function dropStalePending(
  model: Model,
  messages: readonly ChatMessage[],
  newPlan: boolean,
  stillOpen: ReadonlySet<string>,
): void {
  const progressed = messages.some((m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim() !== '');
  for (let i = model.pending.length - 1; i >= 0; i--) {
    const item = model.pending[i]!;
    if (item.rank >= 0) continue;
    if (isBackgroundLine(item.text)) {
      if (stillOpen.has(item.text))
        model.pending[i] = { ...item, rank: BACKGROUND_RANK + i, order: item.order ?? item.rank };
      else model.pending.splice(i, 1);
    } else if (progressed && (newPlan || !isPlanLine(item.text))) model.pending.splice(i, 1);
  }
  if (progressed) model.carriedOmitted.pendingWork = 0;
}

// ---------------------------------------------------------------------------------------------------
// Fitting the model into the budget

const ACTION_ORDER = ['write', 'edit', 'delete', 'read'];
/**
 * `path (write, edit×2, read)`. A deleted file's `delete` comes after its other changes when it was the latest (the
 * file is gone: `write, delete`), before them when the file was made again after it (`delete, write`): the order a
 * reader takes for time.
 */
function formatFile(f: FileEntry, symbolText: (name: string) => string): string {
  const order = f.lastChange === 'delete' ? ACTION_ORDER : ['delete', ...ACTION_ORDER.filter((a) => a !== 'delete')];
  const actions = [...f.counts.entries()].sort(([a], [b]) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const changed = f.changed?.length ? `${CHANGED_LEAD}${f.changed.map(symbolText).join(', ')}` : '';
  return `${f.path} (${actions.map(([a, n]) => (n > 1 ? `${a}×${n}` : a)).join(', ')}${changed})`;
}
/** An outcome that is the line of a commit git made (`ok: [main 1a2b3c4] Fix the parser`, or without its subject). */
const COMMITTED = /^ok: (\[[\w./-]+(?: \([\w -]+\))? [0-9a-f]{7,40}\])(?: (.*))?$/;
const formatCommand = (c: CommandEntry): string => {
  const runs = c.count > 1 ? ` ×${c.count}` : '';
  if (!c.last) return `\`${c.command}\`${runs}`;
  if (c.count <= 1) return `\`${c.command}\` → ${withoutSubjectSaid(c.command, c.last)}`;
  const before = earlierOutcome(c);
  const earlier = before === undefined ? '' : `earlier: ${oneLine(before, LIMITS.earlierOutcome)}; `;
  return `\`${c.command}\`${runs} → ${earlier}last: ${c.last}`;
};
/** A commit's outcome without its subject when the command states it already (`git commit -m "Fix the parser"`). */
function withoutSubjectSaid(command: string, outcome: string): string {
  const subject = COMMITTED.exec(outcome)?.[2]?.replace(/…$/, '');
  return subject !== undefined && subject.length >= 8 && command.includes(subject)
    ? `ok: ${COMMITTED.exec(outcome)![1]}`
    : outcome;
}
interface Candidate {
  readonly text: string;
  /** Display position (ascending). */
  readonly order: number;
  /**
   * The item with its free text cut to `max` characters (an error's line: its label and status stay whole, and
   * where it was raised goes first — at `Infinity`, that alone; a launch's line: its handles stay whole).
   */
  readonly cut?: (max: number) => string;
  /** The item longer, at up to `max` characters (a request cut to LIMITS.request that says more). */
  readonly longer?: (max: number) => string;
}

/** Each section's candidates, most important first. */
function candidates(model: Model): Record<ListKey, Candidate[]> {
  const byRankDesc = <T extends { rank: number }>(xs: T[]) => [...xs].sort((a, b) => b.rank - a.rank);
  const dedupe = (xs: Ranked[]) => {
    const seen = new Set<string>();
    return byRankDesc(xs).filter((x) =>
      seen.has(x.text.toLowerCase()) ? false : (seen.add(x.text.toLowerCase()), true),
    );
  };
  for (const [rel, abs] of model.absoluteOf) renameFile(model.files, rel, abs);
  mergeRelativeIntoAbsolute(model.files);
  dropSeenFragments(model.files);
  // Changed files first, then the ones a change of failed (what the work is about, not done yet), then the ones
  // opened, then the ones only seen in a listing or a search.
  const writes = (f: FileEntry) => {
    const actions = [...f.counts.keys()];
    if (actions.some(isChange)) return 0;
    if (actions.some((a) => a.startsWith(FAILED_LEAD) && isChange(a.slice(FAILED_LEAD.length)))) return 1;
    return onlyNamed(f) ? 3 : 2;
  };
  const total = (f: FileEntry) =>
    [...f.counts.entries()].reduce((a, [k, n]) => a + (k === SEEN || k === NOT_FOUND ? 0 : n), 0);
  const files = [...model.files.values()].sort(
    (a, b) => writes(a) - writes(b) || total(b) - total(a) || b.rank - a.rank || (a.path < b.path ? -1 : 1),
  );
  const errors = model.errors.byPriority();
  // A name a file's line says its changes wrote is not listed again among the symbols (as it was written: `render()`).
  const onFileLines = new Set(files.flatMap((f) => f.changed ?? []));
  const symbolText = (name: string): string => model.symbols.get(name)?.text ?? name;
  return {
    userRequests: requestsByPriority(model.requests).map((r) => ({
      text: r.text,
      order: r.rank,
      ...(r.longer && { longer: r.longer }),
    })),
    filesTouched: files.map((f, i) => ({ text: formatFile(f, symbolText), order: i })),
    codeSymbols: [...model.symbols.entries()]
      .filter(([name]) => !model.toolWords.has(name) && !onFileLines.has(name))
      .map(([, x]) => x)
      .sort((a, b) => b.count - a.count || b.rank - a.rank || (a.text < b.text ? -1 : 1))
      .map((x, i) => ({ text: x.text, order: i })),
    // The commits made (their hashes and messages: what a later `git show` or `revert` names, and the work's
    // milestones), then commands that ran something, then the ones that only looked around, each kind newest first.
    commandsRun: byRankDesc(
      [...model.commands.values()].map((c) => ({
        ...c,
        kind: c.last !== undefined && COMMITTED.test(c.last) ? 0 : looksAround(c.command) ? 2 : 1,
      })),
    )
      .sort((a, b) => a.kind - b.kind)
      .map((c) => ({ text: formatCommand(c), order: c.rank })),
    errorsSeen: errors.map((e) => ({
      text: formatError(e),
      order: e.rank,
      cut: (max: number) =>
        formatError({ ...e, line: max === Infinity ? withoutSite(e.line) : clipError(e.line, max) }),
    })),
    decisions: dedupe(model.decisions).map((d) => ({ text: d.text, order: d.rank })),
    pendingWork: pendingCandidates(dedupe(model.pending)),
  };
}

/** Pending work; a launch's line can be cut short keeping what tells it from the other launches. */
function pendingCandidates(pending: readonly Ranked[]): Candidate[] {
  const shared = sharedLabelStart(pending.flatMap((d) => launchOfLine(d.text)?.label ?? []));
  return pending.map((d) => ({
    text: d.text,
    order: d.order ?? d.rank,
    ...(isBackgroundLine(d.text) ? { cut: (max: number) => compactBackgroundLine(d.text, max, shared) } : {}),
  }));
}

/**
 * A file only seen whose path ends another listed path (a fragment of a cut output line, or the path a tool printed
 * from another directory: `../tui/test/a.ts` for `packages/tui/test/a.ts`) is that file; one that another listed
 * path lies under is a directory (a `find` line), not a file.
 */
function dropSeenFragments(files: Map<string, FileEntry>): void {
  const paths = [...files.keys()];
  for (const [path, entry] of [...files]) {
    if (!(entry.counts.size === 1 && entry.counts.has(SEEN))) continue;
    const dir = `${path.replace(/\/+$/, '')}/`;
    const up = /^(?:\.\.\/)+(?=[^./])/.exec(path);
    const below = up ? `/${path.slice(up[0].length)}` : undefined;
    const same = (p: string) =>
      (p.length > path.length && (p.endsWith(path) || p.startsWith(dir))) || (below !== undefined && p.endsWith(below));
    if (paths.some((p) => p !== path && same(p))) files.delete(path);
  }
}

/** The result of a call on a relative path that names the file absolutely (at its start or end) tells its full path. */
function recordAbsolutePaths(model: Model, activity: ToolActivity, content: string): void {
  const ends = content.length > 1200 ? `${content.slice(0, 600)}\n${content.slice(-600)}` : content;
  for (const f of activity.files) {
    if (f.path.startsWith('/') || f.path.startsWith('~') || model.absoluteOf.has(f.path)) continue;
    const rel = f.path.replace(/^\.\//, '');
    const at = ends.indexOf(`/${rel}`);
    if (at < 0) continue;
    // Back from the match to the start of the path it ends.
    let start = at;
    while (start > 0 && !/[\s"'():[\]]/.test(ends.charAt(start - 1))) start--;
    const dir = ends.slice(start, at);
    const after = ends.charAt(at + rel.length + 1);
    if (dir.startsWith('/') && !/[\w/.-]/.test(after)) model.absoluteOf.set(f.path, `${dir}/${rel}`);
  }
}

/** The entry of `from` under the name `to` (merged into `to`'s when both exist). */
function renameFile(files: Map<string, FileEntry>, from: string, to: string): void {
  const entry = files.get(from);
  if (!entry || from === to) return;
  const target = files.get(to);
  if (target) mergeInto(target, entry);
  else files.set(to, { ...entry, path: to });
  files.delete(from);
}

/** One file's entry taken into another's (the same file under two names). */
function mergeInto(target: FileEntry, entry: FileEntry): void {
  for (const [action, n] of entry.counts) target.counts.set(action, (target.counts.get(action) ?? 0) + n);
  target.rank = Math.max(target.rank, entry.rank);
  noteChanged(target, entry.changed ?? []);
}

/** An absolute path: `/repo/a.ts`, or on Windows `C:\repo\a.ts` (`C:/repo/a.ts`). */
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/])/;
/** A path with `/` between its parts (Windows' `\` too), for comparing one with another. */
const slashed = (path: string): string => path.replace(/\\/g, '/');

/**
 * `src/a.ts` and `/repo/src/a.ts` are one file when exactly one absolute path ends with the relative one (on Windows,
 * `src\a.ts` or `src/a.ts` and `C:\repo\src\a.ts`: an agent's tools may take either).
 */
function mergeRelativeIntoAbsolute(files: Map<string, FileEntry>): void {
  const absolute = [...files.keys()].filter((p) => ABSOLUTE_PATH.test(p));
  for (const [path, entry] of [...files]) {
    if (ABSOLUTE_PATH.test(path)) continue;
    const rel = slashed(path).replace(/^\.\//, '');
    const matches = absolute.filter((a) => slashed(a).endsWith(`/${rel}`));
    if (matches.length !== 1) continue;
    const target = files.get(matches[0]);
    if (!target) continue;
    mergeInto(target, entry);
    files.delete(path);
  }
}

/**
 * A user message written by the agent's harness, not a person: it opens with a tag (`<task-notification>`, …) or
 * with Cline's lead of a tool's result in the user's name (`[read_file for 'src/a.ts'] Result:`); it is Gemini CLI's
 * (or a fork's) setup of the chat (`This is the Gemini CLI. We are setting up the context for our chat.`: the date,
 * the OS, the folder tree); or it is Aider's report of its own lint, test run or commit (`Fix any errors below, if
 * possible.`, `I ran this command:`, `I committed the changes with git hash …`).
 */
const HARNESS_MESSAGE =
  /^<[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*>|^\[[\w-]+(?: for '[^'\n]*')?\] Result:|^This is the [\w .-]{1,40}\. We are setting up the context for our chat\.|^Caveat: The messages below were generated by the user while running local commands|^(?:Fix any errors below, if possible\.|I ran this command:|I added these files to the chat:|I committed the changes with git hash)|^\[Request interrupted by user[^\]]*\]$/;
/**
 * Claude Code's summary of the conversation before its own compaction, as the user message a continued session
 * opens with: the harness's, but the earlier work's record (it may grow with the room left, as a request does).
 */
const CONTINUATION = /^This session is being continued from a previous conversation/;
/** The parts of Claude Code's continuation that say where the work stood: its numbered section headings. */
const CONTINUATION_PARTS: readonly [RegExp, string][] = [
  [/Primary Request and Intent/i, 'request'],
  [/Pending Tasks/i, 'pending'],
  [/Current Work/i, 'current work'],
  [/Optional Next Step/i, 'next'],
  [/Errors and fixes/i, 'errors and fixes'],
  [/Files and Code Sections/i, 'files'],
];
/**
 * The parts that make its request line, in this order (what the line has room for: the errors met and how they were
 * fixed, with what the person said of the fixes, last).
 */
const CONTINUATION_LINE = ['request', 'pending', 'current work', 'next', 'errors and fixes'];
const CONTINUATION_HEADING = /^\s*(\d+\.\s*)?([A-Z][A-Za-z ]{2,40}):\s*(.*)$/;
/** Its other headings (a line `Name: …` in a part that is none of these is the part's own text). */
const CONTINUATION_OTHER = /^(?:Analysis|Summary|Key Technical Concepts|Problem Solving|All user messages)$/i;
/** A file its Files and Code Sections lists: a bullet that is a path (`- /repo/src/a.ts`, `` - `src/a.ts`: … ``). */
const LISTED_FILE = /^\s*[-*]\s+`?([~\w@./-]+\.[A-Za-z]\w{0,9})`?(?:[:\s(].*)?$/;

/** The lines of each part of Claude Code's continuation (bullets without their mark), its closing instruction left out. */
function continuationParts(content: string): Map<string, string[]> {
  const parts = new Map<string, string[]>();
  let current: string | undefined;
  for (const raw of content.replace(/\n?Please continue the conversation from where we left[\s\S]*$/, '').split('\n')) {
    const heading = CONTINUATION_HEADING.exec(raw);
    const part = heading ? CONTINUATION_PARTS.find(([re]) => re.test(heading[2]!))?.[1] : undefined;
    if (heading && (part !== undefined || heading[1] !== undefined || CONTINUATION_OTHER.test(heading[2]!))) {
      current = part;
      if (current !== undefined && heading[3]!.trim() !== '') parts.set(current, [heading[3]!]);
      continue;
    }
    if (current === 'files') {
      const file = LISTED_FILE.exec(raw)?.[1];
      if (file !== undefined) parts.set(current, [...(parts.get(current) ?? []), file]);
      continue;
    }
    const item = raw.replace(/^\s*[-*]\s+/, '').trim();
    if (current !== undefined && item !== '') parts.set(current, [...(parts.get(current) ?? []), item]);
  }
  return parts;
}

/**
 * Claude Code's continuation as one request line: `Continued session — request: …; pending: …; current work: …;
 * next: …` from its sections, in that order, within `max` characters; its own start and end otherwise.
 */
function continuationLine(parts: ReadonlyMap<string, string[]>, content: string, max: number): string {
  const said = CONTINUATION_LINE.flatMap((name) =>
    parts.has(name)
      ? [
          `${name}: ${parts
            .get(name)!
            .map((item) => item.replace(/\*\*/g, '').replace(/\s*:$/, ''))
            .join('; ')
            .replace(/\s+/g, ' ')}`,
        ]
      : [],
  );
  return said.length === 0 ? requestLine(content, max) : oneLine(`Continued session — ${said.join('; ')}`, max);
}
/**
 * A slash command (`/mode`, `/theme`, `/`, `/model opus`) or a shell command the person ran at the harness's prompt
 * (`! git status`, and what it printed: `! output: …`): typed to the harness, not a request to the agent.
 */
const BARE_COMMAND = /^\/[\w:-]*$|^\/[\w:-]+\s|^! /;

/** pi's message of a command the person ran: `Ran \`find .\``, then its output in a fence. */
const PERSON_RAN = /^Ran `([^`\n]+)`\n```[^\n]*\n([\s\S]*)$/;

/**
 * Claude Code's record of what the person did at its prompt, in its tags, as a line: a slash command
 * (`<command-name>/model</command-name>…<command-args>opus</command-args>` → `/model opus`), a shell command of its
 * bash mode (`<bash-input>git status</bash-input>` → `! git status`) and what that printed (`! output: …`). Null for
 * its notice before them (`Caveat: The messages below were generated by the user while running local commands…`,
 * bare or in `<local-command-caveat>`) and a slash command's own output (`<local-command-stdout>Set model to
 * opus</local-command-stdout>`): they say nothing of the work. Undefined for any other message.
 */
function localCommandLine(text: string): string | null | undefined {
  const head = text.trimStart();
  if (head.startsWith('Caveat: The messages below were generated by the user while running local commands'))
    return null;
  // pi's record of a command the person ran (`Ran \`ls\``, its output fenced below it).
  const ran = PERSON_RAN.exec(head);
  if (ran) return `! ${ran[1]!} → ${oneLine(ran[2]!.replace(/\n?```\s*$/, '').trim() || '(no output)', 160)}`;
  if (!head.startsWith('<')) return undefined;
  const tagged = (tag: string) => taggedText(text, tag);
  const name = tagged('command-name');
  if (name !== undefined) return [name, tagged('command-args')].filter((x) => x !== undefined && x !== '').join(' ');
  if (/^<local-command-(?:stdout|stderr|caveat)>/.test(head)) return null;
  const input = tagged('bash-input');
  if (input !== undefined) return `! ${input}`;
  const printed = [tagged('bash-stdout'), tagged('bash-stderr')].filter((x) => x !== undefined && x !== '');
  if (/^<bash-(?:stdout|stderr)>/.test(head)) return `! output: ${printed.length > 0 ? printed.join(' ') : '(none)'}`;
  return undefined;
}
/** What a person wrote, and what the harness wrote into their message around it (a message of reminders only is the harness's). */
const toHarness = (text: string): boolean => {
  const own = personsWords(text).trim();
  return (
    own === '' || HARNESS_MESSAGE.test(own) || CONTINUATION.test(own) || BARE_COMMAND.test(own) || PERSON_RAN.test(own)
  );
};

/**
 * Every user message counts (repeats included), newest first — but the first one, usually the task, right after the
 * newest; what the harness wrote in the user's name (a finished sub-agent's notification, a slash command's
 * expansion) and the bare slash commands a person typed to the harness after everything else a person wrote.
 */
function requestsByPriority(xs: Ranked[]): Ranked[] {
  const byPerson = (list: Ranked[]): Ranked[] => {
    const sorted = [...list].sort((a, b) => b.rank - a.rank);
    if (sorted.length <= 2) return sorted;
    return [sorted[0]!, sorted[sorted.length - 1]!, ...sorted.slice(1, -1)];
  };
  const harness = xs.filter((x) => toHarness(x.text));
  if (harness.length === 0 || harness.length === xs.length) return byPerson(xs);
  return [...byPerson(xs.filter((x) => !toHarness(x.text))), ...byPerson(harness)];
}

const lineSize = (text: string): number => text.length + 3; // "- " + newline
const omittedLine = (n: number): string => `(+${n} more omitted)`;

function allocate(needs: Record<keyof SummarySections, number>, budget: number): Record<keyof SummarySections, number> {
  const alloc = emptyOmitted();
  let open = [...KEYS];
  let left = Math.max(0, budget);
  for (;;) {
    const shareSum = open.reduce((s, k) => s + SHARES[k], 0);
    const satisfied = open.filter((k) => needs[k] <= (left * SHARES[k]) / shareSum);
    if (satisfied.length === 0) break;
    for (const k of satisfied) {
      alloc[k] = needs[k];
      left -= needs[k];
    }
    open = open.filter((k) => !satisfied.includes(k));
    if (open.length === 0) return alloc;
  }
  const shareSum = open.reduce((s, k) => s + SHARES[k], 0);
  for (const k of open) alloc[k] = Math.floor((left * SHARES[k]) / shareSum);
  return alloc;
}

function render(sections: SummarySections, omitted: Record<keyof SummarySections, number>): string {
  const lines = [SUMMARY_TITLE];
  // An empty section is left out: its heading alone tells the reader nothing.
  KEYS.forEach((key, i) => {
    if (key === 'currentState') {
      if (sections.currentState !== '') lines.push(`## ${SUMMARY_SECTIONS[i]}`, sections.currentState);
      return;
    }
    if (sections[key].length === 0) return; // nothing kept: a bare "(+N more omitted)" tells the reader nothing
    lines.push(`## ${SUMMARY_SECTIONS[i]}`);
    if (omitted[key] > 0) lines.push(`- ${omittedLine(omitted[key])}`);
    for (const item of sections[key]) lines.push(`- ${item}`);
  });
  return lines.join('\n');
}

export function summarizeDeterministic(input: SummarizeInput): DeterministicSummary {
  const model: Model = {
    requests: [],
    files: new Map(),
    symbols: new Map(),
    commands: new Map(),
    errors: new ErrorsSeen(),
    decisions: [],
    pending: [],
    state: '',
    carriedOmitted: emptyOmitted(),
    toolWords: new Set(),
    absoluteOf: new Map(),
  };
  const previous = input.previousSummary?.trim() ?? '';
  if (previous !== '' && !absorbPrevious(model, previous)) {
    // Not in our sections (e.g. another tool's free-form summary): keep its gist as the oldest request context.
    model.requests.push({ text: oneLine(`Earlier summary: ${previous}`, LIMITS.request * 2), rank: -2_000_000_000 });
  } else if (input.recalled?.length) recallTask(model, input.recalled);
  const plan = latestPlanOf(input.messages);
  const activities = activitiesOf(input.messages, input.openedBefore);
  const carried = model.pending.map((x) => x.text);
  const finished = previous === '' ? undefined : finishedInLaterNotes(previous, carried);
  const launches = openLaunchesOf(
    input.messages,
    finished?.size ? carried.filter((line) => !finished.has(line)) : carried,
    activities,
  );
  dropStalePending(model, input.messages, plan !== undefined, new Set(launches.carried));
  absorbMessages(model, input.messages, plan, launches.launched, activities);

  const inputChars = input.messages.reduce((s, m) => s + messageChars(m), 0) + (input.previousSummary?.length ?? 0);
  const maxChars =
    input.maxChars ?? Math.min(DEFAULT_MAX_SUMMARY_CHARS, Math.floor(inputChars * DEFAULT_SUMMARY_RATIO));

  const cands = candidates(model);
  const needs = emptyOmitted();
  for (const key of KEYS) {
    needs[key] =
      key === 'currentState'
        ? model.state.length + 1
        : cands[key].reduce((s, c) => s + lineSize(c.text), 0) + (model.carriedOmitted[key] > 0 ? 24 : 0);
  }
  // The title and the headings of the sections that have something (an empty one is not rendered).
  const overhead =
    SUMMARY_TITLE.length + 1 + KEYS.reduce((s, key, i) => s + (needs[key] > 0 ? SUMMARY_SECTIONS[i].length + 4 : 0), 0);
  const alloc = allocate(needs, maxChars - overhead);

  const kept = {} as Record<ListKey, Candidate[]>;
  for (const key of KEYS) {
    if (key === 'currentState') continue;
    const list = cands[key];
    const mine: Candidate[] = [];
    let used = 0;
    const reserve = list.length > 0 && needs[key] > alloc[key] ? 24 : 0;
    for (const c of list) {
      if (used + lineSize(c.text) + reserve > alloc[key]) break;
      mine.push(c);
      used += lineSize(c.text);
    }
    // The newest user request and the first (usually the task) survive, cut to what is left (see below for a bound
    // too small for them).
    if (key === 'userRequests' && mine.length < Math.min(2, list.length)) {
      const both = list.slice(0, 2);
      const each = Math.max(REQUEST_FLOOR, Math.floor((alloc[key] - reserve) / both.length) - 3);
      mine.splice(0, mine.length, ...both.map((c) => ({ ...c, text: oneLine(c.text, each) })));
    }
    kept[key] = mine;
  }
  // A state cut to its mark alone ("…") tells nothing: left out.
  let currentState = alloc.currentState > 2 ? oneLine(model.state, alloc.currentState - 1) : '';
  const build = () => {
    const omitted = emptyOmitted();
    const chosen = {} as Record<ListKey, string[]>;
    for (const key of KEYS) {
      if (key === 'currentState') continue;
      omitted[key] = cands[key].length - kept[key].length + model.carriedOmitted[key];
      chosen[key] = [...kept[key]].sort((a, b) => a.order - b.order).map((c) => c.text);
    }
    omitted.currentState = currentState.length < model.state.length ? 1 : 0;
    const sections: SummarySections = { ...chosen, currentState };
    return { sections, omitted, text: render(sections, omitted) };
  };
  /** The length `build()` would render, without rendering. */
  const measure = (): number => {
    let n = SUMMARY_TITLE.length;
    KEYS.forEach((key, i) => {
      if (key === 'currentState') {
        if (currentState !== '') n += SUMMARY_SECTIONS[i].length + 5 + currentState.length;
        return;
      }
      if (kept[key].length === 0) return;
      n += SUMMARY_SECTIONS[i].length + 4;
      const left = cands[key].length - kept[key].length + model.carriedOmitted[key];
      if (left > 0) n += omittedLine(left).length + 3;
      for (const c of kept[key]) n += c.text.length + 3;
    });
    return n;
  };
  // A bound too small for the two requests kept above (a few hundred characters): they are cut shorter, the task
  // first, and one that would keep too little is left out.
  for (let at = kept.userRequests.length - 1; at >= 0 && measure() > maxChars; at--) {
    const c = kept.userRequests[at]!;
    const room = c.text.length - (measure() - maxChars);
    if (room >= MIN_REQUEST_CUT) kept.userRequests[at] = { ...c, text: oneLine(c.text, room) };
    else kept.userRequests.splice(at, 1);
  }
  // What the shares left unused (sections under their share, headings not rendered) goes to the items left out,
  // the most telling sections first, as long as the whole stays within maxChars.
  for (const key of FILL_ORDER) {
    const list = cands[key];
    while (kept[key].length < list.length) {
      kept[key].push(list[kept[key].length]!);
      if (measure() > maxChars) {
        kept[key].pop();
        break;
      }
    }
  }
  // The newest unresolved error, the most important file and every launch not collected (its ids are nowhere else:
  // one left out of a small note is lost for good) are never dropped while the less telling sections (decisions,
  // symbols, other pending work, commands, the current state, other files) have room to give; an error's line is cut
  // shorter at each try; a launch keeps its label while the other launches' labels and the current state can give,
  // else takes, last, the room of the requests (`requestGives`).
  const isLaunch = (c: Candidate): boolean => isBackgroundLine(c.text);
  const launchLines = cands.pendingWork.filter(isLaunch);
  const musts: readonly (readonly [ListKey, Candidate | undefined])[] = [
    ['errorsSeen', cands.errorsSeen[0]],
    ['filesTouched', cands.filesTouched[0]],
    ...launchLines.map((c) => ['pendingWork', c] as const),
  ];
  /** Takes the least telling kept item of the first giver that has one (a launch's line is not given). */
  const give = (): boolean => {
    for (const k of GIVERS)
      for (let at = kept[k].length - 1; at >= 0; at--)
        if (!(k === 'pendingWork' && isLaunch(kept[k][at]!))) return kept[k].splice(at, 1).length > 0;
    return false;
  };
  /**
   * Cuts a kept launch's line to the next shorter form (down to the `to`-th of LAUNCH_LABEL_CUTS), every line to
   * one form before any to the next.
   */
  const compactALaunch = (to = LAUNCH_LABEL_CUTS.length - 1): boolean => {
    for (const n of LAUNCH_LABEL_CUTS.slice(0, to + 1))
      for (const [at, c] of kept.pendingWork.entries()) {
        if (!isLaunch(c) || !c.cut) continue;
        const shorter = c.cut(n);
        if (shorter.length >= c.text.length) continue;
        kept.pendingWork[at] = { ...c, text: shorter };
        return true;
      }
    return false;
  };
  /**
   * The last room a launch takes: the least telling request goes (not the newest nor the task), then the longest
   * one is cut 40 characters shorter, not under REQUEST_FLOOR.
   */
  const requestGives = (): boolean => {
    const requests = kept.userRequests;
    if (requests.length > 2) return requests.pop() !== undefined;
    const at = requests.reduce((best, c, k) => (c.text.length > (requests[best]?.text.length ?? 0) ? k : best), -1);
    const c = requests[at];
    if (!c || c.text.length <= REQUEST_FLOOR) return false;
    requests[at] = { ...c, text: oneLine(c.text, Math.max(REQUEST_FLOOR, c.text.length - 40)) };
    return true;
  };
  for (const [key, first] of musts) {
    if (!first || (key === 'pendingWork' ? kept[key].some((c) => c.order === first.order) : kept[key].length > 0))
      continue;
    // (An error's first cut (Infinity) leaves out where it was raised: its message whole.)
    const cuts = key === 'pendingWork' ? LAUNCH_LABEL_CUTS : [Infinity, 120, 80, 50, 30];
    const versions = first.cut ? [first.text, ...cuts.map((n) => first.cut!(n))] : [first.text];
    const saved = { kept: Object.fromEntries(KEYS.map((k) => [k, [...(kept[k as ListKey] ?? [])]])), currentState };
    const restore = () => {
      for (const k of KEYS) if (k !== 'currentState') kept[k] = [...saved.kept[k]!];
      currentState = saved.currentState;
    };
    const fits = (text: string): boolean => {
      kept[key].push({ ...first, text });
      if (measure() <= maxChars) return true;
      kept[key].pop();
      return false;
    };
    /** One of `forms` kept, `makeRoom` giving room until one fits or it has none left to give. */
    const fitWith = (forms: readonly string[], makeRoom: () => boolean): boolean => {
      for (let guard = 0; guard < 500; guard++) {
        if (forms.some(fits)) return true;
        if (!makeRoom()) return false;
      }
      return false;
    };
    // The files give all but their first to an error or a launch.
    const filesGive = () =>
      key !== 'filesTouched' && kept.filesTouched.length > 1 && kept.filesTouched.pop() !== undefined;
    /** The current state 80 characters shorter, not under `floor` (0: to nothing, once under 100). */
    const stateGives = (floor: number) => {
      if (currentState === '' || (floor > 0 && currentState.length <= floor)) return false;
      currentState = currentState.length > 100 ? oneLine(currentState, Math.max(floor, currentState.length - 80)) : '';
      return true;
    };
    // A launch keeps what it was asked to do (what tells it from the others) while the others can give room: the
    // other launches' lines cut short, the current state cut down (not the requests); else, all given back, it is
    // named by its tool alone before anything else gives.
    const labelled = key === 'pendingWork' && versions.length > 2;
    let fitted =
      labelled && fitWith(versions.slice(0, -1), () => give() || filesGive() || compactALaunch(0) || stateGives(100));
    if (!fitted) {
      restore();
      fitted = fitWith(
        versions,
        () =>
          give() ||
          filesGive() ||
          (key === 'pendingWork' && compactALaunch()) ||
          stateGives(0) ||
          (key === 'pendingWork' && requestGives()),
      );
    }
    // Nothing gained: give the others their room back.
    if (!fitted) restore();
  }
  // Room still left once every section has what it can take: the requests kept say more of what was asked (a
  // person's list of requirements, cut to its first and last items above), the first kept (the task, the newest)
  // first.
  for (const [at, c] of kept.userRequests.entries()) {
    const room = maxChars - measure();
    if (room <= 0) break;
    const longer = c.longer?.(c.text.length + room);
    if (longer !== undefined && longer.length > c.text.length) kept.userRequests[at] = { ...c, text: longer };
  }
  const result = build();
  const { text, sections, omitted } = result;
  return { text, sections, omitted, inputChars, maxChars, notSmaller: text.length >= inputChars };
}

/** A user request is not cut shorter than this (its mark included): less tells nothing of what was asked. */
const MIN_REQUEST_CUT = 20;
/** A request is not cut shorter than this to make room for a launch (as for the newest and the task in a tight note). */
const REQUEST_FLOOR = 60;

/** How short a launch's label is cut when its line must make room (0: the tool's name alone). */
const LAUNCH_LABEL_CUTS = [32, 0];

/** What gives room to a missing error, file or launch, least telling first. */
const GIVERS: readonly ListKey[] = ['decisions', 'codeSymbols', 'pendingWork', 'commandsRun'];

/** Where room left over goes first: what went wrong, what was touched, what was asked, what was run. */
const FILL_ORDER: readonly ListKey[] = [
  'errorsSeen',
  'filesTouched',
  'userRequests',
  'commandsRun',
  'pendingWork',
  'codeSymbols',
  'decisions',
];

function assertNever(value: never): never {
  throw new Error(`Unhandled value: ${String(value)}`);
}

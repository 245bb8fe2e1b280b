import type { ChatMessage, ToolCall } from '../model/message';
import { resolveToolResultCallIds } from '../repair';
import { activitiesOf, parseArguments, toolActivity, type ToolActivity } from './tool-activity';
import { unwrappedResult } from './harness-frame';

/**
 * Work a call left running when it returned — a sub-agent, a background shell, a detached process — and the
 * handles a later call needs to collect it: Claude Code's `Task` with `run_in_background` (`agentId: a9cad17`,
 * `output_file: …/a9cad17.output`, collected by `TaskOutput {task_id}`), a background `Bash` (`shell_id`, collected
 * by `BashOutput {bash_id}`), a shell's `cmd &` (`[1] 4242`, collected by `kill 4242`, `wait`), Codex's
 * `Process running with session ID 7` (collected by `write_stdin {session_id}`), Gemini CLI's `Background PIDs:`.
 * Those ids are in no other message: a working state that hides the launch keeps them until a call collects it.
 */
export interface Handle {
  /** `agentId`, `task_id`, `shell_id`, `session_id`, `job` (`%1`), `PID`, `id`, or `output` (a path). */
  readonly kind: string;
  readonly value: string;
}

export interface Launch {
  /** The call, short: `Task "Poem about Thai green curry"`, ``bash `npm run dev > dev.log &` ``. */
  readonly label: string;
  readonly handles: readonly Handle[];
}

/** What a pending-work line of a launch starts with. */
export const BACKGROUND_PREFIX = 'Background: ';
const NOT_COLLECTED = ' (not collected)';
/** A launch's line is at most this long (a pending-work line's bound), its handles whole. */
export const MAX_LINE = 200;

/** Only the start of a result is read: launch reports are short, and a long output's ids are not handles. */
const HEAD_CHARS = 3000;
const MAX_HANDLES = 4;

/** A result that says its work goes on: launched or running in the background, a process still running. */
const GOES_ON =
  /\b(?:in|into) the background\b|\b(?:running|launched|started|spawned|detached) in background\b|\bbackground (?:job|process|task|shell|agent)\b|\bbackground pids?:\s*\d|\basync(?:hronous)? (?:agent|task|job|command) (?:launched|started)\b|\b(?:process|command|job|agent|task) (?:is |still )?running\b|\bstill running\b/i;

/**
 * A word every match of GOES_ON and OWN has: a result without one (most results) is passed over before those costlier
 * tests run.
 */
const GOES_ON_WORD = /background|running|async/i;

/** `agentId: a9cad17`, `task_id=…`, `(shell ID: 3)`, `session ID 7`, `job id: …`, `PID 4242`, `Background PIDs: 1, 2`. */
const KEYED_ID =
  /\b(agent[ _-]?id|task[ _-]?id|shell[ _-]?id|bash[ _-]?id|session[ _-]?id|job[ _-]?id|process[ _-]?id|pids?)\b\s*([:=#]|is\b)?\s*["'`]?([A-Za-z0-9][\w.:-]{0,63})/gi;
/**
 * `with ID: bash_1`, `ID: 5f2a`: a bare id, only when written `ID:` (upper case, a colon); not Codex's `Chunk ID: 1a2b`
 * (a piece of output, not a launch).
 */
const BARE_ID = /(?<!\bChunk )\bID:\s*["'`]?([A-Za-z0-9][\w.-]{0,63})/g;
/** A shell's job line: `[1] 4242`. */
const JOB_LINE = /^\s*\[(\d+)\]\s+(\d+)\s*$/gm;
/** `output_file: /tmp/x.output`, `log: run.log`, `Output is being written to: …`. */
const OUTPUT_PATH =
  /(?:\b(?:output[ _-]?(?:file|path)|log[ _-]?(?:file|path)|output|logs?|stdout)\s*[:=]|\b(?:written|writing|redirected|logging) to:?)\s*["'`]?((?:~|\.{1,2})?\/?[\w.@+-]+(?:\/[\w.@+-]+)+|[\w.@+-]+\.(?:log|out|output|txt|jsonl?))/gi;
/** Gemini CLI's report of the processes a command left running, after its output. */
const STRAY_PIDS = /^Background PIDs: .*$/gm;
/** Our own wording of the handles, as a note's step line states them (`background agentId a9cad17, output …`). */
const OWN = /^background ((?:\w+ \S+)(?:, \w+ \S+)*)$/;
const HANDLE_ITEM = /^(\w+) (\S+)$/;

const kindOf = (key: string): string => {
  const k = key.toLowerCase().replace(/[ _-]/g, '');
  if (k.startsWith('agent')) return 'agentId';
  if (k.startsWith('task')) return 'task_id';
  if (k.startsWith('shell') || k.startsWith('bash')) return 'shell_id';
  if (k.startsWith('session')) return 'session_id';
  if (k.startsWith('job')) return 'job';
  return 'PID';
};

/** A long path keeps its file name (where the id usually is): `…/a9cad17.output`. */
const shortPath = (path: string, max = 40): string => {
  if (path.length <= max) return path;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return `…/${name.length <= max ? name : name.slice(-max)}`;
};

/**
 * The handles of what a call left running, read from its result, or undefined when it left nothing running that
 * can be named: the call asked for a background run (`ToolActivity.background`) or its result says the work goes
 * on, and the result names an id or an output file (a backgrounded command's redirection names its log).
 */
export function launchHandles(activity: ToolActivity | undefined, wrapped: ChatMessage): Handle[] | undefined {
  // (What the command printed, out of a harness's wrapping: Codex stores a shell's output as JSON.)
  const result = unwrappedResult(wrapped);
  if (result.isError) return undefined;
  const start = result.content.length > HEAD_CHARS ? result.content.slice(0, HEAD_CHARS) : result.content;
  if (!activity?.background && !GOES_ON_WORD.test(start)) return undefined;
  // Gemini CLI (and its forks) list the processes any command left behind: of a command that did not background
  // anything, those are a script's stray children, not work the agent started and will collect (GOES_ON below).
  const head = activity?.command !== undefined && !activity.background ? start.replace(STRAY_PIDS, '') : start;
  const own = OWN.exec(head.trim());
  if (own) return parseHandles(own[1]!);
  if (!activity?.background && !GOES_ON.test(head)) return undefined;
  const handles: Handle[] = [];
  /** `keyed`: written `key: value` or `key=value`, where an id may be letters only (`agentId: abcdefa`). */
  const add = (kind: string, raw: string, keyed = false) => {
    const value = raw.replace(/[.:,;)\]'"`]+$/, '');
    if (value === '' || handles.some((h) => h.value === value) || handles.length >= MAX_HANDLES) return;
    // An id has a digit, or looks like one after a colon (hex, `_`, `-`): `task id is the` is prose.
    if (kind !== 'output' && !/\d/.test(value) && !(keyed && /^[a-f]{6,}$|[_-]/i.test(value))) return;
    handles.push({ kind, value });
  };
  for (const m of head.matchAll(KEYED_ID)) {
    if (/^pids?$/i.test(m[1]!)) {
      // `Background PIDs: 1234, 5678`: every number.
      const list = /^[\s:=#]*((?:\d+\s*,\s*)*\d+)/.exec(head.slice(m.index + m[1]!.length));
      for (const pid of list?.[1]!.split(',') ?? []) add('PID', pid.trim());
    } else add(kindOf(m[1]!), m[3]!, m[2] !== undefined && /[:=]/.test(m[2]));
  }
  for (const m of head.matchAll(BARE_ID)) add('id', m[1]!, true);
  // `a & b &` prints a job line for each.
  for (const job of head.matchAll(JOB_LINE)) {
    add('job', `%${job[1]}`);
    add('PID', job[2]!);
  }
  // `cmd & echo $!`: the number it prints is the PID.
  if (activity?.command?.includes('$!')) {
    const pid = /^\s*(\d{2,})\s*$/m.exec(head);
    if (pid) add('PID', pid[1]!);
  }
  for (const m of head.matchAll(OUTPUT_PATH)) add('output', m[1]!);
  if (activity?.background && activity.command !== undefined && !handles.some((h) => h.kind === 'output')) {
    const log = activity.files.find((f) => f.action === 'write');
    if (log) add('output', log.path);
  }
  return handles.length > 0 ? handles : undefined;
}

/** A kept line of a launch's result is at most this long: a window around its handle when the line is longer. */
const MAX_KEPT_LINE = 240;

/**
 * The lines of a launch's result that a cut of the result must keep for the launch to stay collectable: each line
 * naming one of its handles, and the line saying the work goes on when only the result says so (a plain call). A
 * later note reads the handles from them as from the whole result. Undefined for a result that launched nothing;
 * `kept`: the part of the result a cut keeps — the lines it already holds (a handle named in it) are left out.
 */
export function launchLines(
  activity: ToolActivity | undefined,
  result: ChatMessage,
  kept: string,
): string[] | undefined {
  const handles = launchHandles(activity, result);
  if (!handles) return undefined;
  const lines = unwrappedResult(result).content.slice(0, HEAD_CHARS).split('\n');
  const out: string[] = [];
  const keep = (line: string, value?: string) => {
    const text = line.trim();
    if (text === '') return;
    let clipped = text;
    if (text.length > MAX_KEPT_LINE) {
      const at = value === undefined ? 0 : Math.max(0, text.indexOf(value) - MAX_KEPT_LINE / 2);
      clipped = text.slice(at, at + MAX_KEPT_LINE);
    }
    if (!out.includes(clipped)) out.push(clipped);
  };
  if (!activity?.background && !GOES_ON.test(kept)) {
    const goesOn = lines.find((l) => GOES_ON.test(l));
    if (goesOn !== undefined) keep(goesOn);
  }
  const missing = handles.filter((h) => !namesToken(kept, h.value));
  for (const line of lines) {
    const named = missing.find((h) => namesToken(line, h.value));
    if (named) keep(line, named.value);
  }
  return out;
}

/** `agentId a9cad17, output /tmp/…/a9cad17.output`. */
export const handlesText = (handles: readonly Handle[]): string =>
  handles.map((h) => `${h.kind} ${h.kind === 'output' ? shortPath(h.value) : h.value}`).join(', ');

function parseHandles(text: string): Handle[] | undefined {
  const handles: Handle[] = [];
  for (const item of text.split(', ')) {
    const m = HANDLE_ITEM.exec(item);
    if (!m) return undefined;
    handles.push({ kind: m[1]!, value: m[2]! });
  }
  return handles.length > 0 ? handles : undefined;
}

const clip = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(1, max - 1)).trimEnd()}…`;
};

const DESCRIPTION_KEYS = ['description', 'title', 'name', 'task', 'objective', 'prompt'] as const;

/**
 * A sub-agent's tool (Claude Code's and OpenCode's `Task`, Gemini CLI's `codebase_investigator`, …): its result is
 * the report of the agent it ran, unless it ran in the background (then a handle to collect it later).
 */
export const isSubAgentTool = (name: string): boolean => SUB_AGENT_TOOL.test(name);
const SUB_AGENT_TOOL = /^(?:task|agent|dispatch_agent|codebase_investigator|sub_?agent|spawn_agent|delegate_task)$/i;

/**
 * A call, short (a launch's, a sub-agent's): its command, or what it was told to do (`Task "Poem about Thai green
 * curry"`).
 */
export function launchLabel(call: ToolCall, activity: ToolActivity): string {
  if (activity.command !== undefined) return `${call.name} \`${clip(activity.command, 60)}\``;
  const args = parseArguments(call.arguments) ?? {};
  const what = DESCRIPTION_KEYS.map((k) => args[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return what !== undefined ? `${call.name} "${clip(what, 40)}"` : clip(activity.label, 60);
}

/** The pending-work line of a launch not collected: `Background: Task "…" → agentId a9cad17, output … (not collected)`. */
export function backgroundLine(launch: Launch): string {
  const tail = ` → ${handlesText(launch.handles)}${NOT_COLLECTED}`;
  return `${BACKGROUND_PREFIX}${clip(launch.label, Math.max(20, MAX_LINE - BACKGROUND_PREFIX.length - tail.length))}${tail}`;
}

/**
 * A launch's line made short for a note with little room: its label cut to `labelMax` characters (0: the tool's
 * name alone), an output path left out when an id names the launch (the path usually holds the id). With `shared`,
 * the opening words its label has in common with the other launches' (`sharedLabelStart`) are left out first: what
 * tells the launches apart is kept (`Task "…yellow curry"`, not three `Task "Poem about Thai …` lines).
 */
export function compactBackgroundLine(line: string, labelMax = 32, shared = ''): string {
  const launch = launchOfLine(line);
  if (!launch) return line;
  const ids = launch.handles.filter((h) => h.kind !== 'output');
  const distinct = withoutSharedStart(launch.label, shared);
  const label = labelMax > 0 ? clip(distinct, labelMax) : (/^\S+/.exec(launch.label)?.[0] ?? launch.label);
  return backgroundLine({ label, handles: ids.length > 0 ? ids : launch.handles });
}

/** Fewer shared characters than this are not worth an ellipsis. */
const MIN_SHARED = 8;

/**
 * The opening the labels of several launches have in common, up to a word's end (`Task "Poem about Thai ` for
 * `Task "Poem about Thai green curry"` and `Task "Poem about Thai red curry"`); '' for fewer than two labels.
 */
export function sharedLabelStart(labels: readonly string[]): string {
  if (labels.length < 2) return '';
  let n = 0;
  const first = labels[0]!;
  while (n < first.length && labels.every((l) => l[n] === first[n])) n++;
  // Up to the last space (a word cut in the middle is not shared); no label left empty.
  const start = first.slice(0, n);
  const upTo = start.lastIndexOf(' ') + 1;
  const shared = start.slice(0, upTo);
  return labels.every((l) => l.length > shared.length) ? shared : '';
}

/** A label without the opening it shares with others: its tool and quote kept (`Task "…red curry"`). */
function withoutSharedStart(label: string, shared: string): string {
  if (!label.startsWith(shared)) return label;
  const head = /^\S+ ["`]?/.exec(label)?.[0] ?? '';
  if (shared.length - head.length < MIN_SHARED) return label;
  return `${head}…${label.slice(shared.length)}`;
}

/** A pending-work line of a launch (`backgroundLine`), read back; undefined for any other line. */
export function launchOfLine(line: string): Launch | undefined {
  if (!line.startsWith(BACKGROUND_PREFIX) || !line.endsWith(NOT_COLLECTED)) return undefined;
  const body = line.slice(BACKGROUND_PREFIX.length, -NOT_COLLECTED.length);
  const arrow = body.lastIndexOf(' → ');
  if (arrow < 0) return undefined;
  const handles = parseHandles(body.slice(arrow + 3));
  return handles ? { label: body.slice(0, arrow), handles } : undefined;
}

export const isBackgroundLine = (line: string): boolean => launchOfLine(line) !== undefined;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The value as a whole token of a text (`a9cad17` in `tasks/a9cad17.output`, not `4242` in `14242`). */
const namesToken = (text: string, value: string): boolean =>
  new RegExp(`(?<![\\w.%-])${escape(value)}(?![\\w-])`).test(text);
const SHELL_COLLECT = /\b(?:kill|pkill|wait|fg|bg|disown)\b/;
/** `wait` alone: waits for every job of the shell. */
const BARE_WAIT = /(?:^|[\s;&|(])wait\s*(?:$|[;&|)])/m;

/**
 * Whether a call collects a launch: its arguments name one of its handles (`TaskOutput {task_id}`,
 * `BashOutput {bash_id}`, `write_stdin {session_id}`, `kill 4242`, reading the output file), or it is a shell's
 * bare `wait` for a shell job. A short id (under 4 characters) counts only as an argument's whole value or after
 * a shell's `kill`/`wait`/`fg`: a bare `3` elsewhere names nothing. A shell launch is also collected by a `pkill` or
 * `killall` of its name (`killsByName`).
 */
export function collects(call: ToolCall, activity: ToolActivity, launch: Launch): boolean {
  let values: unknown[] | undefined;
  const command = activity.command;
  for (const h of launch.handles) {
    if (h.kind === 'output') {
      // A path kept short (`…/a9cad17.output`) is matched by its file name.
      const path = h.value.startsWith('…/') ? h.value.slice(1) : h.value;
      if (call.arguments.includes(path)) return true;
      continue;
    }
    values ??= Object.values(parseArguments(call.arguments) ?? {});
    if (values.some((v) => (typeof v === 'string' || typeof v === 'number') && String(v) === h.value)) return true;
    if (h.value.length >= 4 && namesToken(call.arguments, h.value)) return true;
    if (command !== undefined && (h.kind === 'PID' || h.kind === 'job')) {
      if (BARE_WAIT.test(command)) return true;
      if (SHELL_COLLECT.test(command) && namesToken(command, h.value)) return true;
    }
  }
  return command !== undefined && killsByName(command, launch.label);
}

/** `pkill -f "python train.py"`, `killall -9 vite`: the name or pattern a command kills processes by. */
const KILL_BY_NAME = /\b(?:pkill|killall)((?:\s+-[\w-]+)*)\s+(?:"([^"]+)"|'([^']+)'|([^\s;&|]+))/g;

/**
 * Whether a shell command kills the launch by its name (`pkill -f "python train.py"` for `nohup python train.py &`):
 * the pattern, at least 3 characters, is in the launch's command as its label shows it.
 */
function killsByName(command: string, label: string): boolean {
  const shown = /`(.*)`/.exec(label)?.[1];
  if (shown === undefined) return false;
  for (const m of command.matchAll(KILL_BY_NAME)) {
    const pattern = (m[2] ?? m[3] ?? m[4])!.trim();
    if (pattern.length >= 3 && shown.includes(pattern)) return true;
  }
  return false;
}

const FINISHED = /\b(?:completed?|finished|exited|done|failed|killed|terminated|stopped)\b/i;

/** A message from the harness that a launch finished (`<task-notification>…ac27727…completed`): its result is in. */
function tellsFinished(m: ChatMessage, launch: Launch): boolean {
  const head = m.content.length > HEAD_CHARS ? m.content.slice(0, HEAD_CHARS) : m.content;
  return (
    FINISHED.test(head) &&
    launch.handles.some((h) => h.kind !== 'output' && h.value.length >= 4 && namesToken(head, h.value))
  );
}

/**
 * The launch lines of `carried` that a line further on in `notes` tells finished (stacked notes, oldest first: a
 * later note kept the harness's `<task-notification>…ac27727…completed` among its requests, but could not close a
 * launch it did not carry). A line tells it when it names one of the launch's ids and a word of finishing.
 */
export function finishedInLaterNotes(notes: string, carried: readonly string[]): Set<string> {
  const done = new Set<string>();
  for (const line of carried) {
    const launch = launchOfLine(line);
    const at = notes.indexOf(line);
    if (!launch || at < 0) continue;
    const ids = launch.handles.filter((h) => h.kind !== 'output' && h.value.length >= 4);
    if (ids.length === 0) continue;
    const later = notes.slice(at + line.length).split('\n');
    if (
      later.some(
        (l) => FINISHED.test(l) && !isBackgroundLine(l.replace(/^- /, '')) && ids.some((h) => namesToken(l, h.value)),
      )
    )
      done.add(line);
  }
  return done;
}

/**
 * A call that may have launched something: worth reading its result for (most calls are not). Read in the raw
 * arguments, where some encoders write `&` as `\u0026`.
 */
const MAY_LAUNCH = /&|\\u0026|nohup|setsid|disown|background|async|detach/i;

/**
 * The launches of `messages` not collected within them, oldest first, and which of the `carried` lines (an earlier
 * working state's launches, `backgroundLine`s) are still not collected: a later call naming a handle collects one,
 * and so does the harness saying it finished. `activities`: the calls' activities when the caller has them already.
 */
export function openLaunchesOf(
  messages: readonly ChatMessage[],
  carried: readonly string[] = [],
  activities: ReadonlyMap<ToolCall, ToolActivity> = activitiesOf(messages),
): { readonly carried: string[]; readonly launched: Launch[] } {
  const open: { launch: Launch; line?: string }[] = [];
  for (const line of carried) {
    const launch = launchOfLine(line);
    if (launch) open.push({ launch, line });
  }
  const resolved = resolveToolResultCallIds(messages);
  const calls = new Map<string, ToolCall>();
  const activityOf = (call: ToolCall): ToolActivity => activities.get(call) ?? toolActivity(call, {});
  const close = (done: (launch: Launch) => boolean) => {
    for (let k = open.length - 1; k >= 0; k--) if (done(open[k]!.launch)) open.splice(k, 1);
  };
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      for (const call of m.toolCalls ?? []) {
        calls.set(call.id, call);
        if (open.length > 0) close((launch) => collects(call, activityOf(call), launch));
      }
      return;
    }
    if (m.role !== 'user' && m.role !== 'tool') return;
    if (open.length > 0) close((launch) => tellsFinished(m, launch));
    if (m.role !== 'tool') return;
    const call = calls.get(m.toolCallId || resolved[i] || '');
    if (!call) return;
    const head = m.content.length > HEAD_CHARS ? m.content.slice(0, HEAD_CHARS) : m.content;
    if (!MAY_LAUNCH.test(call.arguments) && !(GOES_ON_WORD.test(head) && (GOES_ON.test(head) || OWN.test(head.trim()))))
      return;
    const activity = activityOf(call);
    const handles = launchHandles(activity, m);
    if (handles) open.push({ launch: { label: launchLabel(call, activity), handles } });
  });
  return {
    carried: open.flatMap((o) => (o.line !== undefined ? [o.line] : [])),
    launched: open.filter((o) => o.line === undefined).map((o) => o.launch),
  };
}

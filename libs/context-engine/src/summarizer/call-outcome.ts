import type { ChatMessage, ToolCall } from '../model/message';
import { handlesText, isSubAgentTool, launchHandles, launchLabel } from './background';
import { fileHeadingAbove, PLACE_IN_FILE } from './names';
import { keptFailureOf, prunedFailure, prunedKept } from './pruned-result';
import { flat, oneLine } from './text';
import {
  howTestFailed,
  MARKED_LINE,
  reasonUnder,
  SUREFIRE_VERDICT,
  TEST_VERDICT,
  testCountsOf,
  TESTS_FAILED,
  withLineUnder,
} from './test-report';
import { FRAME_LINE, nonEmptyLines, OUTPUT_LEAD, outputLines, unwrappedResult } from './harness-frame';
import {
  CI_VIEWING,
  LOG_SHOWING,
  parseArguments,
  programsOf,
  segmentsOf,
  showsOnly,
  type ToolActivity,
} from './tool-activity';
import { pageGist, webLookupGist } from './web-lookup';

/**
 * What a tool call did and how it ended, read from its arguments and its result: the line an in-turn digest
 * or a working state keeps of it. A failure is never reported as a success: the outcome comes from the result
 * (the provider's error flag, an error line, a non-zero exit code, failed tests), not from the call.
 */

/**
 * The lines that say something failed, one pattern per kind (matched case-insensitively, anywhere in the line unless
 * anchored); `ERROR_LINE` is any of them.
 */
const ERROR_LINES: readonly (readonly [kind: string, pattern: RegExp])[] = [
  ['a line that opens with the word', /^\s*(?:error|fatal|panic)\b/],
  [
    "an exception or error type (`TypeError: …`, `ValueError('…')`, Node's `[UnhandledPromiseRejection: …`; not a call of `triggerUncaughtException(`)",
    /^\s*\[?\w*(?:Error|Exception|Rejection)\b\s*(?::|\(['"])/,
  ],
  ["a Rust panic (`thread 'main' panicked at src/main.rs:4:5:`)", /^\s*thread '[^']*' panicked at\b/],
  [
    "Ruby's uncaught exception (`app.rb:3:in '<main>': undefined local variable or method 'x' (NameError)`)",
    /:\d+:in [`'].*\(\w*(?:Error|Exception)\w*\)\s*$/,
  ],
  [
    "a tool's refusal (make's `make: *** No rule to make target`, wget's `ERROR 404: Not Found.`, the AWS CLI's `An error occurred (AccessDenied)`, a resolver's `version solving failed`)",
    /^\s*make(?:\[\d+\])?: \*\*\* |\bERROR \d{3}: |^An error occurred \(\w+\) when calling\b|\bversion solving failed\b/,
  ],
  [
    "Windows' (PowerShell's error record `Get-Content : Cannot find path …`, not an HTTP header's `Set-Cookie: …`, `pyhton : The term 'pyhton' is not recognized as the name of a cmdlet`, cmd's `'x' is not recognized as an internal or external command`)",
    /^[A-Z][a-z]+-[A-Z]\w* : \S|^[A-Z][a-z]+-[A-Z]\w*: (?:Cannot|The |Access|A positional|Could not|Unable|Exception)\b|\bis not recognized as (?:the |a )?name of a cmdlet\b|\bis not recognized as an internal or external command\b/,
  ],
  ['a Python traceback', /Traceback \(most recent call last\)/],
  ["a compiler's `file:line: error:` (gcc, clang, javac, mypy)", /:\d+(?::\d+)?: (?:fatal )?error:/],
  [
    "a tool's own `name: error: …` (`collect2: error: …`, `clang: error: …`, argparse's `prog.py: error: …`, jq's `jq: error (at …)` and `jq: parse error: …`)",
    /^\s*[\w.+-]+: (?:fatal |parse )?error(?::| \()/,
  ],
  [
    "an interpreter's, named before its file and line (`lua: main.lua:3: attempt to call a nil value`, dash's `sh: 1: foo: not found`)",
    /^\s*(?!(?:info|debug|trace|note|notice|log)\b)[\w.+-]+: \S+\.\w+:\d+: \S|^\s*(?:\/bin\/)?(?:da|ba|k|z)?sh: \d+: .*: not found$/,
  ],
  [
    "a run's uncaught error in its language's words (.NET's and Dart's `Unhandled exception.`, Elixir's `** (ArithmeticError) …`, Perl's `Can't locate JSON.pm in @INC … line 2.`, SQLite's `Parse error:` and `Runtime error near line 1:`, `python -m app`'s `/usr/bin/python: No module named app`)",
    /^\s*Unhandled exception\b|^\s*\*\* \((?:[A-Z][\w.]*|exit|throw)\) \S|^Can't \w+ .* line \d+\.$|\bcompilation aborted\b|^\s*(?:Parse|Runtime|Syntax|Type|Compile|Compilation|Fatal|Internal|Linker) error\b(?: near [^:]*)?:|^\S*python[\d.]*: No module named \S/,
  ],
  [
    "a service's or a remote's refusal (Docker's `Error response from daemon`, the GitHub CLI's `GraphQL: …` and `(HTTP 404)`, apt's `E: Unable to locate package`, redis-cli's `(error) ERR …`, systemd's `Job for app.service failed`, ssh's `ssh: connect to host … Connection refused`)",
    /\bError response from daemon\b|(?:^|: )GraphQL: \S|\(HTTP [45]\d\d\)\s*$|^\s*HTTP [45]\d\d: |^E: [A-Z]|^\(error\) |^Job for \S+ failed\b|^\s*(?!(?:info|debug|trace|note|notice|log)\b)[\w.+-]+: .*\b(?:Connection refused|Could not resolve host(?:name)?|Name or service not known|No route to host|Network is unreachable|Connection timed out)\b/,
  ],
  [
    "a linker's (`undefined reference to 'foo'`, `Undefined symbols for architecture arm64:`)",
    /\bundefined reference to\b|^\s*Undefined symbols for architecture\b/,
  ],
  ["Go's `main.go:5:2: undefined: foo`", /^\s*\S+\.go:\d+:\d+: \S/],
  [
    "Kotlin's `e: file:///…/Main.kt:3:5 Unresolved reference: foo` (older: `e: /…/Main.kt: (3, 5): …`)",
    /^\s*e: \S+\.kts?(?::\d+:\d+|: \(\d+, \d+\))/,
  ],
  [
    "PHP's `PHP Fatal error:  Uncaught Exception: …` (without the `PHP ` prefix, the first pattern's)",
    /^\s*PHP (?:Fatal|Parse) error:/,
  ],
  [
    'a JVM\'s uncaught exception (`Exception in thread "main" java.lang.NullPointerException: …`)',
    /^\s*Exception in thread "[^"]*" \S/,
  ],
  [
    'a coded compiler error (`error CS1061`, `error TS2304`, `error NUnit1032`)',
    /\berror [A-Z][A-Za-z]{0,11}\d{2,6}\b/,
  ],
  [
    "a closing count (tsc's `Found 3 errors`, pyright's `1 error, 0 warnings, 0 informations`)",
    /^\s*Found [1-9]\d* errors?\b|^\s*[1-9]\d* errors?, \d+ warnings?\b/,
  ],
  [
    "a checker's diagnostic (pyright's `a.py:3:12 - error: …`, a coded one of ruff, flake8 or pycodestyle: `a.py:1:8: F401 …`)",
    /^\s*\S+:\d+:\d+ - error\b|^\s*\S+\.\w+:\d+:\d+: [A-Z]{1,3}\d{2,4}\b/,
  ],
  [
    "a formatter's check (black's `would reformat a.py`, ruff's `Would reformat: a.py`, Prettier's `Code style issues found`)",
    /^would reformat \S|^Would reformat: \S|\bCode style issues found\b/,
  ],
  ["a build tool's verdict (Gradle's `BUILD FAILED`, Maven's `[ERROR]`)", /\bBUILD FAIL(?:ED|URE)\b|^\s*\[ERROR\]/],
  [
    "a test runner's verdict (`FAIL src/a.test.ts`, `FAILED tests/test_a.py::…`, Gradle's `CalcTest > testAdd() FAILED`; not a count of none: `FAILED: 0`)",
    /^\s*FAIL(?:ED)?\b(?!:?\s*0\b)|^\S.* > .+ FAILED\s*$/,
  ],
  ["a linter's or compiler's mark (biome's or miette's `×`, eslint's `✖`)", /^\s*[×✖✗✘] \S/],
  ['an eslint row (`12:5  error  …`)', /^\s*\d+:\d+\s+error\s/],
  ["npm's", /npm ERR!|^\s*npm error\b/],
  ["a shell's", /command not found|No such file or directory|Permission denied|Segmentation fault|syntax error/],
  ['a process the kernel killed', /^\s*Killed\s*$/],
  ["git's merge conflict", /^CONFLICT \(|\bAutomatic merge failed\b/],
  ["curl's (`curl: (7) Failed to connect`)", /^curl: \(\d+\)/],
  [
    'a lookup that found nothing (`Agent type \'Explorer\' not found`, `Cell with ID "abc" not found in notebook`)',
    /\bcould not find\b|\bnot found in file\b|^[A-Z][\w ]{0,30} (?:'[^']*'|"[^"]*") not found\b/,
  ],
  [
    "a service's answer that the call failed (axios's `Request failed with status code 404`, `MCP error -32603: …`, `API Error: 429 …`, Claude Code's `Permission to use Bash … has been denied.`)",
    /\bfailed with status(?: code)? [45]\d\d\b|^\s*(?:MCP|API) error\b|^\s*Permission to use \S.* has been denied\b|\bbut you haven't granted it yet\b/,
  ],
  [
    "an editing tool's refusal (Codex's `apply_patch verification failed: Failed to find expected lines`, OpenCode's `oldString found multiple times`, Goose's `'old_str' must appear exactly once`, Cursor's `The apply model made no changes to the file`, OpenHands' `No replacement was performed`)",
    /\bverification failed\b|^\s*Failed to find expected lines\b|\bfound multiple times\b|\bmust appear exactly once\b|\bmade no changes to the file\b|^\s*No replacement was performed\b/,
  ],
  ["Claude Code's wrapper of a refused call", /^\s*<tool_use_error>/],
];
const ERROR_LINE = new RegExp(ERROR_LINES.map(([, pattern]) => pattern.source).join('|'), 'i');
/**
 * A warning, not a failure, whatever words follow (pwntools' `Warning: _curses.error: setupterm: could not find
 * terminfo database` before every run in a container; `warning: unused variable`; `UserWarning: …`).
 */
const WARNING_LINE = /^\s*(?:[\w.]*Warning|WARN(?:ING)?)\b|^ERROR: pip's dependency resolver does not currently/i;
/**
 * A harness's line that a command was stopped before it ended (pi's `Command aborted`, `Command timed out after 2m
 * 0.0s`, `Command was cancelled by user`, Claude Code's `[Request interrupted by user for tool use]`, `aborted by
 * user`): it did not finish, whatever it printed before — last, or first (Gemini CLI's `Command was cancelled by
 * user before it could complete. Below is the output before it was cancelled:`).
 */
const STOPPED_LINE =
  /^\s*(?:Command (?:was )?(?:aborted|cancell?ed|killed|interrupted|timed out)\b|\[Request interrupted by user\b|(?:was )?(?:aborted|cancell?ed|interrupted|stopped) by (?:the )?user\b)/i;
/**
 * A closing line that only says that something failed: a package manager's report that a script it ran failed (`npm
 * error Lifecycle script "check" failed`, …), a build's verdict (Gradle's `BUILD FAILED in 3s`, MSBuild's `Build
 * failed with 1 error(s) and 1 warning(s) in 10.4s`, tsc's `Found 3 errors`), Docker's report that a build step's
 * command failed (`ERROR: failed to solve: process "/bin/sh -c npm run build" did not complete successfully`), make's
 * `make: *** [all] Error 2`. What failed is earlier in the output; a compiler driver's report that its linker failed
 * (`collect2: error: ld returned 1 exit status`, `clang: error: linker command failed`): the linker's own line before
 * it tells what it missed.
 */
const WRAPPER_LINE =
  /^\s*(?:make(?:\[\d+\])?: \*\*\* \[.*\] Error \d+|[1-9]\d* errors?, \d+ warnings?\b|collect2: error: ld returned|clang(?:\+\+)?: error: linker command failed|npm (?:ERR!|error)|ERR_PNPM_|error Command failed with exit code|ELIFECYCLE|Found [1-9]\d* errors?\b|(?:#\d+ )?ERROR: (?:failed to solve|process ".*" did not complete successfully))|\bBUILD FAIL(?:ED|URE)\b/i;
/** npm's lines that give a field of its error, not the error (`npm ERR! code ERESOLVE`, `npm error errno 1`). */
const NPM_FIELD = /^\s*npm (?:ERR!|error)(?:\s*$|\s+(?:code|errno|syscall|path|cwd|signal)\s)/i;
const EXIT_LINE = /(?:exited with|exit) (?:code|status)[:\s]+([1-9]\d*)/i;
/**
 * A harness's line of a command's exit status, the whole line (`Command exited with code 2`, `[Command finished with
 * exit code 1]`, `Exit code: 137 (killed)`); not one a log or a CI run shows (`worker exited with code 1`, `X Process
 * completed with exit code 1.`).
 */
const HARNESS_EXIT_LINE =
  /^\s*(?:\[|Error: )?(?:(?:The )?(?:Command|Process) (?:exited|finished|completed|failed) with (?:exit )?code|Exit (?:code|status)):?\s*([1-9]\d*)\b.{0,40}$/i;
/** A result that only says a call went well. */
const SAYS_OK = /^(?:ok|okay|done|success(?:ful(?:ly)?)?|true|completed?)[.!]?$/i;
/**
 * git's line for a commit it made: `[main 1a2b3c4] Fix the parser`, `[main (root-commit) 1a2b3c4] Init`, under a
 * harness's `Output: ` lead too (the line is the capture).
 */
const COMMIT_LINE = /^(?:(?:Output|Stdout|Stderr): )?(\[[\w./-]+(?: \([\w -]+\))? [0-9a-f]{7,40}\] \S.*)$/m;
/**
 * Commands for which exit status 1 means "nothing found" or "no", not failure: searches, comparisons, tests, and
 * probes of what runs or exists (`lsof -i :9000`, `pgrep node`, `which rg`, `command -v uv`).
 */
/** A search of files' contents: what it prints are lines of the files. */
const FILE_SEARCH = /^\s*(?:grep|egrep|fgrep|rg|ag|ack|git grep)\b/;
const SEARCH_COMMAND = new RegExp(
  `${FILE_SEARCH.source}|^\\s*(?:find|diff|cmp|test|git diff|lsof|pgrep|pidof|which|command -v|type)\\b|^\\s*\\[\\[?\\s`,
);
/** `xargs` running a search: its 123 is a run of the search that found nothing (or failed). */
const XARGS_SEARCH = /^\s*xargs\b(?:\s+-\S+)*\s+(?:grep|egrep|fgrep|rg)\b/;

/**
 * Whether an exit status is a search's or probe's "none": exit 1 of one, first in the command or last in its pipeline
 * (a pipeline's status is its last command's: `find … | grep x`), or 123 of `… | xargs grep x`.
 */
function answersNone(command: string, code: number): boolean {
  const last = command.split(/\|(?!\|)/).at(-1) ?? command;
  return code === 1
    ? SEARCH_COMMAND.test(command) || SEARCH_COMMAND.test(last)
    : code === 123 && XARGS_SEARCH.test(last);
}

/**
 * A program's complaint: in its own name or a shell's (`ls: cannot access 'x'`, `bash: line 1: foo: command not
 * found`), git's (`fatal: …`), or in the words the system gives (`file`'s `a/*: cannot open \`a/*' (No such file or
 * directory)`) on a line that is no match a search found (`src/a.py:12: …`), not of git.
 */
function complaintOf(line: string, programs: readonly string[]): boolean {
  const name = /^([\w.+-]+): /.exec(line)?.[1];
  if (name !== undefined && (programs.includes(name) || /^-?(?:ba|z|da)?sh$/.test(name))) return true;
  if (/^(?:fatal|error): /.test(line)) return true;
  // (A log viewer's own: the daemon's or the cluster's refusal, `Error response from daemon: No such container: web`.)
  if (/^(?:Error response from daemon\b|Error from server\b|No journal files were found\b)/.test(line)) return true;
  // (git's own words are its complaints: what else it shows is the repository's, a commit's subject say.)
  return !programs.every((p) => p === 'git') && SYSTEM_COMPLAINT.test(line) && !/^\S+:\d+[:-]/.test(line);
}
const SYSTEM_COMPLAINT =
  /\b(?:No such file or directory|Permission denied|cannot open|cannot access|command not found|Is a directory|Not a directory)\b/;
/** A line that only rules off parts of an output (`-----`, `=====`). */
const RULE_LINE = /^\s*([-=_*#~])\1{2,}\s*$/;
/**
 * A file tool's refusal to read, all its short result says (`File not found: /w/a.ts`, `Path is a directory, not a
 * file: src`, `The path /w/a.py does not exist.`): a read tool's longer result is the file's contents, whatever they say.
 */
const READ_REFUSAL =
  /^\s*(?:Error\b|File not found\b|File does not exist\b|(?:The )?(?:path|file) \S+ (?:does not exist|not found)\b|Path is a directory\b|No such file or directory\b|ENOENT\b|EISDIR\b|EACCES\b|Permission denied\b|(?:Cannot|Could not|Unable to|Failed to) (?:read|open|find)\b)/i;
const readRefused = (lines: readonly string[]): string | undefined =>
  lines.length <= 2 && READ_REFUSAL.test(lines[0] ?? '') ? lines[0]!.trim() : undefined;

/**
 * What a tool's JSON answer says went wrong, when it says it failed: `{"success": false, "error": "…"}`, Slack's `{"ok":
 * false, "error": "channel_not_found"}`, an MCP result's `{"isError": true, "content": [{"text": "…"}]}`, JSON-RPC's
 * `{"error": {"code": -32602, "message": "…"}}`, `{"status": "error", "message": "…"}`. Undefined for any other text.
 */
const SAYS_FAILED_JSON =
  /"(?:success|ok)"\s*:\s*false|"isError"\s*:\s*true|"status"\s*:\s*"(?:error|fail)|"error"\s*:\s*[{"]/i;
function jsonFailureOf(text: string): string | undefined {
  // (Parsed only when it may say so: most JSON answers are successes, and this runs for every tool's result.)
  if (!/^\s*\{/.test(text) || text.length > 100_000 || !SAYS_FAILED_JSON.test(text)) return undefined;
  const trimmed = text.trim();
  let v: unknown;
  try {
    v = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const error = o['error'];
  const failed =
    o['success'] === false ||
    o['ok'] === false ||
    o['isError'] === true ||
    (typeof o['status'] === 'string' && /^(?:error|fail(?:ed|ure)?)$/i.test(o['status'])) ||
    (typeof error === 'string' && error.trim() !== '') ||
    (typeof error === 'object' && error !== null && !Array.isArray(error) && Object.keys(error).length > 0);
  if (!failed) return undefined;
  const texts = Array.isArray(o['content'])
    ? (o['content'] as unknown[]).map((c) => (c as Record<string, unknown> | null)?.['text'])
    : [];
  const said = [
    typeof error === 'string' ? error : (error as Record<string, unknown> | null)?.['message'],
    o['message'],
    ...texts,
  ].find((x): x is string => typeof x === 'string' && x.trim() !== '');
  return flat(said ?? trimmed).slice(0, 400);
}

/** A line of an error's shape (not a harness's frame, not a warning). */
const isErrorLine = (l: string): boolean => ERROR_LINE.test(l) && !FRAME_LINE.test(l) && !WARNING_LINE.test(l);

/** The line that shows a tool result failed, or undefined when it looks like a success. */
export function errorLineOf(wrapped: ChatMessage, activity: ToolActivity | undefined): string | undefined {
  const result = unwrappedResult(wrapped);
  // A pruned result's failure as its error line ("error: " is how an outcome says it, not part of the line).
  const pruned = prunedFailure(result.content, result.isError);
  if (pruned !== null) return pruned?.replace(/^error: /, '');
  // (Gemini CLI leads the first line of output with `Output: `.)
  const lines = nonEmptyLines(result.content).map((l) => l.replace(OUTPUT_LEAD, ''));
  const kept = keptFailureOf(lines[lines.length - 1]);
  if (kept !== undefined) return kept;
  // A tool's JSON answer that says it failed (an MCP server's, an API's; not a command's output, nor a file read).
  const readsFile = (activity?.files.length ?? 0) > 0 && activity!.files.every((f) => f.action === 'read');
  const refusedJson = activity?.command === undefined && !readsFile ? jsonFailureOf(result.content) : undefined;
  if (refusedJson !== undefined) return refusedJson;
  // `failed`: the result is known to have failed (flagged, a non-zero exit), so its error line may be anywhere.
  // (Not the harness's frame: Gemini CLI's `Error: (none)` after every command says nothing failed.)
  // What the command printed, without the lines a harness frames it with (OpenHands' four after each output).
  // (Read once, and only when asked: most results are never searched.)
  let printed: string[] | undefined;
  const own = (): string[] => (printed ??= outputLines(result.content));
  const pick = (failed = false): string | undefined => {
    // The output's own first and last lines.
    // (npm's field lines, `npm ERR! code ERESOLVE`, only when no other line says more.)
    const ends = [...own().slice(0, 5), ...own().slice(-3)];
    const first = ends.find((l) => isErrorLine(l) && !NPM_FIELD.test(l)) ?? ends.find(isErrorLine);
    if (first !== undefined && !WRAPPER_LINE.test(first)) return first;
    if (first === undefined && !failed) return undefined;
    // A package manager's closing lines only say that a script failed, and a workspace run's closing lines may be
    // another package's success: what failed is earlier in the output.
    const body = lines.slice(0, 10_000);
    return body.find((l) => isErrorLine(l) && !WRAPPER_LINE.test(l)) ?? first ?? body.find(isErrorLine);
  };
  // A file's contents are data: an "Error:" inside a source file is not a failed read.
  const readsOnly =
    activity !== undefined &&
    activity.command === undefined &&
    activity.files.length > 0 &&
    activity.files.every((f) => f.action === 'read');
  // A command stopped before it ended says so last, after whatever it printed (a debugger's complaint, say), or first.
  const stopped = readsOnly ? undefined : [own().at(-1), own()[0]].find((l) => l !== undefined && STOPPED_LINE.test(l));
  if (stopped !== undefined) return stopped.trim();
  if (readsOnly && !result.isError) return readRefused(lines);
  const shows = onlyShows(activity);
  const exit = exitCodeOf(lines, shows);
  // A search that found nothing exits 1, which a harness may flag as an error (pi, Claude Code): no failure unless
  // it printed one.
  const none = exit !== undefined && activity?.command !== undefined && answersNone(activity.command, exit.code);
  // What a command that only shows things printed is data: it failed when the harness or its status says so, or when
  // it complains in its own name.
  if (!result.isError && exit === undefined && shows) {
    const programs = programsOf(activity!.command!);
    return own()
      .find((l) => complaintOf(l.trim(), programs))
      ?.trim();
  }
  // A CI run's report that exits with the run's status (`gh run view --exit-status`): its failed step says what failed.
  if ((result.isError || (exit !== undefined && !none)) && viewsCi(activity)) {
    const shown = shownError(activity, own());
    if (shown !== undefined) return shown;
  }
  // Flagged with no line of error shape: its status (the line printed last then tells), else a command's last line
  // (an npm script's first is its banner), else a tool's first (its message).
  if (result.isError)
    return none
      ? pick()
      : (pick(true) ??
          exit?.line ??
          (activity?.command !== undefined ? own().at(-1) : undefined) ??
          lines[0] ??
          '(error)');
  if (exit !== undefined && !none) return pick(true) ?? exit.line;
  // A test run whose counts say every test passed succeeded, whatever its tests logged (jest's `console.error`), unless
  // a suite failed to run (jest's `Test Suites: 1 failed`).
  if (activity?.command !== undefined) {
    const counts = testCountsOf(result.content);
    if (counts !== undefined && !TESTS_FAILED.test(counts) && !SUITES_FAILED.test(result.content)) return undefined;
  }
  return pick();
}
const SUITES_FAILED = /^\s*Test (?:Suites|Files):?\s+[1-9]\d* failed\b/m;

/**
 * What an exit status says beyond a failure: `timeout`'s 124, a signal's 128 + n (a harness's time limit sends
 * SIGTERM: a server killed after its minute read as crashed).
 */
const EXIT_MEANING: Readonly<Record<number, string>> = {
  124: 'timed out',
  130: 'interrupted: SIGINT',
  137: 'killed: SIGKILL',
  143: 'terminated: SIGTERM',
};
const exitWords = (code: number): string => `exit ${code}${EXIT_MEANING[code] ? ` (${EXIT_MEANING[code]})` : ''}`;

/**
 * A non-zero exit status where agents' shells report it: in the last lines (`Command exited with code 2`, OpenHands'
 * `[Command finished with exit code 1]`, Gemini CLI's `Exit Code: 1` before its signal and process lines) or in the
 * first (Codex's `Exit code: 1` above the output).
 */
function exitCodeOf(lines: readonly string[], shows = false): { code: number; line: string } | undefined {
  for (const l of [...lines.slice(-5), ...lines.slice(0, 3)]) {
    const m = shows ? HARNESS_EXIT_LINE.exec(l) && EXIT_LINE.exec(l) : EXIT_LINE.exec(l);
    if (m) return { code: Number(m[1]), line: m[0] };
  }
  return undefined;
}

const showing = new WeakMap<ToolActivity, boolean>();
/**
 * A shell command that only shows what is there (`showsOnly`), computed once per call: what it printed is data, its
 * exit status only the harness's line of it.
 */
function onlyShows(activity: ToolActivity | undefined): boolean {
  if (activity?.command === undefined) return false;
  let shows = showing.get(activity);
  if (shows === undefined) showing.set(activity, (shows = showsOnly(activity.script ?? '')));
  return shows;
}

/**
 * The line of a failed result that says what went wrong: a Python traceback's is its last, the exception and its
 * message (`AttributeError: …`), not its `Traceback (most recent call last):` opening; a test runner's bare verdict
 * (`FAIL src/parse.test.ts`, Go's `FAIL`, cargo's `error: test failed`) with the failing test and how it failed; an
 * announcement with the list under its `ERRORS:` header (SWE-agent's refused edit: `Your proposed edit has
 * introduced new syntax error(s): E999 IndentationError: unexpected indent`); else `errorLine` itself. Followed by
 * where it was raised when the line does not say and the output has a stack or traceback (`… (at app/config.py:12)`).
 */
export function tellingErrorLine(result: ChatMessage, errorLine: string): string {
  const told = tellingLine(result, errorLine);
  // Where it was raised, when the line does not say (a compiler's `file:line:` does).
  if (placed(told)) return told;
  // (Its innermost frames are near its end: the last 400 lines of its last 50,000 characters are read, as printed:
  // without a harness's `Stderr: ` lead.)
  const site = raisedAt(outputLines(unwrappedResult(result).content.slice(-50_000)).slice(-400));
  return site === undefined ? told : `${told}${siteSuffix(site)}`;
}

/** A line that already names a place in a file (`src/a.ts:12`, `a.cs(5,13)`, `line 12`). */
const placed = (line: string): boolean => PLACE_IN_FILE.test(line) || /\bline \d+/.test(line);
/** How an error line names where it was raised: ` (at app/config.py:12)`, stripped back by `withoutSite`. */
const siteSuffix = (site: string): string => ` (at ${site})`;
const SITE_SUFFIX = / \(at [^()]+:\d+\)$/;
/** An error line without the place tellingErrorLine added (what the same error elsewhere is matched by). */
export const withoutSite = (line: string): string => line.replace(SITE_SUFFIX, '');
/** An error line at most `max` characters, on one line: the place it was raised goes first, then the message's end. */
export function clipError(line: string, max: number): string {
  const flatLine = flat(line);
  if (flatLine.length <= max) return flatLine;
  return oneLine(withoutSite(flatLine), max);
}

/**
 * A stack frame's place, and which frame is the innermost: Python's `File "…", line N` (the last), a JavaScript `at f
 * (…:N:M)`, the JVM's `at a.B.f(B.java:N)`, Go's tab-indented `…/x.go:N` (the first).
 */
const FRAMES: readonly { readonly frame: RegExp; readonly innermost: 'last' | 'first' }[] = [
  { frame: /^\s*File "([^"]+)", line (\d+)/, innermost: 'last' },
  { frame: /^\s+at (?:.*? \()?((?:[A-Za-z]:)?[^():\s]+\.[A-Za-z]\w*):(\d+):\d+\)?\s*$/, innermost: 'first' },
  { frame: /^\s+at [\w.$<>]+\(([\w$]+\.(?:java|kt|scala)):(\d+)\)/, innermost: 'first' },
  { frame: /^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?\s*$/, innermost: 'first' },
];
/** A frame of the language's or a dependency's code, not the project's. */
const LIBRARY_FRAME =
  /site-packages|dist-packages|\/lib\/python\d|<frozen |node_modules|^node:|^internal\/|\/go\/src\/|\/pkg\/mod\/|^(?:java|javax|jdk|sun|kotlin|scala)\./;

/**
 * A file as a place names it: its name and the directory it is in, when that is short (`app/config.py`, not
 * `/home/u/work/repo/app/config.py`): the files seen and touched list the whole path; the error line's room is for
 * the error.
 */
function shortPlace(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  const name = parts.at(-1) ?? path;
  const dir = parts.at(-2);
  return dir !== undefined && dir.length <= 20 ? `${dir}/${name}` : name;
}

/**
 * The innermost frame of the project's own code in a stack trace or traceback (`app/config.py:12`, see
 * `shortPlace`); undefined when the output has none.
 */
function raisedAt(lines: readonly string[]): string | undefined {
  for (const { frame, innermost } of FRAMES) {
    let found: string | undefined;
    for (const line of lines) {
      const m = frame.exec(line);
      if (!m || LIBRARY_FRAME.test(m[1]!) || LIBRARY_FRAME.test(line.trim().replace(/^at /, ''))) continue;
      found = `${shortPlace(m[1]!)}:${m[2]}`;
      if (innermost === 'first') return found;
    }
    if (found !== undefined) return found;
  }
  return undefined;
}

function tellingLine(result: ChatMessage, errorLine: string): string {
  // Only the exit status tells (the error line is the status itself, as errorLineOf gives it): the line the command
  // printed last says what failed (`make: *** [all] Error 2`); a test runner's counts, the test that failed and how.
  const status = EXIT_LINE.exec(errorLine);
  if (status?.[0] === errorLine.trim()) {
    const own = outputLines(unwrappedResult(result).content);
    const printed = [...own]
      .reverse()
      .find((l) => !EXIT_LINE.test(l) && /\w/.test(l))
      ?.trim();
    const counts = testCountsOf(own.join('\n'));
    const how = counts !== undefined && TESTS_FAILED.test(counts) ? howTestFailed(own) : undefined;
    const meaning = EXIT_MEANING[Number(status[1])];
    return how ?? printed ?? (meaning ? `${errorLine} (${meaning})` : errorLine);
  }
  // A Rust panic says its message on the line under it (`thread 'main' panicked at src/main.rs:4:5:`).
  if (/\bpanicked at\b.*:\s*$/.test(errorLine)) {
    const printed = outputLines(unwrappedResult(result).content);
    const at = printed.findIndex((l) => flat(l) === flat(errorLine));
    return at < 0 ? errorLine : withLineUnder(printed, at, Infinity);
  }
  const traceback = /Traceback \(most recent call last\)/.test(errorLine);
  // A heading over what failed (Maven's `[ERROR] COMPILATION ERROR :`, RSpec's `Failed examples:`): it, then the line
  // under it. A linter's problem line under its file's heading (ESLint's `stylish`): the file, then the line.
  const heading = !traceback && HEADING_LINE.test(errorLine) && !ERRORS_HEADER.test(errorLine);
  const placed = UNDER_HEADING.test(errorLine);
  const verdict = !heading && TEST_VERDICT.test(errorLine);
  const marked = !heading && !verdict && MARKED_LINE.test(errorLine);
  const listed = !traceback && !heading && !verdict && !marked && ERRORS_HEADER.test(result.content);
  if (!traceback && !heading && !placed && !verdict && !marked && !listed) return errorLine;
  // What the command printed (a JSON-wrapped output's own lines), without the harness's frame: Gemini CLI's `Error:
  // (none)` after a traceback or a failed test is no exception of it.
  const lines = outputLines(unwrappedResult(result).content).slice(0, 10_000);
  if (traceback)
    return (
      [...lines]
        .reverse()
        .find((l) => EXCEPTION_LINE.test(l))
        ?.trim() ?? errorLine
    );
  const head = flat(errorLine);
  if (placed) {
    const file = fileHeadingAbove(
      lines,
      lines.findIndex((l) => flat(l) === head),
    );
    if (file !== undefined) return `${file} ${errorLine.trim()}`;
    if (!listed) return errorLine;
  }
  const how = verdict
    ? howTestFailed(lines, head)
    : marked
      ? reasonUnder(lines, head)
      : heading
        ? lineUnder(lines, head)?.trim()
        : listedErrors(lines);
  if (how === undefined || head.includes(how)) return errorLine;
  // (An announcement's first sentence: `Your proposed edit has introduced new syntax error(s).` Surefire's verdict
  // without its counts and time: `FAILURE in com.example.CalcTest`.)
  const said = listed ? head.replace(/\.\s.*$/, '') : verdict ? head.replace(SUREFIRE_VERDICT, '$1 in $2') : head;
  return `${said.replace(/\s*:$/, '')}: ${how}`;
}

/** The line under the one that reads `head` (flat), if any. */
function lineUnder(lines: readonly string[], head: string): string | undefined {
  const at = lines.findIndex((l) => flat(l) === head);
  return at < 0 ? undefined : lines[at + 1];
}

/** A line that only heads what follows (`Failed examples:`, `[ERROR] COMPILATION ERROR :`). */
const HEADING_LINE = /^[^:]{1,60}:\s*$/;
/** A problem line that names no file, only a place (`  9:5  error  'z' is not defined  no-undef`). */
const UNDER_HEADING = /^\s*\d+:\d+\s+error\b/;

/** A header over a list of errors (SWE-agent's linter: `ERRORS:` then `- E999 IndentationError: …` items). */
const ERRORS_HEADER = /^\s*ERRORS?:\s*$/im;

/** The first two items (and how many more) of the list under an `ERRORS:` header. */
function listedErrors(lines: readonly string[]): string | undefined {
  const items: string[] = [];
  for (let i = lines.findIndex((l) => ERRORS_HEADER.test(l)) + 1; i > 0 && i < lines.length; i++) {
    if (!/^\s*- \S/.test(lines[i]!)) break;
    items.push(lines[i]!.replace(/^\s*- /, '').trim());
  }
  // (A header over one message, not a list: OpenHands' editor `ERROR:` then `Parameter \`old_str\` is required …`.)
  if (items.length === 0) return lines[lines.findIndex((l) => ERRORS_HEADER.test(l)) + 1]?.trim() || undefined;
  return `${items.slice(0, 2).join('; ')}${items.length > 2 ? ` (+${items.length - 2} more)` : ''}`;
}

const EXCEPTION_LINE = /^\s*[\w.]*(?:Error|Exception)\b/;

export interface CallOutcome {
  readonly ok: boolean;
  /** `ok`, `error: …`, `exit 2: …`, `tests 2 failed, 10 passed`, `120 lines`, `ok: background agentId a9cad17`, `no result`. */
  readonly text: string;
}

/** Whether an outcome's text (as `callOutcome` words it, e.g. read back from a summary) tells of a success. */
export const outcomeTextOk = (text: string): boolean =>
  /^(?:ok\b|no match\b|\d+ lines$)/.test(text) || (text.startsWith('tests ') && !TESTS_FAILED.test(text));

/** Programs that print what a file holds (`cat app.log`, `head -50 out.txt`). */
const SHOWS_CONTENTS = /^(?:cat|head|tail|less|more|nl|bat)$/;
/** A file a program or a service writes as it runs: a log, its output (`server.log`, `logs/a`, `nohup.out`, `out.txt`). */
const RUN_OUTPUT = /(?:^|[/._-])(?:logs?|out|err|output|stdout|stderr|nohup)(?:[/._-]|$)|\.(?:log|out|err|txt)$/i;

/**
 * The error a log or a run's output a command showed holds, its latest (`tail server.log` → `Error: listen EADDRINUSE
 * …`): the command did not fail, and what it showed is what a later step acts on. Not of a search (its matches are
 * code), nor of a source file or a document (an error quoted in it).
 */
function shownError(activity: ToolActivity | undefined, printed: readonly string[]): string | undefined {
  const command = activity?.command;
  if (command === undefined || !onlyShows(activity) || FILE_SEARCH.test(command)) return undefined;
  // A service's log (`docker logs web`), or a file's contents: a log or a run's output, or the end of a file (`tail`);
  // not a source file or a document an error is quoted in.
  const programs = programsOf(command);
  const log = segmentsOf(command).some((part) => LOG_SHOWING.test(part.trim()));
  if (!log && !programs.some((p) => SHOWS_CONTENTS.test(p))) return undefined;
  if (!log && !programs.includes('tail') && !(activity?.files ?? []).some((f) => RUN_OUTPUT.test(f.path)))
    return undefined;
  // A CI run's report or log: gh's mark of a failed job, step or check, its log lines without their lead.
  const ci = log && viewsCi(activity);
  // The latest, read from the end; not a closing line that only says something failed (`collect2: error: ld
  // returned 1`, `worker exited with code 1`: the line before it tells).
  let wrapper: string | undefined;
  for (let i = printed.length - 1; i >= 0; i--) {
    let line = printed[i]!;
    let marked = false;
    if (ci) {
      line = line.replace(CI_LOG_LEAD, '');
      const failed = CI_FAILED_MARK.exec(line);
      if (failed) [line, marked] = [`failed: ${failed[1]}`, true];
    }
    const exited = log && EXIT_LINE.test(line);
    if (!marked && !exited && !isErrorLine(line)) continue;
    if (!exited && !WRAPPER_LINE.test(line)) return line.trim();
    wrapper ??= line.trim();
  }
  return wrapper;
}
/**
 * Whether a command fetches a page (`curl -s localhost:3000/`, `wget -qO- …`, `http :8000/`), and whether it sends
 * something with its request (`curl -d …`, `-F file=@a.pl`, `-X POST`, `wget --post-data`, `http POST …`).
 */
function fetchOf(command: string): 'fetched' | 'sent' | undefined {
  const fetching = segmentsOf(command)
    .map((part) => part.trim())
    .find((part) => /^(?:curl|wget|http|https|xh|lynx|w3m)\b/.test(part));
  if (fetching === undefined) return undefined;
  return SENDS.test(` ${fetching}`) ? 'sent' : 'fetched';
}
const SENDS =
  /\s(?:-[dFT]|--data\S*|--form|--json|--upload-file|--post-(?:data|file)|-X\s*(?:POST|PUT|PATCH|DELETE)|(?:POST|PUT|PATCH|DELETE)\s)/;

/** A command that shows a CI run (`gh run view 123`, `gh pr checks`, `glab ci view`). */
const viewsCi = (activity: ToolActivity | undefined): boolean =>
  onlyShows(activity) && segmentsOf(activity!.command!).some((part) => CI_VIEWING.test(part.trim()));
/** gh's mark of a failed job, step or check (`X Run npm test`, `X  test  1m2s  https://…`). */
const CI_FAILED_MARK = /^\s*X\s+(\S.*)$/;
/** A CI log line's lead: gh's job, step and time (`test⇥Run npm test⇥2024-01-01T10:00:00.12Z `), Actions' `##[error]`. */
const CI_LOG_LEAD = /^[^\t]*\t[^\t]*\t\d{4}-\d\d-\d\dT[\d:.]+Z\s*|^\s*##\[error\]/;

/** The outcome of one call from its result (undefined: not answered); `errorLine` when the caller has it already. */
export function callOutcome(
  activity: ToolActivity | undefined,
  wrapped: ChatMessage | undefined,
  errorLine: string | undefined = wrapped && errorLineOf(wrapped, activity),
): CallOutcome {
  if (!wrapped) return { ok: false, text: 'no result' };
  const result = unwrappedResult(wrapped);
  const pruned = prunedFailure(result.content, result.isError);
  if (pruned !== null) {
    const commit = pruned === undefined ? commitLineOf(activity, result) : undefined;
    return { ok: pruned === undefined, text: pruned ?? (commit ? `ok: ${oneLine(commit, 60)}` : 'ok') };
  }
  const lines = nonEmptyLines(result.content);
  const tests = activity?.command !== undefined ? testCountsOf(result.content) : undefined;
  const error = errorLine === undefined ? undefined : tellingErrorLine(result, errorLine);
  if (error !== undefined) {
    const exit = exitCodeOf(lines, onlyShows(activity));
    // Nothing but the exit status (tellingErrorLine gives the line the command printed last when there is one).
    // (Or the status with what it means: `Exit code: 143 (terminated: SIGTERM)`.)
    if (exit && (error === exit.line || error.startsWith(`${exit.line} (`)))
      return { ok: false, text: `${exitWords(exit.code)}${tests ? ` (tests ${tests})` : ''}` };
    // (A line that says `error: ` itself is not said twice: clippy's `error: this \`if\` has identical blocks`.)
    const head =
      exit && !error.includes(exit.line) ? `${exitWords(exit.code)}: ` : /^error: /.test(error) ? '' : 'error: ';
    return { ok: false, text: `${head}${clipError(error, 140)}${tests ? ` (tests ${tests})` : ''}` };
  }
  if (tests) {
    // Only the counts say it failed (pytest without its short summary): the test that failed and how, when it says.
    const failed = TESTS_FAILED.test(tests);
    const how = failed ? howTestFailed(outputLines(result.content)) : undefined;
    return { ok: !failed, text: `tests ${tests}${how ? `: ${clipError(how, 140)}` : ''}` };
  }
  if (activity?.webLookup) {
    const found = webLookupGist(result.content);
    return { ok: true, text: found ? `ok: ${found}` : 'ok' };
  }
  // Work left running: its ids are what a later call needs to collect it.
  const launched = launchHandles(activity, result);
  if (launched) return { ok: true, text: `ok: background ${handlesText(launched)}` };
  const readsOnly =
    activity !== undefined &&
    activity.command === undefined &&
    activity.files.length > 0 &&
    activity.files.every((f) => f.action === 'read');
  if (readsOnly) return { ok: true, text: `${result.content.split('\n').length} lines` };
  // Only a search's "nothing found" reaches here with an exit status (errorLineOf lets its exit 1 through).
  const exit = activity?.command !== undefined ? exitCodeOf(lines, onlyShows(activity)) : undefined;
  if (exit) return { ok: true, text: `no match (exit ${exit.code})` };
  const commit = commitLineOf(activity, result);
  if (commit) return { ok: true, text: `ok: ${oneLine(commit, 60)}` };
  const printed = activity?.command !== undefined ? outputLines(result.content) : [];
  const shown = shownError(activity, printed);
  if (shown !== undefined) return { ok: true, text: `ok: shows ${clipError(shown, 140)}` };
  const git = gitStateOf(activity?.command, printed);
  if (git !== undefined) return { ok: true, text: `ok: ${oneLine(git, 80)}` };
  // A page it fetched: its title, links and forms (what the next request names).
  const fetched = activity?.command !== undefined ? fetchOf(activity.command) : undefined;
  const page = fetched ? pageGist(printed.join('\n'), fetched === 'sent') : undefined;
  if (page !== undefined) return { ok: true, text: `ok: ${page}` };
  // What it found, without its log of the connections and processes it opened and closed.
  const told = printed.filter((l) => !SESSION_LOG_LINE.test(l));
  // One line is the answer (`pwd`, `which python`, `git branch --show-current`, `cat .nvmrc`); not an `ok`, a
  // harness's note in parentheses (pi's `(no output)`), what the command itself says (`… && echo "Fixed a.ts"`), nor
  // a line a search found in a file (`grep "constructor" a.ts`: its code).
  const only = told.length === 1 && !FILE_SEARCH.test(activity?.command ?? '') ? flat(told[0]!) : '';
  if (
    only.length > 0 &&
    only.length <= 80 &&
    !/^(?:ok|done\.?|\(.*\))$/i.test(only) &&
    !CODE_LINE.test(only) &&
    !(activity?.script ?? '').includes(only)
  )
    return { ok: true, text: `ok: ${only}` };
  if (printed.length > 0) {
    // A command's last line is often its verdict ("Found 3 errors", "Done in 2.1s", "migrated 3 tables").
    // (Not a marker of our own: a squeezed or truncated body ends in one; nor a rule between parts: `-----`.)
    const last =
      [...told]
        .reverse()
        .find((l) => !/^\s*\[\.\.\.|\.\.\.\]\s*$/.test(l) && !RULE_LINE.test(l))
        ?.trim() ?? '';
    const verdict =
      last.length <= 80 &&
      VERDICT.test(last) &&
      // Nor a code line, nor a numbered line of a file view (an editor tool shows the file it changed).
      !CODE_LINE.test(last);
    return { ok: true, text: verdict ? `ok: ${oneLine(last, 80)}` : 'ok' };
  }
  // A tool's one line, unless it only says it went well (`ok`, `Success`).
  const line = lines.length === 1 ? lines[0]!.trim() : '';
  return { ok: true, text: line !== '' && line.length <= 80 && !SAYS_OK.test(line) ? `ok: ${line}` : 'ok' };
}

/**
 * What `git status` and `git log` tell of the repository: the branch and how many files are changed (`On branch main:
 * 2 modified, 1 untracked`), the latest commit (a log's first line, not its oldest).
 */
function gitStateOf(command: string | undefined, printed: readonly string[]): string | undefined {
  // (A leading `cd dir &&` is not part of an activity's command.)
  const git = command === undefined ? undefined : /^\s*git\s+(status|log)\b/.exec(command);
  if (!git || printed.length === 0) return undefined;
  if (git[1] === 'log') {
    // `--oneline`'s `3f2a9c1 Fix the parser`, or the full form's `commit <hash>` with the subject under it.
    const head = /^\s*(commit )?([0-9a-f]{7,40})\b/.exec(printed[0]!);
    if (!head) return undefined;
    return head[1] ? `${head[2]} ${printed.find((l) => /^ {4}\S/.test(l))?.trim() ?? ''}`.trim() : printed[0]!.trim();
  }
  const branch = /^(?:On branch \S+|HEAD detached (?:at|from) \S+)/.exec(printed[0]!)?.[0];
  if (branch === undefined) return undefined;
  const counts = new Map<string, number>();
  let section = '';
  for (const line of printed.slice(1)) {
    if (/^Untracked files:/.test(line)) section = 'untracked';
    else if (/^\S/.test(line)) section = '';
    const kind = /^\s+(modified|new file|deleted|renamed|both modified):/.exec(line)?.[1];
    const counted = kind ?? (section === 'untracked' && /^\s+[^\s(]/.test(line) ? 'untracked' : undefined);
    if (counted !== undefined) counts.set(counted, (counts.get(counted) ?? 0) + 1);
  }
  const changes = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  return changes === '' ? `${branch}, nothing to commit` : `${branch}: ${changes}`;
}

/**
 * The line git printed for a commit a git command made (`[main 1a2b3c4] Fix the parser`), read at both ends of a
 * long result (a pre-commit hook's output comes first): the hash is what a later `git show`, `revert` or `rebase`
 * names. Undefined for any other call.
 */
export function commitLineOf(activity: ToolActivity | undefined, result: ChatMessage): string | undefined {
  if (activity?.command === undefined || !/\bgit\b/.test(activity.command)) return undefined;
  const { content } = unwrappedResult(result);
  // A pruned result keeps its commit line in its placeholder.
  const kept = content.startsWith('[Tool result cleared') ? prunedKept(content) : undefined;
  if (kept !== undefined) return COMMIT_LINE.exec(kept)?.[1];
  const found =
    COMMIT_LINE.exec(content.slice(0, 20_000)) ??
    (content.length > 20_000 ? COMMIT_LINE.exec(content.slice(-20_000)) : null);
  return found?.[1];
}

/** How a failed result is remembered (`error: …`, `exit 2: …`, `tests 2 failed, …`); undefined: no failure. */
export function failureOf(activity: ToolActivity | undefined, result: ChatMessage): string | undefined {
  const errorLine = errorLineOf(result, activity);
  if (activity?.command !== undefined) {
    const outcome = callOutcome(activity, result, errorLine);
    return outcome.ok ? undefined : outcome.text;
  }
  if (errorLine === undefined) return undefined;
  return `error: ${clipError(tellingErrorLine(result, errorLine), 140)}`;
}

/**
 * A line of code (an editor tool shows the file it changed): a statement's or block's end, an assignment, a keyword
 * first, a numbered line of a file view. Not a result that quotes braces (`Found flag: flag{…}`).
 */
const CODE_LINE =
  /[;{]\s*$|^\s*[}\])]|^\s*\d+(?::|\t|-\s)|^\s*(?:import|export|const|let|var|def|return|function|class|if|for|while)\b|^\s*[\w.[\]]+\s*[-+*/|&]?=(?!=)/;
/**
 * A script's log of the connections and processes it opened and closed (pwntools' `[+] Opening connection to x on port
 * 1: Done`, `[*] Closed connection to x port 1`, `[*] Switching to interactive mode`, `[*] Process './a' stopped with
 * exit code 0 (pid 9)`): not what it found. (A process that stopped otherwise, `exit code -11 (SIGSEGV)`, is news.)
 */
const SESSION_LOG_LINE =
  /^\s*\[[x*+]\] (?:Opening connection to|Closed connection to|Starting (?:local |remote )?process|Stopped (?:process|program)|Process .* stopped with exit code 0\b|Switching to interactive mode|Got EOF while reading|Receiving all data|Connecting to)/;
const VERDICT =
  /\d|\b(?:done|success(?:ful(?:ly)?)?|passed|built|compiled|created|found|finished|complete[d]?|up to date|no (?:errors?|changes|issues|problems)|warnings?|skipped|updated|installed|removed|wrote|written|saved)\b/i;

/** Argument keys by how much they tell a reader what the call did (lower first); noise keys are dropped. */
const KEY_RANK: readonly [RegExp, number][] = [
  [/^(?:path|file_?path|filePath|filename|file_name|file|target_file|notebook_path|paths|files)$/i, 0],
  [/^(?:command|cmd|script)$/i, 1],
  [/^(?:pattern|regex|query|q|glob|search|search_term|url|urls|name|symbol|selector|prompt|subagent_type)$/i, 2],
  [/^(?:offset|limit|line|start_line|end_line|line_start|line_end|view_range|range|lines?)$/i, 3],
];
const NOISE_KEYS =
  /^(?:description|timeout|replace_all|run_in_background|dangerouslyDisableSandbox|is_background|explanation|thought|reasoning)$/i;
/** Bodies: what is written or replaced is in the file now (or in the result); its size is what a note keeps. */
const BODY_KEYS =
  /^(?:content|new_str|old_str|new_string|old_string|oldText|newText|text|edits|patch|diff|file_text|code|input)$/i;

/** `…/src/theme/theme.ts`: a long path keeps its first segment and its last three; the file name is never cut. */
export function shortenPath(path: string, max = 120): string {
  if (path.length <= max) return path;
  const parts = path.split('/');
  if (parts.length <= 4) return path;
  const tail = parts.slice(-3).join('/');
  return `${parts[0] === '' ? `/${parts[1]}` : parts[0]}/…/${tail}`;
}

const rankOf = (key: string): number => {
  for (const [re, r] of KEY_RANK) if (re.test(key)) return r;
  return 4;
};

/** `path=…, pattern=…`: the useful arguments first, file paths whole, noise and defaults left out. */
export function describeArguments(call: ToolCall, skip: ReadonlySet<string> = new Set()): string {
  const args = parseArguments(call.arguments);
  if (!args) return oneLine(call.arguments, 80);
  const parts: { rank: number; text: string }[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (skip.has(key) || NOISE_KEYS.test(key) || value === false || value === null || value === '') continue;
    const rank = rankOf(key);
    if (BODY_KEYS.test(key) && rank === 4) {
      const size = typeof value === 'string' ? value.length : JSON.stringify(value).length;
      parts.push({ rank: 5, text: `${key}: ${size} chars` });
      continue;
    }
    const raw = typeof value === 'string' ? value : JSON.stringify(value);
    const text = rank === 0 ? shortenPath(raw.trim()) : oneLine(raw, rank <= 2 ? 160 : 60);
    parts.push({ rank, text: `${key}=${text}` });
  }
  return parts
    .sort((a, b) => a.rank - b.rank)
    .slice(0, 3)
    .map((p) => p.text)
    .join(', ');
}

/**
 * One line for a call: `edit packages/a.ts (oldText: 120 chars, newText: 140 chars) → ok`,
 * `bash \`npm test\` → exit 1: FAIL src/x.test.ts`, `bash \`edit 5:5\` on src/a.py → ok`, `WebSearch(query=…) → ok`,
 * `Task "Why the store test fails" → ok`.
 */
export function describeCall(call: ToolCall, activity: ToolActivity, outcome: CallOutcome): string {
  let head: string;
  if (activity.command !== undefined) {
    head = `${call.name} \`${oneLine(activity.command, 200)}\``;
    if (activity.changesUnnamed) head = `${head} on ${shortenPath(activity.changesUnnamed)}`;
  } else if (activity.files[0]) {
    const file = activity.files[0].path;
    const pathKey = Object.entries(parseArguments(call.arguments) ?? {}).find(([, v]) => v === file)?.[0];
    const rest = describeArguments(call, new Set(pathKey ? [pathKey] : []));
    head = `${call.name} ${shortenPath(file)}${rest ? ` (${rest})` : ''}`;
  } else if (isSubAgentTool(call.name)) {
    // A sub-agent is named by what it was asked (`Task "Why the store test fails"`), as in Commands run (which also
    // has its report's opening: a step line with it made a tight note too long to fit).
    head = launchLabel(call, activity);
  } else head = `${call.name}(${describeArguments(call)})`;
  return `${head} → ${outcome.text}`;
}

/**
 * The call and result a `describeCall` line stands for, as far as the line tells (the inverse of `describeCall`):
 * a shell command or a file with its tool, and a result that ends the same way (`ok: …`, `error: …`, `exit N: …`,
 * failed tests). Undefined for a line that is not a call's (an intent, a count of omitted steps).
 */
export function callOfStepLine(
  line: string,
  id: string,
): { readonly call: ToolCall; readonly result?: ChatMessage } | undefined {
  const text = line.replace(/^- /, '').replace(/ \(×\d+\)$/, '');
  const arrow = text.lastIndexOf(' → ');
  if (arrow < 0) return undefined;
  const head = text.slice(0, arrow);
  const outcome = text.slice(arrow + 3);
  let call: ToolCall | undefined;
  const command = /^(\S+) `(.*)`(?: on (\S+))?$/.exec(head);
  const file = /^([^\s(]+) (\S+)(?: \(.*\))?$/.exec(head);
  if (command) {
    // `edit 5:5` on a file: the file a range edit changed, read back as the open file (unless cut: `/…/a.py`).
    const on = command[3] !== undefined && !command[3].includes('…') ? { path: command[3] } : {};
    call = { id, name: command[1]!, arguments: JSON.stringify({ command: command[2]!, ...on }) };
  } else if (file && !file[2]!.includes('…'))
    call = { id, name: file[1]!, arguments: JSON.stringify({ path: file[2]! }) };
  // Any other call that left work running: its handles are in its outcome.
  else if (/^ok: background /.test(outcome)) call = { id, name: /^[^\s(]+/.exec(head)?.[0] ?? 'tool', arguments: '{}' };
  if (!call) return undefined;
  if (outcome === 'no result') return { call };
  const exit = /^exit (\d+)(?:: (.*))?$/.exec(outcome);
  // Test counts as a runner prints them (`Tests: 2 failed, 10 passed`), and how a test failed under them as pytest
  // says it (`E   test_b: assert 1 == 2`): read back as they were.
  const tests = /^tests (.*?)(?:: (.*))?$/.exec(outcome);
  const content = exit
    ? `${exit[2] ?? ''}\nexit code: ${exit[1]}`
    : outcome.startsWith('error: ')
      ? outcome.slice(7)
      : tests
        ? `Tests: ${tests[1]}${tests[2] !== undefined ? `\nE   ${tests[2]}` : ''}`
        : /^\d+ lines$/.test(outcome)
          ? '\n'.repeat(Math.min(100_000, Math.max(0, parseInt(outcome, 10) - 1)))
          : outcome.replace(/^ok(?:: (?:shows )?|$)/, '');
  const isError = outcome.startsWith('error: ');
  return {
    call,
    result: { role: 'tool', content, toolCallId: id, toolName: call.name, ...(isError ? { isError } : {}) },
  };
}

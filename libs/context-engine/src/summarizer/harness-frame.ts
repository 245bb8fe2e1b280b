import type { ChatMessage } from '../model/message';
import { flat, taggedText } from './text';

/**
 * How agent harnesses frame what a tool returned, and the text inside: the lines a shell printed without the
 * harness's own lines around them (SWE-agent's prompt, OpenHands' exit-code trailer, Gemini CLI's `Command:` …
 * `Exit Code:` frame, Codex's `Exit code:` head), and a result stored wrapped (Codex's JSON, Claude Code's error
 * tags, OpenHands' `ERROR:` line) unwrapped. Pure.
 */

/**
 * A box a tool draws around its report (Terraform's `│ Error: …` between `╷` and `╵`, miette's, Rich's): its
 * left edge is no part of a line, and a line of the box alone is no line.
 */
const BOX_EDGE = /^\s*[│┃]\s?/;
const BOX_ONLY = /^[\s\u2500-\u257f]*$/;

/** An output's lines that say something (not blank, not a box's edge alone), without a box's left edge. */
export const nonEmptyLines = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => !BOX_ONLY.test(l))
    .map((l) => (BOX_EDGE.test(l) ? l.replace(BOX_EDGE, '') : l));

/**
 * A line a harness frames every command's output with, not output of the command: SWE-agent's `(Open file: …)`,
 * `(Current directory: …)` and `bash-$` prompt, its file window's `(12 more lines below)` and cursor lines,
 * OpenHands' `[The command completed with exit code 0.]`, `[Current working directory: …]` and `[Python
 * interpreter: …]`, Codex's `Exit code: 0`, `Wall time: …` and `Output:` lead, Gemini CLI's `Error: (none)`, `Signal:
 * (none)` (or `0`), `Background PIDs: …` and `Process Group PGID: …` after the output, Cline's `Command executed.`
 * before it.
 */
export const FRAME_LINE =
  /^\s*(?:\((?:Open file|Current directory): [^)]*\)|(?:ba|z|da)?sh(?:-[\d.]*)?\$|\$|\[(?:The )?command (?:completed|finished) with exit code 0\.?\]|\[(?:Current working directory|Python interpreter): [^\]]*\]|(?:Exit code|Process exited with code):? 0|Wall time: [\d.]+ ?\w*|(?:Output|Stdout|Stderr):(?: \(empty\))?|Error: \(none\)|Signal: (?:\(none\)|0)|Background PIDs: .*|Process Group PGID: .*|\(\d+ more lines (?:above|below)\)|(?:START|END)_CURSOR moved to \d+|<{5} (?:START|END) CURSOR >{5}|Command executed\.)\s*$/i;
/** The end-of-command marker of SWE-agent's interactive shells, after a command's last output (exit status 0). */
const DONE_MARKER = /\/\/\/PROCESS-DONE:0:PROCESS-DONE\/\/\/\s*$/;

/** Gemini CLI's lead before a command's first line of output (`Output: 3 passed`; `Stdout:` / `Stderr:` before 2025-08). */
export const OUTPUT_LEAD = /^(?:Output|Stdout|Stderr): /;

/** The lines a command printed: its result's non-empty lines without the harness's frame. */
export const outputLines = (text: string): string[] => {
  const lines = nonEmptyLines(text);
  // Gemini CLI's frame opens with the command and its directory.
  const from = /^Command: /.test(lines[0] ?? '') && /^Directory: /.test(lines[1] ?? '') ? 2 : 0;
  // (A frame line is one before its lead is taken off: `Stderr: (empty)` says nothing was printed.)
  return lines
    .slice(from)
    .map((l) => l.replace(DONE_MARKER, ''))
    .filter((l) => !FRAME_LINE.test(l))
    .map((l) => l.replace(OUTPUT_LEAD, ''))
    .filter((l) => l.trim() !== '' && !FRAME_LINE.test(l));
};

/**
 * A person's refusal of the call, in the harness's words: Claude Code's `The user doesn't want to proceed with this
 * tool use. The tool use was rejected …`, Cline's `The user denied this operation.`, Gemini CLI's `[Operation
 * Cancelled] Reason: User did not allow tool call`, `… rejected by the user`. The call did not run (an edit was not
 * written).
 */
const PERSON_REFUSED =
  /^\s*(?:\[Operation Cancell?ed\]|The user doesn't want to (?:proceed|take this action)\b|The user (?:denied|rejected|declined|cancell?ed) (?:this|the)\b|User (?:denied|rejected|declined|cancell?ed|did not allow)\b|[^\n]{0,60}\b(?:rejected|denied|declined) by (?:the )?user\b|Refused by the user\b)/i;
/** What the person said with a refusal: Claude Code's `… the user said:` and what follows, Cline's `<feedback>`. */
const REFUSAL_FEEDBACK =
  /<feedback>\s*([\s\S]*?)\s*<\/feedback>|\bthe user said:\s*([\s\S]+)$|^Refused by the user: (.+)$/i;

/** Claude Code's AskUserQuestion result: `User has answered your questions: "Which DB?"="Postgres", "…"="…".` */
const ANSWERED = /^\s*User has answered your questions?:\s*([\s\S]*?)(?:\.?\s*You can now continue\b[\s\S]*)?$/;
const ANSWER_PAIR = /"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"/g;
/** Cline's lead before the person's `<feedback>` (on a result it presented, or with a call they approved or denied). */
const FEEDBACK =
  /\bThe user (?:has )?(?:provided|approved|denied)\b[^\n]*\b(?:feedback|context)\b[\s\S]*?<feedback>\s*([\s\S]*?)\s*<\/feedback>/;

/** Claude Code's answer to ExitPlanMode when the person accepts the plan: `User has approved your plan. You can …`. */
const PLAN_APPROVED = /^\s*(?:The )?user has approved (?:your|the) plan\b/i;

/** What the person said in a tool's result, and as what. */
export type PersonsReply =
  /**
   * Their answer to the call's question (Cline's and Roo Code's `<answer>…</answer>` to `ask_followup_question`), or
   * their reply to what it put to them (Cline's `<user_message>` to `plan_mode_respond`).
   */
  | { readonly kind: 'answer'; readonly text: string }
  /** Their answers with the questions (Claude Code's AskUserQuestion): `"Which port?": 8080; …`. */
  | { readonly kind: 'answers'; readonly text: string }
  /** What they said refusing the call (`Refused by the user: …`, from the unwrapped result). */
  | { readonly kind: 'refusal'; readonly text: string }
  /** Their feedback on a result the agent presented, or with a call they approved (Cline's `<feedback>`). */
  | { readonly kind: 'feedback'; readonly text: string }
  /** Their approval of the plan the call put to them (Claude Code's ExitPlanMode): the plan is the call's. */
  | { readonly kind: 'approval' };

/**
 * What the person said in a tool's result, in the harness's words — read only as the harness gives it (a result that
 * opens with `<answer>`, Cline's lead before `<feedback>`): a file or an output that holds the tags is no reply.
 */
export function personsReply(content: string): PersonsReply | undefined {
  const answer = /^\s*<(answer|user_message)>\s*([\s\S]*?)\s*<\/\1>/.exec(content)?.[2];
  if (answer !== undefined && answer.trim() !== '') return { kind: 'answer', text: flat(answer) };
  const answered = ANSWERED.exec(content);
  if (answered) {
    const pairs = [...answered[1]!.matchAll(ANSWER_PAIR)].map(([, q, a]) => `"${flat(q!)}": ${flat(a!)}`);
    if (pairs.length > 0) return { kind: 'answers', text: pairs.join('; ') };
  }
  const refused = /^Refused by the user: ([\s\S]+)$/.exec(content);
  if (refused) return { kind: 'refusal', text: flat(refused[1]!) };
  const feedback = content.includes('<feedback>') ? FEEDBACK.exec(content)?.[1] : undefined;
  if (feedback !== undefined && feedback.trim() !== '') return { kind: 'feedback', text: flat(feedback) };
  if (PLAN_APPROVED.test(content)) return { kind: 'approval' };
  return undefined;
}

const WRAPPED = new RegExp(
  `^\\s*\\{\\s*"(?:output|error)"\\s*:|^<tool_use_error>|^ERROR:[ \\t]*\\n|^The tool execution failed with the following error:|^<status>\\w+</status>|${PERSON_REFUSED.source}`,
  'i',
);
/**
 * A tool's failure in a harness's own words: Claude Code's `<tool_use_error>…</tool_use_error>`, OpenHands' `ERROR:`
 * line, Cline's `The tool execution failed with the following error: <error>…</error>`.
 */
const HARNESS_ERROR =
  /^(?:<tool_use_error>([\s\S]*?)<\/tool_use_error>\s*$|ERROR:[ \t]*\n([\s\S]*)$|The tool execution failed with the following error:\s*(?:<error>)?([\s\S]*?)(?:<\/error>)?\s*$)/;

/**
 * A result a harness stored as JSON: a shell's with its exit status (Codex: `{"output": "…", "metadata":
 * {"exit_code": 1, …}}`): its output, and a non-zero status as the line shells print last (`Exit code: 1`); a
 * tool's failure (Gemini CLI: `{"error": "Failed to edit, 0 occurrences found …"}`): its text, flagged as an error.
 * A failure a harness marks in its own words (`HARNESS_ERROR`): its message, flagged (OpenHands does not flag a
 * failed file view: it read as the file's contents). Any other result as it is.
 */
export function unwrappedResult(result: ChatMessage): ChatMessage {
  if (!WRAPPED.test(result.content)) return result;
  let done = unwrapped.get(result);
  if (!done) unwrapped.set(result, (done = unwrap(result)));
  return done;
}
/**
 * Claude Code's answer to a poll of a background shell (BashOutput): `<status>completed</status>`, `<exit_code>1
 * </exit_code>`, `<stdout>…</stdout>`, `<stderr>…</stderr>`, `<timestamp>…</timestamp>` — what it printed, and a
 * non-zero status as a shell's last line (`Exit code: 1`).
 */
function backgroundOutput(content: string): string | undefined {
  const status = /^<status>(\w+)<\/status>/.exec(content)?.[1];
  if (status === undefined) return undefined;
  const tagged = (tag: string) => taggedText(content, tag) ?? '';
  const code = Number(tagged('exit_code') || '0');
  const printed = [tagged('stdout'), tagged('stderr')].filter((x) => x !== '').join('\n');
  return (
    [printed, code !== 0 ? `Exit code: ${code}` : ''].filter((x) => x !== '').join('\n') || `(${status}, no output)`
  );
}

/** Each wrapped result parsed once: its error line and its outcome are both read from the unwrapped one. */
const unwrapped = new WeakMap<ChatMessage, ChatMessage>();

function unwrap(result: ChatMessage): ChatMessage {
  const polled = backgroundOutput(result.content);
  if (polled !== undefined) return { ...result, content: polled };
  if (PERSON_REFUSED.test(result.content)) {
    const said = REFUSAL_FEEDBACK.exec(result.content);
    const feedback = said ? flat(said[1] ?? said[2] ?? said[3] ?? '') : '';
    return { ...result, content: `Refused by the user${feedback ? `: ${feedback}` : ''}`, isError: true };
  }
  const marked = HARNESS_ERROR.exec(result.content);
  if (marked) return { ...result, content: (marked[1] ?? marked[2] ?? marked[3])!.trim(), isError: true };
  let v: unknown;
  try {
    v = JSON.parse(result.content);
  } catch {
    return result;
  }
  const { output, error, metadata } = (v ?? {}) as {
    output?: unknown;
    error?: unknown;
    metadata?: { exit_code?: unknown };
  };
  // (Only the harness's own keys: `{"error": "Not Found", "status": 404}` is what a command printed.)
  const ownKeys = Object.keys(v as object).every((k) => k === 'output' || k === 'error' || k === 'metadata');
  if (ownKeys && typeof error === 'string' && error.trim() !== '') return { ...result, content: error, isError: true };
  if (typeof output !== 'string') return result;
  const code = typeof metadata?.exit_code === 'number' ? metadata.exit_code : 0;
  return { ...result, content: code !== 0 ? `${output.replace(/\n+$/, '')}\nExit code: ${code}` : output };
}

/**
 * What compaction leaves of a failed tool result, so that neither the agent reading the view nor a later note built
 * from it takes a cleared or cut failure for a success.
 *
 * The placeholder a pruned tool result leaves (seed 002 stage 1): the call in short, the size of what was cleared,
 * and, when the result was a failure, what failed; else the line a later call names that the result alone had
 * (`kept: [main 1a2b3c4] Fix the parser`: the commit git made, its hash).
 */
export const prunedPlaceholder = (
  toolName: string,
  keyArgs: string,
  chars: number,
  failure?: string,
  kept?: string,
): string => {
  const tail = failure ?? (kept === undefined ? undefined : `kept: ${kept}`);
  return `[Tool result cleared to save context: ${toolName}${keyArgs ? `(${keyArgs})` : ''}, ${chars} chars${
    tail ? `; ${tail.replace(/\s+/g, ' ').replace(/\]$/, '')}` : ''
  }]`;
};

const PLACEHOLDER = /^\[Tool result cleared to save context: .*?, \d+ chars(?:; (kept: )?(.+))?\]$/s;

/**
 * A pruned result's failure: its text (`error: …`, `exit 2: …`, `tests 2 failed, …`), undefined when it was no
 * failure, null when the content is no placeholder. A placeholder without one from before placeholders told
 * failures fails only when its message is marked as an error.
 */
export function prunedFailure(content: string, isError: boolean | undefined): string | undefined | null {
  const m = PLACEHOLDER.exec(content);
  if (!m) return null;
  if (m[1]) return undefined;
  return m[2] ?? (isError ? 'error: (result cleared)' : undefined);
}

/** The gap marker of a result cut head+tail or around the lines that mattered (stages/common.ts, stages/focus.ts). */
const CUT_MARKER = /\[\.\.\. (?:\d+ chars, )?\d+ lines truncated \.\.\.\]/;

/** Whether compaction left only part of a result (a placeholder, or a text cut): what it lacks may have been in it. */
export const isPartialResult = (content: string): boolean => PLACEHOLDER.test(content) || CUT_MARKER.test(content);

/** The line a pruned successful result kept (`[main 1a2b3c4] Fix the parser`), if it is a placeholder that did. */
export function prunedKept(content: string): string | undefined {
  const m = PLACEHOLDER.exec(content);
  return m?.[1] ? m[2] : undefined;
}

/**
 * The line a truncated result ends with when what failed was in the part cut (head and tail kept: an error line in
 * the middle, followed by a package manager's or a runner's closing lines, would be lost).
 */
export const keptFailureLine = (line: string): string =>
  `[what failed, in the part cut: ${line.replace(/\s+/g, ' ').trim().slice(0, 200)}]`;

const KEPT_FAILURE = /^\[what failed, in the part cut: (.+)\]$/;

/** The failure line a truncated result kept at its end, if it did. */
export function keptFailureOf(lastLine: string | undefined): string | undefined {
  return lastLine === undefined ? undefined : KEPT_FAILURE.exec(lastLine.trim())?.[1];
}

import { LIMITS } from '@ctxledger/contracts';

export type RejectionCode = 'empty' | 'over-max-tokens' | 'over-max-chars' | 'not-smaller' | 'truncated';

export type SummaryCheck =
  | { readonly ok: true; readonly tokens: number }
  | { readonly ok: false; readonly code: RejectionCode; readonly reason: string; readonly tokens: number };

export interface SummaryLimits {
  /** The request's `maxSummaryTokens`. */
  readonly maxSummaryTokens: number;
  /** What the summary replaces (the request's messages and the previous summary), by the same counter. */
  readonly tokensBefore: number;
  /** Whether this summary is final (the not-smaller rule applies only to the summary that is published). */
  readonly final: boolean;
}

/**
 * The guarantees a summary must meet before it is published: not empty, within the request's token limit and
 * the contract's size limit, and smaller than what it replaces (a summary that grows the history is useless;
 * the compaction service falls back to the cheap stages instead).
 */
export function checkSummary(
  summary: string,
  limits: SummaryLimits,
  countText: (text: string) => number,
  truncated = false,
): SummaryCheck {
  const tokens = countText(summary);
  if (summary.trim() === '') return { ok: false, code: 'empty', reason: 'the summary is empty', tokens };
  if (truncated) {
    return {
      ok: false,
      code: 'truncated',
      reason: `the summary was cut off at the output limit (${tokens} tokens so far; limit ${limits.maxSummaryTokens})`,
      tokens,
    };
  }
  if (summary.length > LIMITS.maxSummaryChars) {
    return {
      ok: false,
      code: 'over-max-chars',
      reason: `the summary is ${summary.length} characters, over the contract's limit of ${LIMITS.maxSummaryChars}`,
      tokens,
    };
  }
  if (tokens > limits.maxSummaryTokens) {
    return {
      ok: false,
      code: 'over-max-tokens',
      reason: `the summary is ${tokens} tokens, over maxSummaryTokens ${limits.maxSummaryTokens}`,
      tokens,
    };
  }
  if (limits.final && tokens >= limits.tokensBefore) {
    return {
      ok: false,
      code: 'not-smaller',
      reason: `the summary (${tokens} tokens) is not smaller than what it replaces (${limits.tokensBefore} tokens)`,
      tokens,
    };
  }
  return { ok: true, tokens };
}

/**
 * Every tunable of the engine in one place, with the seeds' defaults. A session may override any field
 * (`resolvePolicy` deep-merges the overrides over the defaults).
 */
export interface TailPolicy {
  /** Protected tail budget as a share of the history budget. */
  readonly budgetRatio: number;
  /** Each tool result counts at most this many tokens when the tail is measured (seed 001 option B). */
  readonly toolResultCapTokens: number;
  /** Minimum number of recent conversational messages kept verbatim (seed 001 option A). */
  readonly conversationalFloor: number;
  /** The floor may not push the tail beyond this multiple of its budget; tool bodies are truncated instead. */
  readonly maxOverrun: number;
}

export interface TruncatePolicy {
  /** Seed 002 tool-output limits. */
  readonly maxBytes: number;
  readonly maxLines: number;
  /** A single tool output above this share of the history budget is "huge" even under the byte/line limits. */
  readonly budgetShare: number;
}

export interface PrunePolicy {
  /** Fixed values win when given; otherwise the budget-scaled ones below (seed 002's 40k/20k as caps). */
  readonly protectTokens?: number;
  readonly minimumSavings?: number;
  readonly protectRatio: number;
  readonly protectCap: number;
  readonly minimumSavingsRatio: number;
  readonly minimumSavingsCap: number;
  readonly protectedTools: readonly string[];
}

export interface GuardPolicy {
  /** Compactions in a row that leave the history over the threshold before automatic compaction is refused. */
  readonly maxIneffectiveCompactions: number;
  /** Consecutive no-op compactions before automatic compaction is refused. */
  readonly maxConsecutiveNoOps: number;
  /** A refused session is tried again once its raw history grew by this share of the budget (or a user message arrives). */
  readonly retryAfterGrowthRatio: number;
  /**
   * Anti-thrash: after a completed compaction, automatic compaction waits until this many model calls have
   * been made — a model call is an assistant message appended since the last `CompactionCompleted` — unless
   * the effective history is over the history budget (then it always compacts: the served history must fit).
   * Manual and overflow compactions are never held back. Turns are counted as model calls, not user
   * messages: an agent session is typically one long user turn with hundreds of assistant/tool messages.
   * Each compaction rewrites part of the prompt and so invalidates the provider's prompt cache from there;
   * holding off for a few calls keeps the cached prefix alive between compactions. 0 disables the hold.
   */
  readonly minTurnsBetweenCompactions: number;
}

export interface MinimumTriggerRule {
  /** When ratio × available falls below this many tokens, the trigger becomes fallbackRatio × available. */
  readonly minTokens: number;
  readonly fallbackRatio: number;
}

export interface CompactionPolicy {
  /** Compact when effective history > thresholdRatio × history budget (seed 002: 0.8). */
  readonly thresholdRatio: number;
  /** ... down to targetRatio × history budget (hysteresis: few, large compactions; a stable prefix). */
  readonly targetRatio: number;
  /** Optional Hermes-style minimum trigger (SCENARIOS #3). Off by default. */
  readonly minimumTrigger: MinimumTriggerRule | null;
  readonly stages: {
    readonly truncate: boolean;
    readonly prune: boolean;
    readonly dedupe: boolean;
    readonly splitTurn: boolean;
    readonly slidingWindow: boolean;
  };
  /** 'on': stage 5 asks the summarizer; 'off': the offline per-turn digest is used at once. */
  readonly summaries: 'on' | 'off';
  readonly keepRecentRatio: number;
  readonly keepRecentMin: number;
  /** Offline digest bound (SCENARIOS #26). */
  readonly digestMaxChars: number;
  readonly tail: TailPolicy;
  readonly truncate: TruncatePolicy;
  readonly prune: PrunePolicy;
  readonly splitTurnTailPairs: number;
  /**
   * The split-turn note: 'rich' — one line per call with its file paths whole, its arguments by usefulness and
   * its outcome read from the result, the assistant's intent, repeats collapsed, and a working-state section;
   * 'seed' — seed 000's note (first two arguments cut at 40 characters, "→ completed").
   */
  readonly inTurnDigest: 'rich' | 'seed';
  /**
   * Share of the compaction target the working state of a replacement (split-turn note, digest, truncation and
   * emergency markers) may take: the user's requests, files with their last action, commands with their last
   * outcome, errors and whether they were resolved, decisions, the latest plan. 0 turns it off.
   */
  readonly workingStateShare: number;
  /** A first turn larger than this share of the target is not pinned as "the first exchange". */
  readonly firstExchangeMaxShare: number;
  readonly emergency: { readonly dropTurnRatio: number; readonly targetRatio: number };
  readonly guard: GuardPolicy;
}

export const DEFAULT_POLICY: CompactionPolicy = {
  thresholdRatio: 0.8,
  targetRatio: 0.6,
  minimumTrigger: null,
  stages: { truncate: true, prune: true, dedupe: true, splitTurn: true, slidingWindow: true },
  summaries: 'on',
  keepRecentRatio: 0.3,
  keepRecentMin: 4,
  digestMaxChars: 8000,
  tail: { budgetRatio: 0.2, toolResultCapTokens: 2000, conversationalFloor: 6, maxOverrun: 1.5 },
  truncate: { maxBytes: 51_200, maxLines: 2000, budgetShare: 0.15 },
  prune: {
    protectRatio: 0.2,
    protectCap: 40_000,
    minimumSavingsRatio: 0.05,
    minimumSavingsCap: 20_000,
    protectedTools: ['skill'],
  },
  splitTurnTailPairs: 3,
  inTurnDigest: 'rich',
  workingStateShare: 0.15,
  firstExchangeMaxShare: 0.1,
  emergency: { dropTurnRatio: 0.5, targetRatio: 0.7 },
  guard: {
    maxIneffectiveCompactions: 3,
    maxConsecutiveNoOps: 2,
    retryAfterGrowthRatio: 0.05,
    minTurnsBetweenCompactions: 3,
  },
};

type DeepPartial<T> = {
  -readonly [K in keyof T]?: T[K] extends readonly unknown[]
    ? T[K]
    : T[K] extends object | null
      ? DeepPartial<NonNullable<T[K]>> | null
      : T[K];
};
export type PolicyOverrides = DeepPartial<CompactionPolicy>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function merge<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = merge((base as Record<string, unknown>)[k], v);
  }
  return out as T;
}

export function resolvePolicy(overrides?: PolicyOverrides): CompactionPolicy {
  const p = merge(DEFAULT_POLICY, overrides ?? {});
  if (!(p.targetRatio > 0 && p.targetRatio <= p.thresholdRatio && p.thresholdRatio <= 1)) {
    throw new RangeError(
      `policy: need 0 < targetRatio (${p.targetRatio}) <= thresholdRatio (${p.thresholdRatio}) <= 1`,
    );
  }
  return p;
}

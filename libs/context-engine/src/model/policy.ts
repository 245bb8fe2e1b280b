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
  /**
   * 'on': a range condensed deterministically (the in-turn prefix's split-turn note, a digest, a sliding-window or
   * keep-within-budget marker) is also sent to the summarizer; the deterministic replacement is in place at once and
   * the model's summary supersedes it as a new block when it arrives (a late, failed or offline answer leaves it).
   * 'pause': the same, but asked only when the session pauses (command `SummarizeNote`, which the compaction
   * service sends after a quiet period), for the largest note then shown and not asked about before: while an agent
   * keeps appending, each compaction's new note absorbs the last one, and a summary asked at once would mostly come
   * back for a note no longer shown.
   * For deployments with a model summarizer (the compaction service turns it on when one is configured); 'off' by
   * default: the offline summarizer's answer would only repeat the deterministic replacement.
   */
  readonly digestSummaries: 'on' | 'pause' | 'off';
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
  digestSummaries: 'off',
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

/**
 * A policy that cannot be applied, with one `policy.<path>: <reason>` per problem (the shape of HTTP 400
 * messages and dead-letter reasons alike).
 */
export class PolicyError extends RangeError {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('; '));
    this.name = 'PolicyError';
  }
}

/** Settings that are choices among words, not numbers. */
const CHOICES: Readonly<Record<string, readonly string[]>> = {
  summaries: ['on', 'off'],
  digestSummaries: ['on', 'pause', 'off'],
  inTurnDigest: ['rich', 'seed'],
};
/** Optional numbers with no default (fixed values that win over the budget-scaled ones). */
const OPTIONAL_NUMBERS: Readonly<Record<string, readonly string[]>> = { prune: ['protectTokens', 'minimumSavings'] };
/** Shares of something: between 0 and 1 (a growth ratio may exceed 1: "retry only after it grew by twice the budget"). */
const isShare = (key: string) => /(Ratio|Share)$/.test(key) && key !== 'retryAfterGrowthRatio';

/**
 * Every problem of a policy override, checked against the shape of DEFAULT_POLICY: unknown settings (a typo
 * would otherwise be ignored silently), values of the wrong type, shares outside [0, 1], negative numbers.
 * The relation between the threshold and the target is checked by `resolvePolicy`.
 */
export function policyViolations(overrides: unknown, path = 'policy'): string[] {
  if (overrides === undefined) return [];
  if (!isPlainObject(overrides)) return [`${path}: must be an object`];
  return objectViolations(overrides, DEFAULT_POLICY as unknown as Record<string, unknown>, path, 'policy');
}

function objectViolations(
  over: Record<string, unknown>,
  base: Record<string, unknown>,
  path: string,
  section: string,
): string[] {
  const out: string[] = [];
  const optional = OPTIONAL_NUMBERS[section] ?? [];
  for (const [key, value] of Object.entries(over)) {
    const here = `${path}.${key}`;
    if (value === undefined) continue;
    if (!(key in base) && !optional.includes(key)) {
      out.push(`${here}: is not a policy setting (known here: ${[...Object.keys(base), ...optional].join(', ')})`);
      continue;
    }
    const model = base[key];
    if (key === 'minimumTrigger') {
      if (value === null) continue;
      if (!isPlainObject(value)) out.push(`${here}: must be null or { minTokens, fallbackRatio }`);
      else {
        out.push(...objectViolations(value, { minTokens: 0, fallbackRatio: 0 }, here, key));
        for (const k of ['minTokens', 'fallbackRatio']) if (!(k in value)) out.push(`${here}.${k}: is required`);
      }
    } else if (CHOICES[key]) {
      if (!CHOICES[key].includes(value as string)) out.push(`${here}: must be one of ${CHOICES[key].join(', ')}`);
    } else if (Array.isArray(model)) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
        out.push(`${here}: must be an array of strings`);
    } else if (typeof model === 'boolean') {
      if (typeof value !== 'boolean') out.push(`${here}: must be a boolean`);
    } else if (typeof model === 'number' || optional.includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) out.push(`${here}: must be a number`);
      else if (value < 0) out.push(`${here}: must not be negative`);
      else if (isShare(key) && value > 1) out.push(`${here}: must be a share between 0 and 1`);
    } else if (isPlainObject(model)) {
      if (!isPlainObject(value)) out.push(`${here}: must be an object`);
      else out.push(...objectViolations(value, model, here, key));
    }
  }
  return out;
}

/**
 * The target a threshold implies when none is given: the default target (0.6), or — for a threshold below it —
 * the default's proportion of the threshold (0.75 × threshold: 0.3 → 0.225), so a low threshold still compacts
 * well below where it starts. Thresholds at or above 0.6 keep the default target (their budgets are unchanged).
 */
export function derivedTargetRatio(thresholdRatio: number): number {
  if (thresholdRatio >= DEFAULT_POLICY.targetRatio) return DEFAULT_POLICY.targetRatio;
  const ratio = (thresholdRatio * DEFAULT_POLICY.targetRatio) / DEFAULT_POLICY.thresholdRatio;
  return Math.max(1e-4, Math.round(ratio * 10_000) / 10_000); // 0.225, not 0.22499999999999998
}

/**
 * The policy in force: the overrides deep-merged over the defaults. A target not given follows the threshold
 * (`derivedTargetRatio`); a target given above the threshold is refused (compaction would end above where it
 * starts). Throws PolicyError naming every problem.
 */
export function resolvePolicy(overrides?: PolicyOverrides): CompactionPolicy {
  const violations = policyViolations(overrides);
  if (violations.length > 0) throw new PolicyError(violations);
  const merged = merge(DEFAULT_POLICY, overrides ?? {});
  const p =
    overrides?.targetRatio === undefined && overrides?.thresholdRatio !== undefined
      ? { ...merged, targetRatio: derivedTargetRatio(merged.thresholdRatio) }
      : merged;
  if (!(p.thresholdRatio > 0)) throw new PolicyError([`policy.thresholdRatio: must be above 0`]);
  if (!(p.targetRatio > 0)) throw new PolicyError([`policy.targetRatio: must be above 0`]);
  if (p.targetRatio > p.thresholdRatio) {
    throw new PolicyError([
      `policy.targetRatio: ${p.targetRatio} is above the threshold ${p.thresholdRatio} (compaction would end above ` +
        'where it starts); give a target at or below the threshold, or none to have it derived from the threshold',
    ]);
  }
  return p;
}

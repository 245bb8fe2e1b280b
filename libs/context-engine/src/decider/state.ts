import { computeBudget, type HistoryBudget } from '../budget';
import type { CompactionBlock } from '../model/block';
import type { SessionConfig, SummaryRequest } from '../model/events';
import type { ChatMessage } from '../model/message';
import { resolvePolicy, type CompactionPolicy } from '../model/policy';
import type { EffectiveEntry } from '../overlay';
import { counterFor, type TokenCounter } from '../tokens';
import { getContextWindowSize } from '../windows';

/**
 * One session's state. Appending is O(size of the message): the arrays below are extended in place, so
 * the state returned by `evolve` shares storage with the previous one — keep only the latest state.
 * Every other event builds fresh arrays.
 */
export interface SessionState {
  readonly sessionId: string;
  readonly config: SessionConfig;
  readonly policy: CompactionPolicy;
  readonly budget: HistoryBudget;
  readonly counter: TokenCounter;
  readonly originals: ChatMessage[];
  readonly originalTokens: number[];
  /** Σ originalTokens (without the per-conversation framing). */
  readonly rawTokens: number;
  readonly entries: EffectiveEntry[];
  /** Σ entry tokens (without the per-conversation framing). */
  readonly effectiveTokens: number;
  /** Every block ever created, by id. */
  readonly blocks: ReadonlyMap<string, CompactionBlock>;
  /** Active block ids in activation order. */
  readonly active: readonly string[];
  /** Reverted ids: the decider never re-creates them automatically. */
  readonly reverted: ReadonlySet<string>;
  /** Positions of user messages (turn starts), in order. */
  readonly userPositions: number[];
  /** Tool call id → position of the assistant message carrying it. */
  readonly callPositions: Map<string, number>;
  /** Tool call id → position of its (first) result. */
  readonly resultPositions: Map<string, number>;
  readonly pendingSummary?: SummaryRequest;
  /**
   * The model summary asked for a range already condensed deterministically (policy `digestSummaries`), at most
   * one at a time. It never holds compaction back: the deterministic replacement is in place meanwhile.
   */
  readonly pendingDigestSummary?: SummaryRequest;
  /** The notes (block ids) a model summary was ever asked for: each is asked about once. */
  readonly notesAsked: ReadonlySet<string>;
  /** Why the last compaction attempt did nothing (refusal or no progress); cleared by a completed one. */
  readonly lastNoOpReason?: string;
  readonly guard: {
    readonly ineffectiveStreak: number;
    readonly noOpStreak: number;
    readonly compactions: number;
    /** Raw tokens when the last compaction attempt ended (retry only after growth). */
    readonly lastAttemptRaw: number;
    /**
     * Model calls (assistant messages appended) since the last `CompactionCompleted` (since the start before
     * the first one): the anti-thrash hold of `policy.guard.minTurnsBetweenCompactions`.
     */
    readonly callsSinceCompaction: number;
  };
}

export function configure(config: SessionConfig): Pick<SessionState, 'config' | 'policy' | 'budget' | 'counter'> {
  const policy = resolvePolicy(config.policy ?? undefined);
  const contextWindow =
    config.contextWindow ?? getContextWindowSize(config.provider, config.model, config.windowOverrides);
  const budget = computeBudget(
    {
      contextWindow,
      maxOutputTokens: config.maxOutputTokens,
      systemPromptTokens: config.systemPromptTokens,
      toolDefinitionTokens: config.toolDefinitionTokens,
    },
    policy,
  );
  const counter = counterFor({ provider: config.provider, model: config.model, tokenizer: config.tokenizer });
  return { config, policy, budget, counter };
}

export function initialSessionState(sessionId: string, config: SessionConfig = {}): SessionState {
  return {
    sessionId,
    ...configure(config),
    originals: [],
    originalTokens: [],
    rawTokens: 0,
    entries: [],
    effectiveTokens: 0,
    blocks: new Map(),
    active: [],
    reverted: new Set(),
    userPositions: [],
    callPositions: new Map(),
    resultPositions: new Map(),
    notesAsked: new Set(),
    guard: { ineffectiveStreak: 0, noOpStreak: 0, compactions: 0, lastAttemptRaw: 0, callsSinceCompaction: 0 },
  };
}

/** Effective-history tokens including the per-conversation framing. O(1). */
export const effectiveTotal = (s: SessionState): number =>
  s.entries.length ? s.effectiveTokens + s.counter.perConversation : 0;
export const rawTotal = (s: SessionState): number => (s.originals.length ? s.rawTokens + s.counter.perConversation : 0);

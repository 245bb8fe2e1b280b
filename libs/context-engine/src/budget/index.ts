import { PolicyError, type CompactionPolicy, type MinimumTriggerRule } from '../model/policy';
import { getAvailableInputTokens, getOutputReserve } from '../windows';

/** What the budget is computed from (one session's configuration). */
export interface BudgetInput {
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
  readonly systemPromptTokens?: number;
  readonly toolDefinitionTokens?: number;
}

export interface HistoryBudget {
  readonly contextWindow: number;
  readonly outputReserve: number;
  /** window − output reserve */
  readonly availableInput: number;
  /** system prompt + tool definitions */
  readonly fixedOverhead: number;
  /** window − system − tools − output reserve (seed 004); the summary lives inside the history here. */
  readonly historyBudget: number;
  /** Compact when the effective history exceeds this. */
  readonly thresholdTokens: number;
  /** ... down to this. */
  readonly targetTokens: number;
  /** Set when the session cannot work at all: no compaction can help. */
  readonly unusableReason?: string;
  /** Set when the fixed overhead alone is at or over the threshold (no-loop guard, SCENARIOS #24). */
  readonly overheadOverThreshold: boolean;
}

/**
 * Hermes-style trigger (SCENARIOS #3): ratio × available, but fallbackRatio × available when that falls
 * below minTokens. A trigger equal to (or above) the whole window is rejected: it could never fire in time.
 */
export function computeTriggerTokens(
  availableInput: number,
  ratio: number,
  contextWindow: number,
  rule: MinimumTriggerRule | null,
): number {
  let trigger = Math.floor(availableInput * ratio);
  if (rule && trigger < rule.minTokens) trigger = Math.floor(availableInput * rule.fallbackRatio);
  if (trigger >= contextWindow) {
    throw new PolicyError([
      `policy.minimumTrigger: the trigger ${trigger} must be below the context window ${contextWindow}`,
    ]);
  }
  return trigger;
}

export function computeBudget(
  input: BudgetInput,
  policy: Pick<CompactionPolicy, 'thresholdRatio' | 'targetRatio' | 'minimumTrigger'>,
): HistoryBudget {
  const contextWindow = Math.max(0, Math.floor(input.contextWindow));
  const outputReserve = getOutputReserve(contextWindow, input.maxOutputTokens);
  const availableInput = getAvailableInputTokens(contextWindow, input.maxOutputTokens);
  const fixedOverhead = Math.max(0, (input.systemPromptTokens ?? 0) + (input.toolDefinitionTokens ?? 0));
  const historyBudget = Math.max(0, availableInput - fixedOverhead);
  let thresholdTokens = 0;
  let targetTokens = 0;
  let unusableReason: string | undefined;
  if (historyBudget <= 0) {
    unusableReason =
      availableInput <= 0
        ? `output reserve ${outputReserve} leaves no input room in a ${contextWindow}-token window`
        : `fixed overhead ${fixedOverhead} (system prompt + tool definitions) fills the ${availableInput} available input tokens`;
  } else {
    thresholdTokens = Math.min(
      historyBudget,
      policy.minimumTrigger
        ? Math.max(
            0,
            computeTriggerTokens(availableInput, policy.thresholdRatio, contextWindow, policy.minimumTrigger) -
              fixedOverhead,
          )
        : Math.floor(historyBudget * policy.thresholdRatio),
    );
    targetTokens = Math.min(thresholdTokens, Math.floor(historyBudget * policy.targetRatio));
  }
  const overheadOverThreshold = fixedOverhead >= availableInput * policy.thresholdRatio;
  return {
    contextWindow,
    outputReserve,
    availableInput,
    fixedOverhead,
    historyBudget,
    thresholdTokens,
    targetTokens,
    unusableReason,
    overheadOverThreshold,
  };
}

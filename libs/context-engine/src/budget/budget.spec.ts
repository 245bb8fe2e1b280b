import { computeBudget, computeTriggerTokens } from '.';
import { DEFAULT_POLICY, resolvePolicy } from '../model/policy';
import { counterFor } from '../tokens';

describe('history budget', () => {
  it('reproduces the Hermes trigger arithmetic (SCENARIOS #3)', () => {
    const rule = { minTokens: 64_000, fallbackRatio: 0.85 };
    expect(computeTriggerTokens(64_000, 0.5, 64_000, rule)).toBe(54_400);
    expect(computeTriggerTokens(200_000 - 65_536, 0.5, 200_000, rule)).toBe(67_232);
    expect(computeTriggerTokens(128_000 - 65_536, 0.5, 128_000, rule)).toBe(53_094);
    const policy = resolvePolicy({ thresholdRatio: 0.5, targetRatio: 0.4, minimumTrigger: rule });
    expect(computeBudget({ contextWindow: 64_000, maxOutputTokens: 0 }, policy).thresholdTokens).toBe(54_400);
    expect(computeBudget({ contextWindow: 200_000, maxOutputTokens: 65_536 }, policy).thresholdTokens).toBe(67_232);
  });

  it('rejects a trigger equal to the whole window', () => {
    expect(() => computeTriggerTokens(64_000, 1, 64_000, null)).toThrow(/below the context window/);
    expect(() => computeTriggerTokens(64_000, 0.9, 64_000, { minTokens: 100_000, fallbackRatio: 1 })).toThrow();
  });

  it('counts the fixed overhead: system prompt, tools, output reserve (SCENARIOS #4)', () => {
    const c = counterFor({ provider: 'openai' });
    const system = c.text('s'.repeat(4000));
    const tools = c.text(JSON.stringify({ name: 'read', description: 'read a file', parameters: { type: 'object' } }));
    const b = computeBudget(
      { contextWindow: 128_000, systemPromptTokens: system, toolDefinitionTokens: tools },
      DEFAULT_POLICY,
    );
    expect(b.historyBudget).toBeLessThan(b.availableInput);
    expect(b.historyBudget).toBeLessThanOrEqual(b.availableInput - (system + tools));
    expect(b.historyBudget).toBe(128_000 - 44_800 - system - tools);
    expect(b.thresholdTokens).toBe(Math.floor(b.historyBudget * 0.8));
    expect(b.targetTokens).toBe(Math.floor(b.historyBudget * 0.6));
  });

  it('a 4 M-char system prompt leaves a budget of 0 and the session unusable, not compacted to nothing', () => {
    const c = counterFor({ provider: 'openai' });
    const b = computeBudget(
      { contextWindow: 128_000, maxOutputTokens: 100, systemPromptTokens: c.text('x'.repeat(4_000_000)) },
      DEFAULT_POLICY,
    );
    expect(b.historyBudget).toBe(0);
    expect(b.unusableReason).toMatch(/fixed overhead/);
  });

  it('flags a fixed overhead at or above the threshold (no-loop guard input)', () => {
    expect(
      computeBudget({ contextWindow: 40_000, maxOutputTokens: 0, systemPromptTokens: 33_564 }, DEFAULT_POLICY)
        .overheadOverThreshold,
    ).toBe(true);
    expect(
      computeBudget({ contextWindow: 40_000, maxOutputTokens: 0, systemPromptTokens: 3_000 }, DEFAULT_POLICY)
        .overheadOverThreshold,
    ).toBe(false);
  });

  it('refuses an incoherent policy', () => {
    expect(() => resolvePolicy({ targetRatio: 0.9, thresholdRatio: 0.8 })).toThrow();
  });
});

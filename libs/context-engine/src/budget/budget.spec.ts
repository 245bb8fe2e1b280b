import { computeBudget, computeTriggerTokens } from '.';
import { DEFAULT_POLICY, derivedTargetRatio, PolicyError, policyViolations, resolvePolicy } from '../model/policy';
import fc from 'fast-check';
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

  it('refuses an incoherent policy, naming the setting once', () => {
    expect(() => resolvePolicy({ targetRatio: 0.9, thresholdRatio: 0.8 })).toThrow(PolicyError);
    expect(() => resolvePolicy({ targetRatio: 0.9, thresholdRatio: 0.8 })).toThrow(
      /^policy\.targetRatio: 0\.9 is above the threshold 0\.8/,
    );
  });

  it('a threshold below the default target brings a derived target with it (0.3 → 0.225); an explicit one is kept', () => {
    expect(resolvePolicy({ thresholdRatio: 0.3 })).toMatchObject({ thresholdRatio: 0.3, targetRatio: 0.225 });
    expect(resolvePolicy({ thresholdRatio: 0.3, targetRatio: 0.1 }).targetRatio).toBe(0.1);
    // At or above the default target, the budgets are those of before (the default target).
    expect(resolvePolicy({ thresholdRatio: 0.9 }).targetRatio).toBe(DEFAULT_POLICY.targetRatio);
    expect(resolvePolicy({ thresholdRatio: 0.6 }).targetRatio).toBe(DEFAULT_POLICY.targetRatio);
    const b = computeBudget({ contextWindow: 50_000 }, resolvePolicy({ thresholdRatio: 0.3 }));
    expect(b.thresholdTokens).toBe(Math.floor(b.historyBudget * 0.3));
    expect(b.targetTokens).toBeLessThan(b.thresholdTokens);
  });

  it('every threshold the contract allows makes a budget with 0 < target <= threshold (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.integer({ min: 256, max: 2_000_000 }),
        (threshold, window) => {
          const policy = resolvePolicy({ thresholdRatio: threshold });
          expect(policy.targetRatio).toBeGreaterThan(0);
          expect(policy.targetRatio).toBeLessThanOrEqual(policy.thresholdRatio);
          expect(derivedTargetRatio(threshold)).toBe(policy.targetRatio);
          const b = computeBudget({ contextWindow: window }, policy);
          expect(b.targetTokens).toBeLessThanOrEqual(b.thresholdTokens);
        },
      ),
    );
  });

  it('names unknown settings, wrong types and shares out of range (path: reason)', () => {
    expect(policyViolations({ thresholdRatio: 0.5 })).toEqual([]);
    expect(
      policyViolations({
        treshold: 0.5,
        summaries: 'maybe',
        tail: { budgetRatio: 1.5, conversationalFloor: -1 },
        stages: { prune: 'yes' },
        prune: { protectedTools: [1], protectTokens: 100 },
        minimumTrigger: { minTokens: 10 },
      }),
    ).toEqual([
      expect.stringMatching(/^policy\.treshold: is not a policy setting/),
      'policy.summaries: must be one of on, off',
      'policy.tail.budgetRatio: must be a share between 0 and 1',
      'policy.tail.conversationalFloor: must not be negative',
      'policy.stages.prune: must be a boolean',
      'policy.prune.protectedTools: must be an array of strings',
      'policy.minimumTrigger.fallbackRatio: is required',
    ]);
    expect(() => resolvePolicy({ tail: 'x' } as never)).toThrow(/^policy\.tail: must be an object$/);
  });
});

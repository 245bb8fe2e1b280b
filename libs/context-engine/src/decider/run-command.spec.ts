import type { ChatMessage } from '../model/message';
import { appended, compactCommand, given, history } from '../testing/decider-specification';
import { calls, result, text, toolCall, user } from '../testing/fixtures';
import { decide, effectiveTotal, evolve, foldEvents, runCommand, type SessionState } from '.';

/** Twelve turns of one large tool result each, in a window that holds about half of them: never compacted yet. */
function overThreshold(): SessionState {
  const msgs: ChatMessage[] = [];
  for (let t = 0; t < 12; t++)
    msgs.push(user(`ask ${t}`), calls('', toolCall(`c${t}`, 'bash')), result(`c${t}`, text(3000, t), 'bash'));
  return foldEvents('run', history({ contextWindow: 6000, maxOutputTokens: 0, policy: { summaries: 'off' } }, msgs));
}

describe('runCommand', () => {
  it('decides, then folds every decided event in order', () => {
    const command = compactCommand('auto');
    const { state, events } = runCommand(overThreshold(), command);
    const decided = decide(command, overThreshold());
    expect(events).toEqual(decided);
    expect(events.some((e) => e.type === 'BlockCreated')).toBe(true);
    const folded = decided.reduce(evolve, overThreshold());
    expect(state.entries).toEqual(folded.entries);
    expect(state.active).toEqual(folded.active);
    expect(state.guard).toEqual(folded.guard);
    expect(effectiveTotal(state)).toBeLessThan(effectiveTotal(overThreshold()));
  });

  it('is all or nothing: when folding a decided event throws, the error propagates and the state is as it was', () => {
    const base = overThreshold();
    // A counter that fails on the first count after the ones `decide` makes: the fold of the first block.
    let counted = 0;
    let failAfter = Infinity;
    const counter = {
      ...base.counter,
      message: (m: ChatMessage) => {
        if (++counted > failAfter) throw new Error('the fold failed');
        return base.counter.message(m);
      },
    };
    const state: SessionState = { ...base, counter };
    expect(runCommand(state, compactCommand('auto')).events.length).toBeGreaterThan(0); // it works …
    counted = 0;
    decide(compactCommand('auto'), state);
    failAfter = counted;
    counted = 0;
    const before = {
      entries: [...state.entries],
      active: [...state.active],
      blocks: new Map(state.blocks),
      effectiveTokens: state.effectiveTokens,
      guard: state.guard,
    };
    expect(() => runCommand(state, compactCommand('auto'))).toThrow('the fold failed'); // … until a fold fails
    expect(counted).toBeGreaterThan(failAfter);
    expect(state.entries).toEqual(before.entries);
    expect(state.active).toEqual(before.active);
    expect(state.blocks).toEqual(before.blocks);
    expect(state.effectiveTokens).toBe(before.effectiveTokens);
    expect(state.guard).toBe(before.guard);
  });
});

describe('given / when / then (testing/decider-specification.ts)', () => {
  const config = { contextWindow: 2000, maxOutputTokens: 0 };
  const skipped = { type: 'CompactionSkipped', data: { trigger: 'manual', reason: 'fits' } } as const;

  it('passes when the command decides exactly the events expected, and returns where they lead', () => {
    const { state, events } = given(history(config, [user('hi')]))
      .when(compactCommand('manual'))
      .then([skipped]);
    expect(events).toEqual([skipped]);
    expect(state.originals).toEqual([user('hi')]);
  });

  it('fails when the events differ, when something happened, or when nothing is thrown', () => {
    const spec = given(history(config, [user('hi')]));
    expect(() => spec.when(compactCommand('manual')).then([])).toThrow();
    expect(() =>
      spec.when(compactCommand('manual')).then([{ ...skipped, data: { ...skipped.data, trigger: 'auto' } }]),
    ).toThrow();
    expect(() => spec.when(compactCommand('manual')).thenNothingHappened()).toThrow();
    expect(() => spec.when(compactCommand('manual')).thenThrows()).toThrow();
    spec.when(compactCommand('auto')).thenNothingHappened();
  });

  it('folds the given events afresh for each command', () => {
    const events = [...history(config, [user('a')]), ...appended([user('b')], 1)];
    const spec = given(events);
    spec.when(compactCommand('manual')).then([skipped]);
    const { state } = spec.when(compactCommand('manual')).then([skipped]);
    expect(state.originals).toEqual([user('a'), user('b')]);
  });

  it('thenThrows matches what the command throws', () => {
    const spec = given(history(config));
    spec.when({ type: 'Rename' } as never).thenThrows(/unknown command Rename/);
    expect(() => spec.when({ type: 'Rename' } as never).thenThrows(/something else/)).toThrow();
  });
});

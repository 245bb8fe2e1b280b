import type { CompactionTrigger, SessionEvent } from '../model/events';
import type { ChatMessage } from '../model/message';
import {
  append,
  apply,
  assistant,
  calls,
  command,
  compact,
  replayAll,
  result,
  startSession,
  system,
  text,
  toolCall,
  user,
} from '../testing/fixtures';
import { appended, compactCommand, given, history } from '../testing/decider-specification';
import { auditToolPairs } from '../turns';
import { effectiveHistory, effectiveTotal, evolve, foldEvents, initialSessionState, recount, sessionStats } from '.';
import { overflowUnderestimate } from './decide';

/** A refusal for `reason` (its detail names the figures). */
const refusal = (trigger: CompactionTrigger, reason: string) => ({
  type: 'CompactionRefused',
  data: { trigger, reason, detail: expect.any(String) as string },
});

const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

/** Many turns with tool work: the shape of the pi sessions. */
function agentSession(turns: number, outputChars = 3000): ChatMessage[] {
  const msgs: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    msgs.push(user(`request ${t}: ${text(120, t)}`));
    msgs.push(
      calls(
        `checking ${t}`,
        toolCall(`r${t}`, 'read', { path: `/src/f${t % 4}.ts` }),
        toolCall(`b${t}`, 'bash', { command: `npm test -- ${t}` }),
      ),
    );
    msgs.push(
      result(`r${t}`, `export const v${t} = 1;\n${text(outputChars, t)}`, 'read'),
      result(`b${t}`, text(outputChars, t + 1), 'bash'),
    );
    msgs.push(assistant(`done with ${t}`));
  }
  return msgs;
}

/** Long conversational turns with a little tool work: only summaries / windows can shrink them. */
function chatSession(turns: number): ChatMessage[] {
  const msgs: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    msgs.push(user(`request ${t}: ${text(600, t)}`));
    msgs.push(calls('', toolCall(`c${t}`, 'bash', { command: `ls ${t}` })), result(`c${t}`, `file${t}.ts`, 'bash'));
    msgs.push(assistant(`answer ${t}: ${text(2400, t + 3)}`));
  }
  return msgs;
}

describe('decider: no-op and trivial sessions (SCENARIOS #1, #2)', () => {
  it('does nothing when the history fits', () => {
    const msgs = Array.from({ length: 10 }, (_, i) => (i % 2 ? assistant(`a${i}`) : user(`u${i}`)));
    const r = replayAll('s1', { contextWindow: 100_000, maxOutputTokens: 0 }, msgs);
    expect(r.events.filter((e) => e.type !== 'MessageAppended' && e.type !== 'SessionConfigured')).toEqual([]);
    expect(effectiveHistory(r.state)).toEqual(msgs);
    expect(compact(r, 'manual')).toEqual([{ type: 'CompactionSkipped', data: { trigger: 'manual', reason: 'fits' } }]);
    expect(sessionStats(r.state)).toMatchObject({
      fits: true,
      blockCount: 0,
      messageCount: 10,
      effectiveMessageCount: 10,
    });
  });

  it('handles the empty and the one-message session', () => {
    const config = { contextWindow: 10_000, maxOutputTokens: 0 };
    const empty = given(history(config)).when(compactCommand()).thenNothingHappened().state;
    expect(effectiveHistory(empty)).toEqual([]);
    expect(sessionStats(empty)).toMatchObject({ fits: true, rawTokens: 0, effectiveTokens: 0 });
    const hello = given(history(config, [user('Hello')]))
      .when(compactCommand())
      .thenNothingHappened().state;
    expect(effectiveHistory(hello)).toEqual([user('Hello')]);
  });
});

describe('decider: budget refusals and the no-loop guard (SCENARIOS #4, #24)', () => {
  it('fails fast when the fixed overhead leaves no history budget', () => {
    const { state } = given(
      history({ contextWindow: 128_000, maxOutputTokens: 100, systemPromptTokens: 1_000_000 }, [user('hi')]),
    )
      .when(compactCommand('manual'))
      .then([refusal('manual', 'budget-unusable')]);
    expect(sessionStats(state)).toMatchObject({ fits: false, historyBudget: 0 });
    expect(sessionStats(state).reason).toMatch(/fixed overhead/);
  });

  it('refuses when system + tools alone reach the threshold instead of compacting again and again', () => {
    const session = history(
      { contextWindow: 40_000, maxOutputTokens: 0, systemPromptTokens: 30_000, toolDefinitionTokens: 3_564 },
      agentSession(3),
    );
    const { events: refused } = given(session)
      .when(compactCommand())
      .then([refusal('auto', 'fixed-overhead-over-threshold')]);
    // Said once: later automatic checks record nothing, a manual request hears it again.
    const said = given([...session, ...refused]);
    for (let i = 0; i < 5; i++) said.when(compactCommand()).thenNothingHappened();
    const { state } = said.when(compactCommand('manual')).then([refusal('manual', 'fixed-overhead-over-threshold')]);
    expect(state.blocks.size).toBe(0);
    expect(sessionStats(state).reason ?? '').toBe('');
  });

  it('two consecutive no-op compactions block further automatic ones until the session grows', () => {
    // One verbatim user message over the threshold: nothing can be done.
    const session = history(
      { contextWindow: 2000, maxOutputTokens: 0, policy: { guard: { retryAfterGrowthRatio: 0.5 } } },
      [user(text(8000))],
    );
    const noProgress: SessionEvent = { type: 'CompactionSkipped', data: { trigger: 'auto', reason: 'no-progress' } };
    given(session).when(compactCommand()).then([noProgress]);
    given([...session, noProgress])
      .when(compactCommand())
      .then([noProgress]);
    const { events: refused } = given([...session, noProgress, noProgress])
      .when(compactCommand())
      .then([refusal('auto', 'no-progress-guard')]);
    // Small growth: still refused (and not repeated).
    const grown = [...session, noProgress, noProgress, ...refused, ...appended([assistant('ok')], 1)];
    given(grown).when(compactCommand()).thenNothingHappened();
    // A new turn re-arms the guard.
    const { state } = given([...grown, ...appended([user('next question')], 2)])
      .when(compactCommand())
      .then([noProgress]);
    // Over the threshold but inside the budget: it still fits.
    expect(sessionStats(state).fits).toBe(true);
  });

  it('refuses after 3 compactions in a row that leave the history over the threshold; a dip does not reset it', () => {
    const policy = {
      guard: { retryAfterGrowthRatio: 100 },
      stages: { truncate: false, prune: false },
      thresholdRatio: 0.6,
      targetRatio: 0.5,
    };
    const r = startSession('s6', { contextWindow: 3500, maxOutputTokens: 0, policy });
    append(r, user('do the long task'));
    let compactions = 0;
    let refused = false;
    for (let i = 0; i < 12 && !refused; i++) {
      append(r, calls('', toolCall(`c${i}`, 'bash', { command: `step ${i}` })));
      append(r, result(`c${i}`, text(3200, i), 'bash'));
      const evs = compact(r);
      compactions += ofType(evs, 'CompactionCompleted').length;
      refused = ofType(evs, 'CompactionRefused').some((e) => e.data.reason === 'compaction-limit');
    }
    expect(refused).toBe(true);
    expect(compactions).toBe(3);
    expect(sessionStats(r.state).fits).toBe(true);
    // The estimate dipping under the threshold (a larger window for a while) does not reset the guard.
    apply(r, [
      { type: 'SessionConfigured', data: { config: { contextWindow: 1_000_000, maxOutputTokens: 0, policy } } },
    ]);
    expect(compact(r)).toEqual([]);
    apply(r, [{ type: 'SessionConfigured', data: { config: { contextWindow: 3500, maxOutputTokens: 0, policy } } }]);
    // Still refused (already said once, so nothing new is recorded) and the streak was not reset.
    expect(compact(r)).toEqual([]);
    expect(r.state.guard.ineffectiveStreak).toBeGreaterThanOrEqual(3);
    expect(sessionStats(r.state).reason).toBeUndefined();
  });
});

describe('decider: anti-thrash hold between compactions (policy.guard.minTurnsBetweenCompactions)', () => {
  /**
   * One long user turn whose first message (verbatim, ~half the budget) cannot be compacted: each compaction
   * lands just under the threshold and the next tool result crosses it again.
   */
  function thrashing(minTurnsBetweenCompactions?: number) {
    const policy = {
      summaries: 'off' as const,
      ...(minTurnsBetweenCompactions !== undefined ? { guard: { minTurnsBetweenCompactions } } : {}),
    };
    const r = startSession('s-hold', { contextWindow: 20_000, maxOutputTokens: 0, policy });
    append(r, user(`do the long task: ${text(60_000)}`));
    return r;
  }
  /** Append call + result steps, deciding after each append; the model-call counts at which compactions ran. */
  function run(r: ReturnType<typeof thrashing>, steps: number, resultChars = 3700, from = 0): number[] {
    const at: number[] = [];
    for (let i = from; i < from + steps; i++) {
      for (const m of [
        calls(`step ${i}`, toolCall(`c${i}`, 'bash', { command: `run ${i}` })),
        result(`c${i}`, text(resultChars, i), 'bash'),
      ]) {
        append(r, m);
        const evs = compact(r);
        if (ofType(evs, 'CompactionCompleted').length > 0) at.push(i + 1);
        expect(sessionStats(r.state).fits).toBe(true);
      }
    }
    return at;
  }
  const gaps = (at: readonly number[]) => at.slice(1).map((c, i) => c - at[i]!);

  it('defaults to 3 model calls', () => {
    expect(thrashing().state.policy.guard.minTurnsBetweenCompactions).toBe(3);
  });

  it('waits minTurnsBetweenCompactions model calls after a compaction while the history is within the budget', () => {
    const free = run(thrashing(0), 20);
    expect(Math.min(...gaps(free))).toBeLessThan(3); // the scenario thrashes without the hold
    const held = run(thrashing(), 20);
    expect(held.length).toBeGreaterThan(3);
    expect(Math.min(...gaps(held))).toBeGreaterThanOrEqual(3);
    expect(held.length).toBeLessThan(free.length);
  });

  it('over the history budget it always compacts, held or not (invariant 1)', () => {
    const r = thrashing();
    const at = run(r, 6);
    const last = at[at.length - 1]!;
    const pending = r.state.guard.callsSinceCompaction;
    expect(pending).toBeLessThan(3);
    // One huge result puts the history over the budget inside the hold: compacted at once.
    append(r, calls('big', toolCall('huge', 'bash', { command: 'cat big.log' })));
    compact(r);
    append(r, result('huge', text(47_000, 7), 'bash'));
    expect(effectiveTotal(r.state)).toBeGreaterThan(r.state.budget.historyBudget);
    expect(r.state.guard.callsSinceCompaction).toBeLessThan(3);
    expect(ofType(compact(r), 'CompactionCompleted')).toHaveLength(1);
    expect(effectiveTotal(r.state)).toBeLessThanOrEqual(r.state.budget.historyBudget);
    expect(last).toBeGreaterThan(0);
  });

  it('never holds back a manual or an overflow compaction', () => {
    for (const trigger of ['manual', 'overflow'] as const) {
      const r = thrashing();
      run(r, 4); // the first compaction ran at call 4 …
      append(r, calls('next', toolCall('n1', 'bash', { command: 'ls' })));
      append(r, result('n1', text(12_500, 9), 'bash'));
      expect(effectiveTotal(r.state)).toBeGreaterThan(r.state.budget.thresholdTokens);
      expect(r.state.guard.callsSinceCompaction).toBe(1);
      expect(compact(r)).toEqual([]); // … so the automatic check is held …
      expect(ofType(compact(r, trigger), 'CompactionCompleted')).toHaveLength(1); // … the others are not
      expect(r.state.guard.callsSinceCompaction).toBe(0);
    }
  });

  it('counts model calls (assistant messages) since the last CompactionCompleted, derived from the events alone', () => {
    const r = thrashing();
    expect(r.state.guard.callsSinceCompaction).toBe(0);
    run(r, 4);
    append(r, user('also update the docs')); // a user message is not a model call
    append(r, assistant('on it'));
    append(r, calls('', toolCall('d1', 'read', { path: '/README.md' })));
    append(r, result('d1', 'readme', 'read')); // nor is a tool result
    expect(r.state.guard.callsSinceCompaction).toBe(2);
    const folded = foldEvents('s-hold', r.events);
    expect(folded.guard).toEqual(r.state.guard);
  });
});

describe('decider: summaries (stage 5) and the offline fallback', () => {
  const config = { contextWindow: 10_000, maxOutputTokens: 0 };

  it('asks for a summary with a deterministic id, then turns the answer into a block', () => {
    const r = startSession('s7', config);
    let request;
    for (const m of chatSession(12)) {
      append(r, m);
      request = ofType(compact(r), 'SummaryRequested')[0]?.data.request;
      if (request) break; // the summarizer answers before the next message
    }
    expect(request).toBeDefined();
    expect(request!.messages.length).toBeGreaterThan(0);
    expect(request!.range.from).toBe(0);
    expect(r.state.originals[request!.range.to + 1]!.role).toBe('user');
    expect(sessionStats(r.state).summaryPending).toBe(true);
    const done = command(r, {
      type: 'CompleteSummary',
      data: { requestId: request!.requestId, summary: 'The user asked for 12 things; all done.' },
    });
    const block = ofType(done, 'BlockCreated')[0]!.data.block;
    expect(block.stage).toBe('summary');
    expect(block.tokensSaved).toBeGreaterThan(0);
    const view = effectiveHistory(r.state);
    expect(view[0]).toMatchObject({ role: 'system' });
    expect(view[0]!.content).toContain('The user asked for 12 things');
    expect(view[1]!.role).toBe('user');
    expect(sessionStats(r.state).summaryPending).toBe(false);
    // A duplicate answer changes nothing.
    given(r.events, 's7')
      .when({ type: 'CompleteSummary', data: { requestId: request!.requestId, summary: 'again' } })
      .thenNothingHappened();
  });

  it('a second summary absorbs the first; reverting restores exactly (SCENARIOS #21)', () => {
    const r = replayAll('s8', config, chatSession(12), () => 'first summary');
    const first = [...r.state.blocks.values()].find((b) => b.stage === 'summary')!;
    expect(first).toBeDefined();
    const beforeSecond = effectiveHistory(r.state);
    let second;
    for (const m of chatSession(40).slice(48)) {
      append(r, m);
      for (const e of compact(r)) {
        if (e.type !== 'SummaryRequested') continue;
        expect(e.data.request.previousSummary).toContain('first summary');
        second = ofType(
          command(r, {
            type: 'CompleteSummary',
            data: { requestId: e.data.request.requestId, summary: 'merged summary' },
          }),
          'BlockCreated',
        )[0]?.data.block;
      }
      if (second) break;
    }
    expect(second).toBeDefined();
    expect(second!.range.from).toBeLessThanOrEqual(first.range.from);
    expect(second!.range.to).toBeGreaterThanOrEqual(first.range.to);
    const view = effectiveHistory(r.state);
    expect(view.filter((m) => m.content.includes('first summary'))).toHaveLength(0);
    const withSecond = r.state;
    r.state = evolve(withSecond, { type: 'BlockReverted', data: { blockId: second!.id } });
    expect(
      effectiveHistory(r.state)
        .slice(0, beforeSecond.length - 0)
        .filter((m) => m.content.includes('first summary')),
    ).toHaveLength(1);
    // Reverting everything gives the originals back, exactly.
    for (const id of [...r.state.active].reverse())
      r.state = evolve(r.state, { type: 'BlockReverted', data: { blockId: id } });
    expect(effectiveHistory(r.state)).toEqual(r.state.originals);
  });

  it('a summary that is not smaller is rejected and the offline digest is used (SCENARIOS #25)', () => {
    const r = startSession('s9', config);
    let evs: SessionEvent[] = [];
    for (const m of chatSession(12)) {
      append(r, m);
      const req = ofType(compact(r), 'SummaryRequested')[0];
      if (req) {
        evs = command(r, {
          type: 'CompleteSummary',
          data: { requestId: req.data.request.requestId, summary: text(200_000) },
        });
        break;
      }
    }
    expect(ofType(evs, 'SummaryRejected')[0]?.data.reason).toBe('not-smaller');
    expect(ofType(evs, 'BlockCreated').map((e) => e.data.block.stage)).toContain('digest');
    for (const e of ofType(evs, 'BlockCreated'))
      expect(e.data.block.tokensAfter).toBeLessThan(e.data.block.tokensBefore);
  });

  it('a summary failure loses nothing: digest block, originals intact, revertible (SCENARIOS #26)', () => {
    const msgs = chatSession(12);
    const r = replayAll('s10', config, msgs, 'fail');
    expect(r.events.some((e) => e.type === 'SummaryFailed')).toBe(true);
    const digest = [...r.state.blocks.values()].find((b) => b.stage === 'digest')!;
    expect(digest.edits[0]!.replacement[0]!.content).toMatch(/^\[Digest of earlier turns/);
    expect(digest.edits[0]!.replacement[0]!.content).toContain('request 0');
    expect(digest.edits[0]!.replacement[0]!.content.length).toBeLessThanOrEqual(8000);
    expect(r.state.originals).toEqual(msgs);
    expect(sessionStats(r.state).fits).toBe(true);
    for (const id of [...r.state.active].reverse())
      r.state = evolve(r.state, { type: 'BlockReverted', data: { blockId: id } });
    expect(effectiveHistory(r.state)).toEqual(msgs);
  });

  it("summaries 'off' uses the digest at once, without a request", () => {
    const r = replayAll('s11', { ...config, policy: { summaries: 'off' } }, chatSession(12), 'leave');
    expect(r.events.some((e) => e.type === 'SummaryRequested')).toBe(false);
    expect([...r.state.blocks.values()].some((b) => b.stage === 'digest')).toBe(true);
    expect(sessionStats(r.state).fits).toBe(true);
  });

  it('never leaves a session over budget while a summary is pending', () => {
    const r = startSession('s12', config);
    for (const m of chatSession(40)) {
      append(r, m);
      compact(r); // requests are never answered
      expect(sessionStats(r.state).fits).toBe(true);
    }
    expect(sessionStats(r.state).summaryPending).toBe(true);
  });

  it('a stale summary (its range no longer fits the overlay) is asked again on the current view', () => {
    const r = startSession('s13', config);
    let req;
    for (const m of chatSession(40)) {
      append(r, m);
      req ??= ofType(compact(r), 'SummaryRequested')[0]?.data.request;
    }
    const evs = command(r, { type: 'CompleteSummary', data: { requestId: req!.requestId, summary: 'short' } });
    const rejected = ofType(evs, 'SummaryRejected');
    if (rejected.length) {
      expect(rejected[0]!.data.reason).toBe('stale-range');
      expect(ofType(evs, 'SummaryRequested').length + ofType(evs, 'BlockCreated').length).toBeGreaterThan(0);
    } else {
      expect(ofType(evs, 'BlockCreated')[0]!.data.block.stage).toBe('summary');
    }
    expect(auditToolPairs(effectiveHistory(r.state)).orphanResults).toEqual([]);
  });
});

describe('decider: knowledge survives compaction (invariant 8)', () => {
  const all = (r: { state: Parameters<typeof effectiveHistory>[0] }) =>
    effectiveHistory(r.state)
      .map((m) => m.content)
      .join('\n');

  it('the emergency marker carries the working state of what it drops, not a bare count', () => {
    const r = startSession('k1', { contextWindow: 60_000, maxOutputTokens: 0, policy: { summaries: 'off' } });
    for (const m of agentSession(10, 1500)) append(r, m);
    const evs = command(r, {
      type: 'Compact',
      data: { trigger: 'overflow', errorText: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    const marker = ofType(evs, 'BlockCreated')[0]!.data.block.edits[0]!.replacement[0]!.content;
    expect(marker).toMatch(
      /^\[Context compacted: \d+ messages removed after a context-overflow error\]\n# Working state\n/,
    );
    expect(marker).toContain('request 0:'); // the first ask
    expect(marker).toMatch(/\/src\/f0\.ts \(read/);
    expect(marker).toMatch(/`npm test -- 0`/);
  });

  it("the session's first request survives any stack of blocks (summaries off: digests, windows, markers)", () => {
    for (const policy of [{ summaries: 'off' as const }, { summaries: 'off' as const, stages: { splitTurn: false } }]) {
      const r = replayAll('k2', { contextWindow: 12_000, maxOutputTokens: 0, policy }, agentSession(40, 2000));
      expect(r.state.active.length).toBeGreaterThan(1);
      expect(effectiveHistory(r.state).some((m) => m.content.startsWith('request 0:'))).toBe(false);
      expect(all(r)).toContain('request 0:');
      expect(all(r)).toContain('request 39:');
    }
  });

  it('a model summary that leaves out files, commands or errors gets them appended from the messages', () => {
    const r = startSession('k4', { contextWindow: 12_000, maxOutputTokens: 0 });
    let request;
    for (const m of agentSession(30, 2000)) {
      append(r, m);
      request = ofType(compact(r), 'SummaryRequested')[0]?.data.request;
      if (request) break;
    }
    expect(request).toBeDefined();
    const done = command(r, {
      type: 'CompleteSummary',
      data: { requestId: request!.requestId, summary: 'The user asked for several checks of /src/f0.ts.' },
    });
    const content = ofType(done, 'BlockCreated')[0]!.data.block.edits[0]!.replacement[0]!.content;
    expect(content).toContain('The user asked for several checks of /src/f0.ts.');
    expect(content).toContain('# Kept from the messages (not in the summary above)');
    const kept = content.slice(content.indexOf('# Kept from the messages'));
    expect(kept).toMatch(/\/src\/f1\.ts \(read/);
    expect(kept).toMatch(/`npm test -- 0`/);
    expect(kept).not.toContain('/src/f0.ts'); // the summary names it already
  });

  it('after a revert the next compaction reads the restored originals again', () => {
    const r = startSession('k3', { contextWindow: 12_000, maxOutputTokens: 0, policy: { summaries: 'off' } });
    const msgs = agentSession(30, 2000);
    for (const m of msgs.slice(0, 60)) {
      append(r, m);
      compact(r);
    }
    const blocks = [...r.state.active];
    expect(blocks.length).toBeGreaterThan(0);
    apply(
      r,
      blocks.map((id) => ({ type: 'BlockReverted' as const, data: { blockId: id } })),
    );
    expect(effectiveHistory(r.state)).toEqual(r.state.originals);
    for (const m of msgs.slice(60)) {
      append(r, m);
      compact(r);
    }
    expect(all(r)).toContain('request 0:');
    expect(all(r)).toMatch(/\/src\/f1\.ts \(read/);
  });
});

describe('decider: overflow, roles, chained compactions', () => {
  it('the emergency path drops the oldest ~50% of turns and aims at 70% of the budget', () => {
    const r = startSession('s14', { contextWindow: 60_000, maxOutputTokens: 0, policy: { summaries: 'off' } });
    for (const m of agentSession(10, 1500)) append(r, m);
    expect(compact(r)).toEqual([]); // under the threshold by our estimate
    const evs = command(r, {
      type: 'Compact',
      data: { trigger: 'overflow', errorText: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    const first = ofType(evs, 'BlockCreated')[0]!.data.block;
    expect(first.stage).toBe('emergency');
    const turnsLeft = effectiveHistory(r.state).filter((m) => m.role === 'user').length;
    // 10 turns; the last 3 hold the conversational floor; half of the 7 older ones (rounded up) are dropped.
    expect(turnsLeft).toBeLessThanOrEqual(6);
    expect(sessionStats(r.state).effectiveTokens).toBeLessThanOrEqual(Math.floor(r.state.budget.historyBudget * 0.7));
  });

  it('uses the numbers of the overflow error to correct an estimate that undershot', () => {
    const build = () => {
      const r = startSession('s14b', { contextWindow: 100_000, maxOutputTokens: 0, policy: { summaries: 'off' } });
      for (const m of agentSession(30, 4700)) append(r, m);
      return r;
    };
    const ours = sessionStats(build().state).effectiveTokens;
    const plain = build();
    command(plain, { type: 'Compact', data: { trigger: 'overflow', errorText: 'prompt is too long' } });
    const informed = build();
    const text = `This model's maximum context length is 100000 tokens. However, your messages resulted in ${ours * 2} tokens.`;
    expect(overflowUnderestimate(informed.state, text)).toBeCloseTo(2, 1);
    command(informed, { type: 'Compact', data: { trigger: 'overflow', errorText: text } });
    expect(sessionStats(informed.state).effectiveTokens).toBeLessThan(sessionStats(plain.state).effectiveTokens);
    expect(sessionStats(informed.state).effectiveTokens).toBeLessThanOrEqual(
      Math.floor((informed.state.budget.historyBudget * 0.7) / 2) + 1,
    );
  });

  it('keeps a user message and a valid first role after compaction (SCENARIOS #23)', () => {
    const msgs: ChatMessage[] = [system('you are helpful'), user('only ask')];
    for (let i = 0; i < 20; i++)
      msgs.push(calls('', toolCall(`c${i}`, 'bash')), result(`c${i}`, text(3000, i), 'bash'));
    const r = replayAll('s15', { contextWindow: 8000, maxOutputTokens: 0 }, msgs);
    const view = effectiveHistory(r.state);
    expect(view.some((m) => m.role === 'user')).toBe(true);
    expect(view.find((m) => m.role !== 'system')!.role).toBe('user');
    expect(view).toContainEqual(user('only ask'));
  });

  it('chained compactions with new tool turns in between never orphan (SCENARIOS #29)', () => {
    const r = startSession('s16', { contextWindow: 20_000, maxOutputTokens: 0 });
    const msgs = agentSession(30);
    msgs.forEach((m, i) => {
      append(r, m);
      for (const e of compact(r)) {
        if (e.type === 'SummaryRequested')
          command(r, {
            type: i % 2 ? 'FailSummary' : 'CompleteSummary',
            data: { requestId: e.data.request.requestId, summary: `s${i}`, reason: 'x' },
          } as never);
      }
      const audit = auditToolPairs(effectiveHistory(r.state));
      expect(audit.orphanResults).toEqual([]);
      expect(audit.duplicateResults).toEqual([]);
    });
    expect(r.state.active.length).toBeGreaterThan(1);
  });
});

describe('decider: determinism, idempotence, incremental totals', () => {
  it('the same events give the same blocks and view; redelivered events change nothing', () => {
    const a = replayAll('s17', { contextWindow: 20_000, maxOutputTokens: 0 }, agentSession(20), () => 'sum');
    const b = replayAll('s17', { contextWindow: 20_000, maxOutputTokens: 0 }, agentSession(20), () => 'sum');
    expect(b.events).toEqual(a.events);
    const folded = foldEvents('s17', a.events);
    expect(effectiveHistory(folded)).toEqual(effectiveHistory(a.state));
    const twice = foldEvents(
      's17',
      a.events.flatMap((e) => [e, e]),
    );
    expect(effectiveHistory(twice)).toEqual(effectiveHistory(a.state));
    expect([...twice.active]).toEqual([...a.state.active]);
  });

  it('keeps the running totals equal to a full recount', () => {
    const r = replayAll('s18', { contextWindow: 20_000, maxOutputTokens: 0 }, agentSession(20), 'fail');
    const full = recount(r.state);
    expect(r.state.rawTokens).toBe(full.rawTokens);
    expect(r.state.effectiveTokens).toBe(full.effectiveTokens);
    expect(r.state.entries).toEqual(full.entries);
    expect(r.state.userPositions).toEqual(full.userPositions);
    const stats = sessionStats(r.state);
    const saved = Object.values(stats.savedByStage).reduce((s, v) => s + (v ?? 0), 0);
    expect(saved).toBe(stats.rawTokens - stats.effectiveTokens);
  });

  it('rejects a gap in positions and a block from another session', () => {
    const s = initialSessionState('x');
    expect(() => evolve(s, { type: 'MessageAppended', data: { position: 3, message: user('late') } })).toThrow(/skips/);
    given([], 'x')
      .when({ type: 'FailSummary', data: { requestId: 'nope', reason: 'x' } })
      .thenNothingHappened();
  });
});

describe('decider: the summarized span never takes everything (SCENARIOS #12, #15, #22)', () => {
  it('keeps at least keepRecentMin messages and the whole last turn out of the span', () => {
    const r = startSession('s19', {
      contextWindow: 10_000,
      maxOutputTokens: 0,
      policy: { tail: { budgetRatio: 0.001, conversationalFloor: 1 } },
    });
    let req;
    for (const m of chatSession(20)) {
      append(r, m);
      req ??= ofType(compact(r), 'SummaryRequested')[0]?.data.request;
    }
    expect(req).toBeDefined();
    const n = req!.basedOnPosition + 1;
    expect(req!.range.to).toBeLessThan(n - 4);
    expect(r.state.originals[req!.range.to + 1]!.role).toBe('user'); // the kept part starts with the ask, not a dangling reply
    const lastUser = r.state.originals
      .slice(0, n)
      .map((m) => m.role)
      .lastIndexOf('user');
    expect(req!.range.to).toBeLessThan(lastUser);
  });

  it('a resumed session re-submitting its last user message keeps the summary (Roo #11487)', () => {
    const r = replayAll('s20', { contextWindow: 10_000, maxOutputTokens: 0 }, chatSession(12), () => 'kept summary');
    const summaries = () => r.state.entries.filter((e) => e.stage === 'summary').length;
    expect(summaries()).toBe(1);
    const lastUser = [...r.state.originals].reverse().find((m) => m.role === 'user')!;
    append(r, lastUser);
    compact(r);
    expect(summaries()).toBe(1);
    expect(effectiveHistory(r.state)[effectiveHistory(r.state).length - 1]).toEqual(lastUser);
  });
});

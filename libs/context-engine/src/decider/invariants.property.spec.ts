/**
 * DESIGN.md invariants 1-6 as properties over generated agent sessions (parallel calls, huge outputs,
 * repeated reads of the same and different paths, long single turns, missing results), checked at every
 * append + decide.
 */
import fc from 'fast-check';
import type { SessionConfig, SessionEvent } from '../model/events';
import type { ChatMessage } from '../model/message';
import { append, apply, command, compact, startSession, text, type Replay } from '../testing/fixtures';
import { STEPS_HEADING } from '../stages';
import { callOfStepLine } from '../summarizer/call-outcome';
import { counterFor, estimateMessagesTokens } from '../tokens';
import {
  checkInvariants,
  effectiveHistory,
  effectiveTotal,
  foldEvents,
  recount,
  stepViolations,
  type StepStart,
} from '.';
import found from './invariants.found.json';

interface CallSpec {
  /** `launch`: a shell command left running in the background (`cmd & echo $!`), its PID first in the result. */
  tool: 'read' | 'bash' | 'edit' | 'skill' | 'grep' | 'launch';
  path: '/a.ts' | '/b.ts' | '/c.ts';
  ranged: boolean;
  size: number;
  error: boolean;
}
interface StepSpec {
  calls: CallSpec[];
  reverse: boolean;
  text: number | null;
  dropResult: boolean;
}
interface TurnSpec {
  userChars: number;
  steps: StepSpec[];
  reply: number | null;
}
interface SessionSpec {
  system: number | null;
  turns: TurnSpec[];
  /** The window as a share of the session's own estimated size (at least 1 500 tokens). */
  window: number;
  summaries: 'on' | 'off';
  /**
   * Policy digestSummaries: a model summary is asked for each range condensed deterministically too ('on'), or for
   * the largest note when the session pauses ('pause': here every fourth message).
   */
  digestSummaries: 'on' | 'pause' | 'off';
  answer: 'complete' | 'fail' | 'leave' | 'late';
  /** Who answers: a model, or the offline summarizer as the fallback of a failed model call. */
  answeredBy: 'model' | 'offline';
  provider: 'anthropic' | 'openai';
  /** Steps (mod the session length) at which the user reverts the newest active block. */
  reverts: number[];
  /** Steps at which the agent reports a provider overflow. */
  overflows: number[];
}

const arbSize = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 600 }) },
  { weight: 4, arbitrary: fc.integer({ min: 600, max: 6000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 6000, max: 40_000 }) },
);
const arbCall: fc.Arbitrary<CallSpec> = fc.record({
  tool: fc.constantFrom('read', 'read', 'bash', 'edit', 'skill', 'grep', 'launch'),
  path: fc.constantFrom('/a.ts', '/b.ts', '/c.ts'),
  ranged: fc.boolean(),
  size: arbSize,
  error: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
});
const arbStep: fc.Arbitrary<StepSpec> = fc.record({
  calls: fc.array(arbCall, { minLength: 1, maxLength: 3 }),
  reverse: fc.boolean(),
  text: fc.option(fc.integer({ min: 0, max: 200 })),
  dropResult: fc.constantFrom(...Array<boolean>(19).fill(false), true),
});
const arbTurn: fc.Arbitrary<TurnSpec> = fc.record({
  userChars: fc.integer({ min: 1, max: 400 }),
  steps: fc.array(arbStep, { maxLength: 8, size: 'medium' }),
  reply: fc.option(fc.integer({ min: 1, max: 400 })),
});
export const arbSession: fc.Arbitrary<SessionSpec> = fc.record({
  system: fc.option(fc.integer({ min: 10, max: 2000 })),
  turns: fc.array(arbTurn, { minLength: 1, maxLength: 10, size: 'medium' }),
  window: fc.double({ min: 0.15, max: 1.2, noNaN: true }),
  summaries: fc.constantFrom('on', 'off'),
  digestSummaries: fc.constantFrom('on', 'pause', 'off'),
  answer: fc.constantFrom('complete', 'fail', 'leave', 'late'),
  answeredBy: fc.constantFrom('model', 'model', 'offline'),
  provider: fc.constantFrom('anthropic', 'openai'),
  reverts: fc.array(fc.nat(80), { maxLength: 3 }),
  overflows: fc.array(fc.nat(120), { maxLength: 2 }),
});

export function buildMessages(spec: SessionSpec): ChatMessage[] {
  const msgs: ChatMessage[] = [];
  if (spec.system !== null) msgs.push({ role: 'system', content: text(spec.system, 99) });
  spec.turns.forEach((turn, t) => {
    msgs.push({ role: 'user', content: `ask ${t} ${text(turn.userChars, t)}` });
    turn.steps.forEach((step, s) => {
      const calls = step.calls.map((c, k) => ({
        id: `c${t}_${s}_${k}`,
        name: c.tool === 'launch' ? 'bash' : c.tool,
        arguments: JSON.stringify(
          c.tool === 'launch'
            ? { command: `nohup serve ${c.path} > ${c.path}.log 2>&1 & echo $!` }
            : c.tool === 'bash' || c.tool === 'grep'
              ? { command: `run ${c.path}` }
              : { path: c.path, ...(c.ranged ? { offset: 10, limit: 20 } : {}) },
        ),
      }));
      msgs.push({ role: 'assistant', content: step.text === null ? '' : text(step.text, s), toolCalls: calls });
      const last = t === spec.turns.length - 1 && s === turn.steps.length - 1;
      const results = step.calls.map((c, k) => ({
        role: 'tool' as const,
        toolCallId: calls[k]!.id,
        toolName: calls[k]!.name,
        content: c.error
          ? `Error: failed ${c.path}`
          : c.tool === 'launch'
            ? `${4000 + t * 100 + s * 10 + k}\nstarted in the background\n${text(c.size, t * 31 + s * 7 + k)}`
            : `${c.path}\n${text(c.size, t * 31 + s * 7 + k)}`,
        ...(c.error ? { isError: true } : {}),
      }));
      const kept = step.dropResult || last ? results.slice(0, results.length - 1) : results;
      msgs.push(...(step.reverse ? [...kept].reverse() : kept));
    });
    if (turn.reply !== null) msgs.push({ role: 'assistant', content: `reply ${t} ${text(turn.reply, t + 5)}` });
  });
  return msgs;
}

export const configOf = (spec: SessionSpec): SessionConfig => ({
  provider: spec.provider,
  contextWindow: Math.max(
    1500,
    Math.floor(spec.window * estimateMessagesTokens(buildMessages(spec), counterFor({ provider: spec.provider }))),
  ),
  maxOutputTokens: 0,
  policy: { summaries: spec.summaries, digestSummaries: spec.digestSummaries },
});

/** DESIGN.md invariants 1-4 and 6 by the engine's own checks, and the running totals against a full recount. */
function checkStep(r: Replay, created: readonly SessionEvent[], before: StepStart, step: number): void {
  expect([...checkInvariants(r.state), ...stepViolations(r.state, created, before)]).toEqual([]);
  // Incremental totals equal a full recount (every few steps: the recount is O(history)).
  if (step % 7 === 0) {
    const full = recount(r.state);
    expect(r.state.rawTokens).toBe(full.rawTokens);
    expect(r.state.effectiveTokens).toBe(full.effectiveTokens);
    expect(r.state.entries).toEqual(full.entries);
  }
}

/**
 * The paths and commands a working state lists, and those its note's step lines name (the facts a model summary must
 * carry).
 */
function listedFacts(content: string): string[] {
  const out: string[] = [];
  const steps = content.split(`\n${STEPS_HEADING}\n`)[1];
  for (const line of steps?.split('\n') ?? []) {
    const args = JSON.parse(callOfStepLine(line, 'fact')?.call.arguments ?? '{}') as Record<string, unknown>;
    if (typeof args.command === 'string') out.push(args.command);
    else if (typeof args.path === 'string') out.push(args.path);
  }
  const state = content.split('\n# Working state\n')[1];
  if (!state) return out;
  let section = '';
  for (const line of state.split('\n')) {
    if (line.startsWith('#')) section = line;
    else if (section === '## Files touched' && line.startsWith('- ') && !line.startsWith('- (+'))
      out.push(line.slice(2).replace(/ \([^()]*\)$/, ''));
    else if (section === '## Commands run' && line.startsWith('- `')) out.push(/^- `([^`]+)`/.exec(line)![1]!);
  }
  return out;
}

/**
 * A model summary superseding a deterministic replacement: an offline answer never supersedes; a model's does
 * (as a summary block over exactly the replacement's range, smaller than it) or is rejected, leaving the
 * replacement; what supersedes carries every file and command the replacement's working state listed (invariant 8).
 */
function checkSupersede(
  r: Replay,
  supersedes: { blockId: string },
  answered: readonly SessionEvent[],
  provider: string,
): void {
  const created = answered.flatMap((e) => (e.type === 'BlockCreated' ? [e.data.block] : []));
  const superseded = r.state.blocks.get(supersedes.blockId)!;
  if (provider === 'offline' || created.length === 0) {
    expect(created).toEqual([]);
    expect(answered.map((e) => e.type)).toEqual(answered.length ? ['SummaryRejected'] : []);
    return;
  }
  expect(created).toHaveLength(1);
  const block = created[0]!;
  expect(block.stage).toBe('summary');
  expect(block.range).toEqual({ from: superseded.edits[0]!.from, to: superseded.edits[0]!.to });
  const replaced = superseded.edits[0]!.replacement[0]!.content;
  const content = block.edits[0]!.replacement[0]!.content;
  for (const fact of listedFacts(replaced)) expect(content).toContain(fact);
}

export function simulate(spec: SessionSpec, check: boolean): Replay {
  const r = startSession('prop', configOf(spec));
  const late: { id: string; due: number }[] = [];
  buildMessages(spec).forEach((m, step) => {
    append(r, m);
    const created: SessionEvent[] = [];
    if (spec.reverts.includes(step) && r.state.active.length > 0) {
      // A user revert: not part of this step's "created" (the view after it is the reference below).
      apply(r, [{ type: 'BlockReverted', data: { blockId: r.state.active[r.state.active.length - 1]! } }]);
    }
    const before: StepStart = { view: effectiveHistory(r.state), tokens: effectiveTotal(r.state) };
    created.push(
      ...(spec.overflows.includes(step)
        ? command(r, { type: 'Compact', data: { trigger: 'overflow', errorText: 'prompt is too long' } })
        : compact(r)),
    );
    if (spec.digestSummaries === 'pause' && step % 4 === 3) created.push(...command(r, { type: 'SummarizeNote' }));
    const provider = spec.answeredBy === 'model' ? 'local' : 'offline';
    for (const e of created) {
      if (e.type !== 'SummaryRequested') continue;
      const id = e.data.request.requestId;
      if (spec.answer === 'complete') {
        const answered = command(r, {
          type: 'CompleteSummary',
          data: { requestId: id, summary: `summary of ${e.data.request.messages.length} messages`, provider },
        });
        if (check && e.data.request.supersedes) checkSupersede(r, e.data.request.supersedes, answered, provider);
        created.push(...answered);
      } else if (spec.answer === 'fail')
        created.push(...command(r, { type: 'FailSummary', data: { requestId: id, reason: 'provider 503' } }));
      else if (spec.answer === 'late') late.push({ id, due: step + 3 });
    }
    for (const l of late.filter((x) => x.due === step)) {
      created.push(
        ...command(r, {
          type: 'CompleteSummary',
          data: { requestId: l.id, summary: `late summary ${l.id}`, provider },
        }),
      );
    }
    if (check) checkStep(r, created, before, step);
  });
  return r;
}

/**
 * A failing session shrinks slowly (each candidate is a whole session checked at every step): after this long the
 * failure is reported with the counterexample shrunk so far, instead of holding the suite for many minutes.
 * A run that passes takes seconds; one interrupted before any failure passes with the runs it made.
 */
const TIME_LIMIT_MS = 90_000;
/** `INVARIANTS_RUNS=20000` for a long hunt (about 1 failing session in 9,000 once went unseen for days). */
const RUNS = Number(process.env['INVARIANTS_RUNS']) || 120;

describe('engine invariants over generated agent sessions', () => {
  it('hold on the sessions the property once found breaking them', () => {
    for (const spec of found.sessions as SessionSpec[]) simulate(spec, true);
  });

  it('hold at every append + decide (1-4, 6, incremental totals)', () => {
    fc.assert(
      fc.property(arbSession, (spec) => {
        simulate(spec, true);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: (TIME_LIMIT_MS * RUNS) / 120 },
    );
  });

  it('are deterministic: same events → same blocks (ids) and view; a refold gives the same projection (5)', () => {
    fc.assert(
      fc.property(arbSession, (spec) => {
        const a = simulate(spec, false);
        const b = simulate(spec, false);
        expect(b.events).toEqual(a.events);
        const folded = foldEvents('prop', a.events);
        expect(effectiveHistory(folded)).toEqual(effectiveHistory(a.state));
        expect(folded.active).toEqual(a.state.active);
        // Redelivering every event is harmless (idempotent projection).
        const twice = foldEvents(
          'prop',
          a.events.flatMap((e): SessionEvent[] => (e.type === 'SessionConfigured' ? [e] : [e, e])),
        );
        expect(effectiveHistory(twice)).toEqual(effectiveHistory(a.state));
      }),
      { numRuns: 60, interruptAfterTimeLimit: TIME_LIMIT_MS },
    );
  });
});

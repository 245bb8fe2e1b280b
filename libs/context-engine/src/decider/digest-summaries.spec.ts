import type { SessionEvent, SummaryRequest } from '../model/events';
import type { ChatMessage } from '../model/message';
import { STEPS_SUMMARY_HEADER, SPLIT_TURN_HEADER, KEPT_HEADING } from '../stages';
import { missingItems } from '../stages/summary-facts';
import { append, calls, command, compact, result, startSession, text, toolCall, user } from '../testing/fixtures';
import { auditToolPairs } from '../turns';
import { decide, effectiveHistory, effectiveTotal, foldEvents, sessionStats } from '.';

const ofType = <T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

/** An agent session: one user turn, then many steps of reads, test runs and edits with large outputs. */
function oneTurn(steps: number, outputChars = 2500): ChatMessage[] {
  const msgs: ChatMessage[] = [user('Fix the failing parser tests in src/parser and keep the public API unchanged.')];
  for (let s = 0; s < steps; s++) {
    msgs.push(
      calls(
        `step ${s}: checking the parser`,
        toolCall(`r${s}`, 'read', { path: `/repo/src/parser/part${s % 5}.ts` }),
        toolCall(`b${s}`, 'bash', { command: `npm test -- part${s}` }),
      ),
      result(`r${s}`, `export function part${s}() {}\n${text(outputChars, s)}`, 'read'),
      result(
        `b${s}`,
        s % 3 === 0 ? `Error: test part${s} failed\n${text(outputChars, s + 1)}` : text(outputChars, s + 1),
        'bash',
        s % 3 === 0,
      ),
    );
  }
  return msgs;
}

const config = { contextWindow: 12_000, maxOutputTokens: 0, policy: { digestSummaries: 'on' as const } };

/** Appends until the engine asks for a digest summary; returns the run, the request and its decision's events. */
function untilDigestRequest(messages: readonly ChatMessage[], cfg: object = config) {
  const r = startSession('d1', cfg);
  for (const m of messages) {
    append(r, m);
    const events = compact(r);
    const request = ofType(events, 'SummaryRequested').find((e) => e.data.request.supersedes)?.data.request;
    if (request) return { r, request, events };
  }
  return { r, request: undefined as SummaryRequest | undefined, events: [] as SessionEvent[] };
}

const noteOf = (r: ReturnType<typeof startSession>, request: SummaryRequest) =>
  r.state.blocks.get(request.supersedes!.blockId)!.edits[0]!.replacement[0]!.content;

describe('digest summaries: a model summary for a range condensed deterministically (policy digestSummaries)', () => {
  it("asks for the in-turn prefix's summary in the decision that writes the note; the note serves meanwhile", () => {
    const { r, request, events } = untilDigestRequest(oneTurn(40));
    expect(request).toBeDefined();
    const note = ofType(events, 'BlockCreated').find((e) => e.data.block.stage === 'split-turn')!.data.block;
    expect(request!.supersedes).toEqual({ blockId: note.id, stage: 'split-turn' });
    expect(request!.range).toEqual({ from: note.edits[0]!.from, to: note.edits[0]!.to });
    // What the note hides, as the view showed it: the tool calls and their results, no earlier summary.
    expect(request!.messages.some((m) => m.toolCalls?.some((c) => c.name === 'bash'))).toBe(true);
    expect(request!.messages.some((m) => m.role === 'tool')).toBe(true);
    // The size to beat is the note's, not the originals'.
    const noteEntry = r.state.entries.find((e) => e.from === request!.range.from)!;
    expect(request!.tokensBefore).toBe(noteEntry.tokens);
    expect(noteEntry.message.content.startsWith(SPLIT_TURN_HEADER)).toBe(true);
    // Nothing waits for it: the note is in the view and a whole-turn summary is not pending.
    expect(r.state.pendingDigestSummary?.requestId).toBe(request!.requestId);
    expect(r.state.pendingSummary).toBeUndefined();
    expect(sessionStats(r.state).fits).toBe(true);
  });

  it("supersedes the note with the model's summary as a new block, the facts it lost appended; a replay agrees", () => {
    const { r, request } = untilDigestRequest(oneTurn(40));
    const note = noteOf(r, request!);
    const before = effectiveTotal(r.state);
    const summary = 'The agent ran the parser tests and read the parser sources; some tests failed.';
    const done = command(r, {
      type: 'CompleteSummary',
      data: { requestId: request!.requestId, summary, provider: 'local' },
    });
    expect(done.map((e) => e.type)).toEqual(['BlockCreated']);
    const block = ofType(done, 'BlockCreated')[0]!.data.block;
    expect(block.stage).toBe('summary');
    expect(block.range).toEqual(request!.range);
    expect(block.tokensBefore).toBe(request!.tokensBefore);
    expect(block.tokensSaved).toBeGreaterThan(0);
    expect(effectiveTotal(r.state)).toBeLessThan(before);
    const content = block.edits[0]!.replacement[0]!.content;
    expect(
      content.startsWith(`${STEPS_SUMMARY_HEADER} — ${request!.range.to - request!.range.from + 1} messages]`),
    ).toBe(true);
    expect(content).toContain(summary);
    // Never knows less than the note: every file and command of the note's working state is in it.
    const kept = content.slice(content.indexOf(KEPT_HEADING));
    expect(content).toContain(KEPT_HEADING);
    for (const path of note.match(/\/repo\/src\/parser\/part\d\.ts/g)!) expect(content).toContain(path);
    for (const cmd of note.match(/`npm test -- part\d+`/g)!) expect(kept).toContain(cmd);
    expect(kept).toMatch(/- bash npm test -- part0 — Error: test part0 failed \[unresolved\]/); // its status too
    expect(r.state.pendingDigestSummary).toBeUndefined();
    expect(auditToolPairs(effectiveHistory(r.state)).orphanResults).toEqual([]);
    // The answer is an event: a refold of the log gives the same view and blocks.
    const folded = foldEvents('d1', r.events);
    expect(folded.active).toEqual(r.state.active);
    expect(effectiveHistory(folded)).toEqual(effectiveHistory(r.state));
    // A redelivered answer changes nothing.
    expect(
      command(r, { type: 'CompleteSummary', data: { requestId: request!.requestId, summary, provider: 'local' } }),
    ).toEqual([]);
  });

  it('an offline answer, a failure, a summary that does not shrink the note: the note stays, nothing else happens', () => {
    for (const answer of [
      {
        type: 'CompleteSummary' as const,
        summary: 'offline digest text',
        provider: 'offline',
        reason: 'offline-answer',
      },
      { type: 'FailSummary' as const, reason: 'local: timeout' },
      { type: 'CompleteSummary' as const, summary: text(20_000, 3), provider: 'local', reason: 'not-smaller' },
    ]) {
      const { r, request } = untilDigestRequest(oneTurn(40));
      const view = effectiveHistory(r.state);
      const events =
        answer.type === 'FailSummary'
          ? command(r, { type: 'FailSummary', data: { requestId: request!.requestId, reason: answer.reason } })
          : command(r, {
              type: 'CompleteSummary',
              data: { requestId: request!.requestId, summary: answer.summary, provider: answer.provider },
            });
      expect(events).toEqual([
        answer.type === 'FailSummary'
          ? { type: 'SummaryFailed', data: { requestId: request!.requestId, reason: answer.reason } }
          : { type: 'SummaryRejected', data: { requestId: request!.requestId, reason: answer.reason } },
      ]);
      expect(effectiveHistory(r.state)).toEqual(view);
      expect(r.state.pendingDigestSummary).toBeUndefined();
    }
  });

  it('a late answer for a note a newer note absorbed is stale; the newer note has its own request', () => {
    const { r, request } = untilDigestRequest(oneTurn(80));
    const msgs = oneTurn(80);
    let newer: SummaryRequest | undefined;
    for (const m of msgs.slice(r.state.originals.length)) {
      append(r, m);
      newer = ofType(compact(r), 'SummaryRequested').find((e) => e.data.request.supersedes)?.data.request;
      if (newer) break;
    }
    expect(newer).toBeDefined();
    expect(newer!.range.from).toBeLessThanOrEqual(request!.range.from);
    expect(newer!.range.to).toBeGreaterThan(request!.range.to);
    expect(r.state.pendingDigestSummary?.requestId).toBe(newer!.requestId);
    const late = command(r, {
      type: 'CompleteSummary',
      data: { requestId: request!.requestId, summary: 'late', provider: 'local' },
    });
    expect(late).toEqual([]); // no longer pending: the newer request replaced it
    const done = command(r, {
      type: 'CompleteSummary',
      data: { requestId: newer!.requestId, summary: 'The agent worked through the parser tests.', provider: 'local' },
    });
    expect(ofType(done, 'BlockCreated')[0]!.data.block.range).toEqual(newer!.range);
  });

  it('one at a time: while the pending note is still shown, a new condensation asks nothing more', () => {
    const { r, request } = untilDigestRequest(oneTurn(80));
    const requests: SummaryRequest[] = [];
    for (const m of oneTurn(80).slice(r.state.originals.length)) {
      append(r, m);
      requests.push(...ofType(compact(r), 'SummaryRequested').map((e) => e.data.request));
    }
    // Every later request replaced one whose note was absorbed (never two for notes both shown).
    for (const q of requests) expect(q.range.to).toBeGreaterThan(request!.range.to);
    expect(r.state.entries.filter((e) => e.stage === 'split-turn').length).toBeLessThanOrEqual(1);
  });

  it("'off' (the default): no digest summary is ever asked", () => {
    const { request } = untilDigestRequest(oneTurn(60), { contextWindow: 12_000, maxOutputTokens: 0 });
    expect(request).toBeUndefined();
  });
});

describe('a model summary never knows less than the deterministic one (invariant 8)', () => {
  const state = [
    '## User requests',
    '- Fix the failing parser tests in src/parser and keep the public API unchanged.',
    '## Files touched',
    '- /repo/src/parser/tokenize.ts (edit, read×2)',
    '## Commands run',
    '- `npm test` ×2 → last: exit 1: 3 failed, 54 passed',
    '- `git status` → completed',
    '## Errors seen',
    '- bash npm test — TypeError: Cannot read properties of undefined [unresolved]',
    '## Decisions',
    '- guard the empty input first',
    '## Pending work',
    '- rerun the whole suite after the fix',
  ].join('\n');

  it('keeps what the summary leaves out: a command named without its outcome, an error without its status', () => {
    const summary =
      'The user wants the parser tests in src/parser fixed, keeping the public API unchanged. The agent edited ' +
      '/repo/src/parser/tokenize.ts and ran `npm test` and `git status` (completed). npm test is still failing.';
    const missing = missingItems(summary, state)!;
    expect(missing).not.toContain('## User requests'); // reworded, but its words are there
    expect(missing).not.toContain('tokenize.ts');
    expect(missing).toContain('- `npm test` ×2 → last: exit 1: 3 failed, 54 passed'); // its outcome is not
    expect(missing).not.toContain('git status');
    expect(missing).toContain('[unresolved]');
    expect(missing).toContain('## Pending work');
    expect(missing).not.toContain('## Decisions'); // the model's to reword: not checked
  });

  it('keeps nothing when the summary carries it all', () => {
    const summary =
      'Request: fix the failing parser tests in src/parser, keep the public API unchanged. Touched ' +
      '/repo/src/parser/tokenize.ts. `npm test` exit 1 (3 failed); `git status` completed. npm test TypeError ' +
      'still unresolved. Next: rerun the whole suite after the fix.';
    expect(missingItems(summary, state)).toBeUndefined();
  });

  it('a whole-turn summary whose lost facts would not fit is rejected: the offline digest stands in', () => {
    const r = startSession('k9', { contextWindow: 12_000, maxOutputTokens: 0 });
    let request: SummaryRequest | undefined;
    const msgs: ChatMessage[] = [];
    for (let t = 0; t < 30; t++)
      msgs.push(
        user(`request ${t}: ${text(600, t)}`),
        calls('', toolCall(`b${t}`, 'bash', { command: `npm test -- module${t}` })),
        result(`b${t}`, `module${t}.ts`, 'bash'),
        { role: 'assistant', content: `answer ${t}: ${text(2400, t + 3)}` },
      );
    for (const m of msgs) {
      append(r, m);
      request = ofType(compact(r), 'SummaryRequested')[0]?.data.request;
      if (request) break;
    }
    expect(request).toBeDefined();
    // The longest summary (of the filler words, which name no fact) still accepted with its facts appended …
    const answer = (chars: number) =>
      decide(
        {
          type: 'CompleteSummary',
          data: { requestId: request!.requestId, summary: text(chars, 9), provider: 'local' },
        },
        r.state,
      );
    let chars = 200;
    while (ofType(answer(chars + 200), 'BlockCreated')[0]?.data.block.stage === 'summary') chars += 200;
    const accepted = ofType(answer(chars), 'BlockCreated')[0]!.data.block;
    expect(accepted.edits[0]!.replacement[0]!.content).toContain(KEPT_HEADING);
    // … and one a little longer: alone it would still shrink the range, with its facts it would not. Rejected.
    const longer = text(chars + 200, 9);
    expect(r.state.counter.message({ role: 'system', content: longer })).toBeLessThan(accepted.tokensBefore);
    const done = answer(chars + 200);
    expect(done[0]).toEqual({
      type: 'SummaryRejected',
      data: { requestId: request!.requestId, reason: 'not-smaller' },
    });
    const blocks = ofType(done, 'BlockCreated').map((e) => e.data.block);
    expect(blocks.some((b) => b.stage === 'summary')).toBe(false);
    expect(blocks.some((b) => b.stage === 'digest')).toBe(true);
  });
});

describe("policy digestSummaries 'pause': a note's summary is asked when the session pauses (SummarizeNote)", () => {
  const paused = { ...config, policy: { digestSummaries: 'pause' as const } };
  const run = (steps: number) => {
    const r = startSession('p1', paused);
    const asked: SummaryRequest[] = [];
    for (const m of oneTurn(steps)) {
      append(r, m);
      for (const e of ofType(compact(r), 'SummaryRequested')) asked.push(e.data.request);
    }
    return { r, asked };
  };
  const pause = (r: ReturnType<typeof startSession>) =>
    ofType(command(r, { type: 'SummarizeNote' }), 'SummaryRequested').map((e) => e.data.request);

  it('compactions ask nothing; a pause asks for the largest note shown, once, with what it hides', () => {
    const { r, asked } = run(40);
    expect(ofType(r.events, 'BlockCreated').filter((e) => e.data.block.stage === 'split-turn').length).toBeGreaterThan(
      1,
    );
    expect(asked.filter((q) => q.supersedes)).toEqual([]);
    const [request, more] = pause(r);
    expect(more).toBeUndefined();
    const notes = r.state.entries.filter((e) => e.stage === 'split-turn');
    const largest = notes.reduce((a, b) => (b.tokens > a.tokens ? b : a));
    expect(request!.range).toEqual({ from: largest.from, to: largest.to });
    expect(request!.tokensBefore).toBe(largest.tokens);
    expect(request!.supersedes).toEqual({ blockId: largest.blockId, stage: 'split-turn' });
    // What the note hides as the view before it showed it: an earlier note's text as the previous summary, and
    // the calls and results it condensed since, never the note itself.
    expect(request!.messages.some((m) => m.role === 'tool')).toBe(true);
    expect(request!.messages.some((m) => m.content === largest.message.content)).toBe(false);
    expect(request!.previousSummary).toContain('/repo/src/parser/part0.ts');
    // While it is answerable, another pause asks nothing.
    expect(pause(r)).toEqual([]);
  });

  it('a note is asked about once: after a rejected answer the next pause asks for none (or another note)', () => {
    const { r } = run(40);
    const [request] = pause(r);
    const rejected = command(r, {
      type: 'CompleteSummary',
      data: { requestId: request!.requestId, summary: text(20_000), provider: 'local' },
    });
    expect(ofType(rejected, 'SummaryRejected')[0]!.data.reason).toBe('not-smaller');
    for (const again of pause(r)) expect(again.supersedes!.blockId).not.toBe(request!.supersedes!.blockId);
  });

  it('the answer supersedes the note; replaying the same events gives the same state', () => {
    const { r } = run(40);
    const [request] = pause(r);
    const done = command(r, {
      type: 'CompleteSummary',
      data: {
        requestId: request!.requestId,
        summary: 'Ran the parser tests; part0 and part3 failed.',
        provider: 'local',
      },
    });
    expect(ofType(done, 'BlockCreated')[0]!.data.block.stage).toBe('summary');
    expect(r.state.entries.some((e) => e.blockId === request!.supersedes!.blockId)).toBe(false);
    const pairs = auditToolPairs(effectiveHistory(r.state));
    expect([...pairs.orphanResults, ...pairs.duplicateResults]).toEqual([]);
    const replayed = foldEvents('p1', r.events);
    expect(replayed.entries).toEqual(r.state.entries);
    expect([...replayed.notesAsked]).toEqual([...r.state.notesAsked]);
  });

  it("'off' never asks at a pause, and a note under 200 tokens is not worth a call", () => {
    const off = startSession('p2', { ...config, policy: { digestSummaries: 'off' as const } });
    for (const m of oneTurn(40)) {
      append(off, m);
      compact(off);
    }
    expect(pause(off)).toEqual([]);
    const small = startSession('p3', paused);
    for (const m of oneTurn(12, 300)) {
      append(small, m);
      compact(small);
    }
    for (const e of small.state.entries.filter((x) => x.stage && x.tokens < 200)) expect(e).toBeDefined();
    for (const q of pause(small)) expect(q.tokensBefore).toBeGreaterThanOrEqual(200);
  });
});

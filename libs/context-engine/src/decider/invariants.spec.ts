import { ENGINE_VERSION, type CompactionBlock, type Stage } from '../model/block';
import type { SessionEvent } from '../model/events';
import type { ChatMessage } from '../model/message';
import { assistant, calls, result, system, text, toolCall, user } from '../testing/fixtures';
import {
  budgetViolations,
  checkInvariants,
  effectiveHistory,
  effectiveTotal,
  floorPositions,
  floorViolations,
  foldEvents,
  missingFloor,
  pairViolations,
  runCommand,
  stepViolations,
  turnViolations,
  type SessionState,
} from '.';

/** A block hiding [from, to] behind `replacement`, with token figures as given (consistent by default). */
function block(
  id: string,
  from: number,
  to: number,
  replacement: ChatMessage[],
  tokens: { before: number; after: number; saved?: number } = { before: 100, after: 10 },
  stage: Stage = 'digest',
): CompactionBlock {
  return {
    id,
    sessionId: 'inv',
    stage,
    range: { from, to },
    edits: [{ from, to, replacement }],
    tokensBefore: tokens.before,
    tokensAfter: tokens.after,
    tokensSaved: tokens.saved ?? tokens.before - tokens.after,
    basedOnPosition: to,
    engineVersion: ENGINE_VERSION,
  };
}

const created = (b: CompactionBlock): SessionEvent => ({ type: 'BlockCreated', data: { block: b } });

/** A session of these messages (a window large enough for all of them), with these blocks applied. */
function session(messages: ChatMessage[], blocks: CompactionBlock[] = [], contextWindow = 100_000): SessionState {
  return foldEvents('inv', [
    { type: 'SessionConfigured', data: { config: { contextWindow, maxOutputTokens: 0 } } },
    ...messages.map((message, position): SessionEvent => ({ type: 'MessageAppended', data: { position, message } })),
    ...blocks.map(created),
  ]);
}

const note = (content: string): ChatMessage => system(`[Digest of earlier turns] ${content}`);

/** user, call + result, reply; twice (positions 0-3 and 4-7). */
const twoTurns: ChatMessage[] = [
  user('first ask'),
  calls('', toolCall('c1', 'read', { path: '/a.ts' })),
  result('c1', text(400), 'read'),
  assistant('first reply'),
  user('second ask'),
  calls('', toolCall('c2', 'read', { path: '/b.ts' })),
  result('c2', 'b', 'read'),
  assistant('second reply'),
];

describe('invariant checks (decider/invariants.ts)', () => {
  it('hold on a session compacted by the engine itself', () => {
    const msgs: ChatMessage[] = [];
    for (let t = 0; t < 12; t++)
      msgs.push(user(`ask ${t}`), calls('', toolCall(`c${t}`, 'bash')), result(`c${t}`, text(3000, t), 'bash'));
    let state = session(msgs, [], 6000);
    const before = { view: effectiveHistory(state), tokens: effectiveTotal(state) };
    const run = runCommand(state, { type: 'Compact', data: { trigger: 'auto' } });
    state = run.state;
    expect(run.events.some((e) => e.type === 'BlockCreated')).toBe(true);
    expect(checkInvariants(state)).toEqual([]);
    expect(stepViolations(state, run.events, before)).toEqual([]);
  });

  it('1: an over-budget history that a manual compaction could still shrink', () => {
    const msgs = Array.from({ length: 12 }, (_, t) => [user(`ask ${t}`), assistant(text(2000, t))]).flat();
    const state = session(msgs, [], 3000); // never compacted
    expect(budgetViolations(state)).toEqual([
      {
        invariant: 1,
        text: expect.stringMatching(
          /^the effective history \(\d+ tokens\) is over the 3000-token budget although a manual compaction still creates blocks \(.+\)$/,
        ),
      },
    ]);
    expect(budgetViolations(session(msgs))).toEqual([]);
  });

  it('2: a call whose result a block hid, and a view that no longer starts with the user', () => {
    const hidesResult = session(twoTurns, [block('b1', 2, 2, [])]);
    expect(pairViolations(hidesResult).created).toEqual([
      expect.objectContaining({ kind: 'missing-result', toolCallId: 'c1' }),
    ]);
    expect(turnViolations(hidesResult)).toEqual([
      { invariant: 2, text: 'compaction left a call c1 (read) without its result' },
    ]);
    const startsWithReply = session(twoTurns, [block('b2', 0, 2, [])]);
    expect(turnViolations(startsWithReply)).toEqual([
      {
        invariant: 2,
        text: "after the system messages the effective history starts with role 'assistant', not 'user'",
      },
    ]);
  });

  it("2: the originals' own broken pairs are told apart from compaction's", () => {
    const broken = [user('ask'), result('ghost', 'no call', 'read'), ...twoTurns.slice(4)];
    const state = session(broken);
    const pairs = pairViolations(state);
    expect(pairs.input).toEqual([expect.objectContaining({ kind: 'orphan-result', toolCallId: 'ghost' })]);
    expect(pairs.shown).toEqual(pairs.input);
    expect(pairs.created).toEqual([]);
    expect(turnViolations(state)).toEqual([]);
  });

  it('2: a pending call of the final batch is a violation unless allowed', () => {
    const state = session([user('ask'), calls('', toolCall('p1', 'bash'))]);
    expect(pairViolations(state).input).toEqual([expect.objectContaining({ kind: 'missing-result', pending: true })]);
    expect(pairViolations(state, { allowPendingTail: true }).input).toEqual([]);
  });

  it('3: the floor positions and a floor message hidden or replaced', () => {
    expect(floorPositions(twoTurns, 6)).toEqual([0, 3, 4, 7]);
    expect(floorPositions(twoTurns, 1)).toEqual([4, 7]);
    const hidden = session(twoTurns, [block('b1', 3, 3, [note('reply')])]);
    expect(missingFloor(hidden)).toEqual([3]);
    expect(floorViolations(hidden)).toEqual([
      {
        invariant: 3,
        text: 'message 3 (assistant) is not verbatim in the effective history: the last user message, the last reply and the last 6 conversational messages must be',
      },
    ]);
    expect(missingFloor(hidden, [0, 4])).toEqual([]);
    expect(floorViolations(session(twoTurns, [block('b2', 1, 2, [note('read /a.ts')])]))).toEqual([]);
  });

  it('4 and 6: a step whose revert does not restore the view, and blocks that grow or miscount', () => {
    const start = session(twoTurns);
    const before = { view: effectiveHistory(start), tokens: effectiveTotal(start) };
    const b = block('b1', 1, 2, [note('read /a.ts')], { before: 100, after: 10 });
    const state = session(twoTurns, [b]);
    expect(stepViolations(state, [created(b)], before)).toEqual([]);
    expect(stepViolations(state, [created(b)], { ...before, view: before.view.slice(1) })).toEqual([
      { invariant: 4, text: "reverting the step's blocks does not restore the view before it (message 0 differs)" },
    ]);
    expect(stepViolations(state, [created(b)], { ...before, tokens: effectiveTotal(state) })).toEqual([
      {
        invariant: 6,
        text: `the step created blocks but the history went from ${effectiveTotal(state)} to ${effectiveTotal(state)} tokens`,
      },
    ]);
    const grows = block('b2', 1, 2, [note('read /a.ts')], { before: 10, after: 30 });
    expect(stepViolations(session(twoTurns, [grows]), [created(grows)], before)).toEqual(
      expect.arrayContaining([
        { invariant: 6, text: 'block b2 (digest) saves -20 tokens' },
        { invariant: 6, text: expect.stringMatching(/^block b2 \(digest\): /) },
      ]),
    );
    const miscounts = block('b3', 1, 2, [note('read /a.ts')], { before: 100, after: 10, saved: 50 });
    expect(stepViolations(session(twoTurns, [miscounts]), [created(miscounts)], before)).toEqual(
      expect.arrayContaining([{ invariant: 6, text: 'block b3 (digest) says it saves 50 tokens, not 100 − 10' }]),
    );
    const completed: SessionEvent = {
      type: 'CompactionCompleted',
      data: {
        trigger: 'auto',
        tokensBefore: 500,
        tokensAfter: 500,
        blockIds: ['b1'],
        stages: ['digest'],
        fits: true,
        summaryRequested: false,
      },
    };
    expect(stepViolations(state, [created(b), completed], before)).toEqual([
      { invariant: 6, text: 'a compaction with blocks went from 500 to 500 tokens' },
    ]);
  });
});

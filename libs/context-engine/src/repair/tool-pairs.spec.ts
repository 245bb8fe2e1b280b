import fc from 'fast-check';
import { sharedSessions } from '../../../../test/support/shared-data';
import type { ChatMessage, ToolCall } from '../model/message';
import { SYNTHETIC_TOOL_RESULT, findToolPairViolations, repairToolPairs, resolveToolResultCallIds } from './index';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const reply = (content: string): ChatMessage => ({ role: 'assistant', content });
const calls = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: `t_${id}`, arguments: '{}' })),
});
const result = (id: string, content = `out ${id}`): ChatMessage => ({
  role: 'tool',
  content,
  toolCallId: id,
  toolName: `t_${id}`,
});
const legacyResult = (content: string): ChatMessage => ({ role: 'tool', content });

describe('repairToolPairs: valid histories are untouched (SCENARIOS #9)', () => {
  const cases: [string, ChatMessage[]][] = [
    ['a 2-wide parallel batch', [user('go'), calls('c1', 'c2'), result('c1'), result('c2')]],
    [
      'a 5-wide parallel batch',
      [user('go'), calls('a', 'b', 'c', 'd', 'e'), ...['a', 'b', 'c', 'd', 'e'].map((id) => result(id))],
    ],
    [
      'results in reverse order',
      [user('go'), calls('a', 'b', 'c', 'd', 'e'), ...['e', 'd', 'c', 'b', 'a'].map((id) => result(id))],
    ],
    ['results without ids', [user('go'), calls('c1', 'c2'), legacyResult('one'), legacyResult('two'), reply('done')]],
    ['an assistant-first history', [calls('c1'), result('c1'), reply('ok'), user('thanks')]],
    ['no tools at all', [user('hi'), reply('hello'), user('bye')]],
    ['an empty history', []],
  ];

  it.each(cases)('%s: nothing reported, same items returned', (_, history) => {
    expect(findToolPairViolations(history)).toEqual([]);
    const repaired = repairToolPairs(history);
    expect(repaired).toMatchObject({
      changed: false,
      orphanResultsRemoved: 0,
      missingResultsSynthesized: 0,
      duplicateResultsRemoved: 0,
    });
    expect(repaired.messages).toHaveLength(history.length);
    repaired.messages.forEach((m, i) => expect(m).toBe(history[i]));
  });
});

describe('repairToolPairs: broken histories (SCENARIOS #10)', () => {
  it('removes a leading result whose call was cut away', () => {
    const history = [result('gone'), user('next'), calls('c1'), result('c1'), reply('done')];
    expect(findToolPairViolations(history)).toEqual([{ kind: 'orphan-result', index: 0, toolCallId: 'gone' }]);
    const repaired = repairToolPairs(history);
    expect(repaired.orphanResultsRemoved).toBe(1);
    expect(repaired.messages).toEqual(history.slice(1));
    expect(findToolPairViolations(repaired.messages)).toEqual([]);
  });

  it('synthesizes a result right after the last result of the batch for a call left without one', () => {
    const history = [user('go'), calls('c1', 'c2', 'c3'), result('c2'), user('why?')];
    const repaired = repairToolPairs(history);
    expect(repaired.missingResultsSynthesized).toBe(2);
    expect(repaired.messages).toEqual([
      user('go'),
      calls('c1', 'c2', 'c3'),
      result('c2'),
      { role: 'tool', content: SYNTHETIC_TOOL_RESULT, toolCallId: 'c1', toolName: 't_c1' },
      { role: 'tool', content: SYNTHETIC_TOOL_RESULT, toolCallId: 'c3', toolName: 't_c3' },
      user('why?'),
    ]);
  });

  it('keeps the first of duplicate results and synthesizes nothing', () => {
    const history = [user('go'), calls('c1'), result('c1', 'first'), result('c1', 'second'), reply('ok')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'duplicate-result', index: 3, toolCallId: 'c1', firstResultIndex: 2 },
    ]);
    const repaired = repairToolPairs(history);
    expect(repaired).toMatchObject({ duplicateResultsRemoved: 1, missingResultsSynthesized: 0, changed: true });
    expect(repaired.messages).toEqual([user('go'), calls('c1'), result('c1', 'first'), reply('ok')]);
  });

  it('reports a duplicate that arrives after the batch closed against the first result', () => {
    const history = [calls('c1'), result('c1', 'first'), user('more'), result('c1', 'late copy')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'duplicate-result', index: 3, toolCallId: 'c1', firstResultIndex: 1 },
    ]);
    expect(repairToolPairs(history).messages).toEqual(history.slice(0, 3));
  });

  it('removes a result placed before its call and answers the call synthetically', () => {
    const history = [user('go'), result('c1'), calls('c1'), reply('ok')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'result-before-call', index: 1, toolCallId: 'c1', callMessageIndex: 2 },
      { kind: 'missing-result', callMessageIndex: 2, toolCallId: 'c1', toolName: 't_c1', pending: false },
    ]);
    const repaired = repairToolPairs(history);
    expect(repaired).toMatchObject({ orphanResultsRemoved: 1, missingResultsSynthesized: 1 });
    expect(findToolPairViolations(repaired.messages)).toEqual([]);
  });

  it('moves a result found after its batch closed back to the batch instead of losing it', () => {
    const history = [user('go'), calls('c1', 'c2'), result('c1'), user('interrupt'), result('c2', 'real output')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'displaced-result', index: 4, toolCallId: 'c2', callMessageIndex: 1 },
    ]);
    const repaired = repairToolPairs(history);
    expect(repaired.displacedResultsMoved).toBe(1);
    expect(repaired.messages).toEqual([
      user('go'),
      calls('c1', 'c2'),
      result('c1'),
      result('c2', 'real output'),
      user('interrupt'),
    ]);
  });

  it('pairs id-less results positionally and drops the ones no call is left for', () => {
    const history = [calls('c1', 'c2'), result('c2'), legacyResult('x'), legacyResult('y')];
    expect(resolveToolResultCallIds(history)).toEqual([undefined, 'c2', 'c1', undefined]);
    expect(findToolPairViolations(history)).toEqual([{ kind: 'orphan-result', index: 3 }]);
    expect(repairToolPairs(history).messages).toEqual(history.slice(0, 3));
  });

  it('renames a reused call id together with the result that answers it', () => {
    const history = [calls('c1'), result('c1', 'a'), user('again'), calls('c1'), result('c1', 'b')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'duplicate-call-id', callMessageIndex: 3, toolCallId: 'c1', firstCallMessageIndex: 0 },
    ]);
    const repaired = repairToolPairs(history);
    expect(repaired.duplicateCallIdsRenamed).toBe(1);
    expect(repaired.messages[3].toolCalls?.[0].id).toBe('c1_dup2');
    expect(repaired.messages[4]).toEqual({ ...result('c1', 'b'), toolCallId: 'c1_dup2' });
    expect(findToolPairViolations(repaired.messages)).toEqual([]);
  });

  it('flags calls still running at the end of the history as pending, and can leave them alone', () => {
    const history = [user('go'), calls('c1', 'c2'), result('c1')];
    expect(findToolPairViolations(history)).toEqual([
      { kind: 'missing-result', callMessageIndex: 1, toolCallId: 'c2', toolName: 't_c2', pending: true },
    ]);
    expect(findToolPairViolations(history, { allowPendingTail: true })).toEqual([]);
    expect(repairToolPairs(history, { allowPendingTail: true }).changed).toBe(false);
    expect(repairToolPairs(history).missingResultsSynthesized).toBe(1);
  });

  it('writes the placeholder a caller asks for: one text for a call never answered, another for one still running', () => {
    const history = [user('go'), calls('c0'), user('next'), calls('c1')];
    const syntheticResult = { missing: 'MISSING', pending: 'PENDING' };
    const repaired = repairToolPairs(history, { syntheticResult });
    expect(repaired.messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content])).toEqual([
      ['c0', 'MISSING'],
      ['c1', 'PENDING'],
    ]);
    expect(findToolPairViolations(repaired.messages)).toEqual([]);
  });
});

describe('repairToolPairs: every split of a mixed history (SCENARIOS #11)', () => {
  const history: ChatMessage[] = [
    user('u0'),
    calls('a1', 'a2'),
    result('a2'),
    result('a1'),
    reply('r0'),
    user('u1'),
    calls('b1', 'b2'),
    result('b1'),
    result('b2'),
    reply('r1'),
  ];

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])('keeping messages from %i on leaves no orphan and balanced pairs', (split) => {
    const kept = repairToolPairs(history.slice(split)).messages;
    expect(findToolPairViolations(kept)).toEqual([]);
    expect(kept[0]?.role).not.toBe('tool');
    const callCount = kept.reduce((s, m) => s + (m.toolCalls?.length ?? 0), 0);
    expect(kept.filter((m) => m.role === 'tool')).toHaveLength(callCount);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

let nextId = 0;
const batchArb = fc
  .record({
    width: fc.integer({ min: 1, max: 5 }),
    order: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
    legacy: fc.boolean(),
    text: fc.constantFrom('', 'let me look'),
  })
  .map(({ width, order, legacy, text }) => {
    const ids = Array.from({ length: width }, () => `c${nextId++}`);
    const toolCalls: ToolCall[] = ids.map((id) => ({ id, name: 'read', arguments: `{"path":"/f/${id}"}` }));
    // Legacy (id-less) results are paired positionally, so only id'd results may come in any order.
    const answered = legacy ? ids : [...ids].sort((a, b) => order[ids.indexOf(a)] - order[ids.indexOf(b)]);
    return [
      { role: 'assistant', content: text, toolCalls } as ChatMessage,
      ...answered.map((id): ChatMessage => (legacy ? legacyResult(`out ${id}`) : result(id))),
    ];
  });
const turnArb = fc
  .tuple(fc.array(batchArb, { maxLength: 3 }), fc.boolean())
  .map(([batches, withReply]) => [user('ask'), ...batches.flat(), ...(withReply ? [reply('answer')] : [])]);
const validHistoryArb = fc
  .tuple(fc.boolean(), fc.array(turnArb, { maxLength: 6 }))
  .map(([withSystem, turns]) => [
    ...(withSystem ? [{ role: 'system', content: 'sys' } as ChatMessage] : []),
    ...turns.flat(),
  ]);

/** Damage a valid history the way careless compaction does: drop, duplicate and move messages. */
const damagedHistoryArb = fc
  .tuple(
    validHistoryArb,
    fc.array(fc.record({ op: fc.constantFrom('drop', 'dup', 'move', 'cutHead'), at: fc.nat(), to: fc.nat() }), {
      maxLength: 6,
    }),
  )
  .map(([history, ops]) => {
    const h = [...history];
    for (const { op, at, to } of ops) {
      if (h.length === 0) break;
      const i = at % h.length;
      if (op === 'drop') h.splice(i, 1);
      else if (op === 'dup') h.splice(i, 0, h[i]);
      else if (op === 'cutHead') h.splice(0, i);
      else h.splice(to % h.length, 0, ...h.splice(i, 1));
    }
    return h;
  });

/** Fully random sequences over a tiny id pool: collisions, id-less results, tools first, everything. */
const randomMessageArb: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.constantFrom<ChatMessage>(user('u'), reply('a'), { role: 'system', content: 's' }),
  fc.array(fc.constantFrom('x', 'y', 'z', ''), { minLength: 1, maxLength: 3 }).map((ids): ChatMessage => ({
    role: 'assistant',
    content: '',
    toolCalls: ids.map((id) => ({ id, name: 'bash', arguments: '{}' })),
  })),
  fc.constantFrom<ChatMessage>(result('x'), result('y'), result('z'), legacyResult('?'), { ...result('x_dup2') }),
);
const chaosArb = fc.array(randomMessageArb, { maxLength: 14 });

describe('repairToolPairs properties', () => {
  it('a valid history has no violations and repair is the identity', () => {
    fc.assert(
      fc.property(validHistoryArb, (history) => {
        expect(findToolPairViolations(history)).toEqual([]);
        const repaired = repairToolPairs(history);
        expect(repaired.changed).toBe(false);
        expect(repaired.messages).toHaveLength(history.length);
        repaired.messages.forEach((m, i) => expect(m).toBe(history[i]));
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['damaged histories', damagedHistoryArb],
    ['random sequences', chaosArb],
  ])('on %s the output has zero violations, repair is idempotent, and only tool messages go', (_, arb) => {
    fc.assert(
      fc.property(arb, fc.boolean(), (history, allowPendingTail) => {
        const once = repairToolPairs(history, { allowPendingTail });
        expect(findToolPairViolations(once.messages, { allowPendingTail })).toEqual([]);
        expect(once.changed).toBe(findToolPairViolations(history, { allowPendingTail }).length > 0);
        const twice = repairToolPairs(once.messages, { allowPendingTail });
        expect(twice.changed).toBe(false);
        expect(twice.messages).toEqual(once.messages);
        // Non-tool messages all survive in order (assistant calls may only be re-id'd).
        const skeleton = (ms: readonly ChatMessage[]) =>
          ms.filter((m) => m.role !== 'tool').map((m) => [m.role, m.content, m.toolCalls?.length ?? 0]);
        expect(skeleton(once.messages)).toEqual(skeleton(history));
        // Every real result in the output was in the input; the counts add up.
        const real = once.messages.filter((m) => m.role === 'tool' && m.content !== SYNTHETIC_TOOL_RESULT);
        const inputTools = history.filter((m) => m.role === 'tool').length;
        expect(real.length).toBe(inputTools - once.orphanResultsRemoved - once.duplicateResultsRemoved);
      }),
      { numRuns: 200 },
    );
  });

  it('counts exactly one result per call in the output', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const out = repairToolPairs(history).messages;
        const callIds = out.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
        const resolved = resolveToolResultCallIds(out).filter((id) => id !== undefined);
        expect([...resolved].sort()).toEqual([...callIds].sort());
        expect(out.filter((m) => m.role === 'tool')).toHaveLength(callIds.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('real transcripts (shared/data)', () => {
  const sessions = sharedSessions();

  it('finds only the 18 unanswered calls the data README lists, 17 of them still pending at the end', () => {
    const all = sessions.flatMap((s) => findToolPairViolations(s.messages));
    expect(all.every((v) => v.kind === 'missing-result')).toBe(true);
    expect(all).toHaveLength(18);
    expect(all.filter((v) => v.kind === 'missing-result' && v.pending)).toHaveLength(17);
    for (const s of sessions) {
      const repaired = repairToolPairs(s.messages, { allowPendingTail: true });
      expect(repaired.missingResultsSynthesized).toBeLessThanOrEqual(1);
      expect(repaired.orphanResultsRemoved + repaired.duplicateResultsRemoved).toBe(0);
    }
  });
});

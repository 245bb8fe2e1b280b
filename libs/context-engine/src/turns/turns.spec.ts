import { assistant, calls, result, toolCall, user } from '../testing/fixtures';
import { auditToolPairs, findSafeCutIndex, isPairSafeCut, snapToPairBoundary, toolPairsIn, turnStarts } from '.';

describe('turns and safe cuts', () => {
  const history = [
    user('u0'),
    assistant('a0'),
    user('search'),
    calls('', toolCall('t1', 'search'), toolCall('t2', 'search')),
    result('t1', 'r1'),
    result('t2', 'r2'),
    assistant('a1 final'),
    user('u2'),
  ];

  it('cuts at the turn start when the target is a tool result (SCENARIOS #13)', () => {
    expect(findSafeCutIndex(history, 4)).toBe(2);
    expect(findSafeCutIndex(history, 5)).toBe(2);
    expect(turnStarts(history)).toEqual([0, 2, 7]);
  });

  it('says "cannot split" (0) for a single turn', () => {
    const single = [user('q'), calls('', toolCall('c', 'bash')), result('c', 'out'), assistant('done')];
    expect(findSafeCutIndex(single, 2)).toBe(0);
  });

  it('cuts forward at the next user message when the only earlier user is at 0', () => {
    const chain = [
      user('q'),
      calls('', toolCall('a', 'x')),
      result('a', '1'),
      calls('', toolCall('b', 'x')),
      result('b', '2'),
      assistant('r'),
      user('next'),
      assistant('ok'),
    ];
    expect(findSafeCutIndex(chain, 3)).toBe(6);
  });

  it('snaps splits to tool-pair boundaries (SCENARIOS #11)', () => {
    const h = [
      user('u'),
      assistant('a'),
      calls('', toolCall('c1', 'x'), toolCall('c2', 'x')),
      result('c1', '1'),
      result('c2', '2'),
      user('u2'),
      calls('', toolCall('c3', 'y')),
      result('c3', '3'),
      assistant('b'),
      user('u3'),
    ];
    expect(snapToPairBoundary(h, 4)).toBe(2);
    expect(snapToPairBoundary(h, 6)).toBe(6); // result → call boundary kept
    const batchFirst = [
      calls('', toolCall('c1', 'x'), toolCall('c2', 'x'), toolCall('c3', 'x')),
      result('c1', '1'),
      result('c2', '2'),
      result('c3', '3'),
      user('u'),
    ];
    expect(snapToPairBoundary(batchFirst, 2)).toBe(4);
    for (let split = 1; split < h.length; split++) {
      const kept = h.slice(snapToPairBoundary(h, split));
      const audit = auditToolPairs(kept);
      expect(audit.orphanResults).toEqual([]);
      expect(isPairSafeCut(h, snapToPairBoundary(h, split))).toBe(true);
      const nCalls = kept.reduce((s, m) => s + (m.toolCalls?.length ?? 0), 0);
      expect(kept.filter((m) => m.role === 'tool')).toHaveLength(nCalls);
    }
  });

  it('groups parallel calls with their results', () => {
    expect(toolPairsIn(history)).toEqual([{ callIndex: 3, resultIndices: [4, 5], end: 5 }]);
  });

  it('audits orphans, unanswered calls and duplicates by id', () => {
    const a = auditToolPairs([
      result('x', 'orphan'),
      calls('', toolCall('c', 'b'), toolCall('d', 'b')),
      result('c', '1'),
      result('c', 'dup'),
    ]);
    expect(a).toEqual({ orphanResults: ['x'], unansweredCalls: ['d'], duplicateResults: ['c'] });
  });
});

import { diffLines, diffStats, sideBySide } from '../../ui/src/lib/diff';
import {
  blocksOver,
  formatPercent,
  formatTokens,
  messageLines,
  preview,
  timeAgo,
  timelineRows,
  type PositionedMessage,
} from '../../ui/src/lib/messages';
import { nextIndex } from '../../ui/src/lib/keys';
import { pageAt, pageLabel, pageOf, sampleIndexes } from '../../ui/src/lib/paging';

/** Applies diff operations to `a`: must give `b` (the diff is a real edit script). */
const apply = (a: string[], b: string[]) =>
  diffLines(a, b)
    .filter((op) => op.kind !== 'removed')
    .map((op) => (op.kind === 'same' ? a[op.left] : b[op.right]));

describe('the session inspector page: line diff', () => {
  it('keeps the common head and tail of a truncated tool output; the cut lines are removed, the notice added', () => {
    const original = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    const truncated = [...original.slice(0, 10), '[... 30 lines omitted ...]', ...original.slice(40)];
    const rows = sideBySide(original, truncated);
    expect(diffStats(rows)).toEqual({ removed: 30, added: 1, same: 20 });
    expect(rows[10]).toEqual({
      left: { line: 10, text: 'line 10', changed: true },
      right: { line: 10, text: '[... 30 lines omitted ...]', changed: true },
    });
    expect(rows[11]).toEqual({ left: { line: 11, text: 'line 11', changed: true } });
    expect(rows.at(-1)).toEqual({
      left: { line: 49, text: 'line 49', changed: false },
      right: { line: 20, text: 'line 49', changed: false },
    });
  });

  it('is an edit script: applying it to the left gives the right, for many random pairs', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let t = 0; t < 200; t++) {
      const a = Array.from({ length: Math.floor(rnd() * 30) }, () => `x${Math.floor(rnd() * 5)}`);
      const b = Array.from({ length: Math.floor(rnd() * 30) }, () => `x${Math.floor(rnd() * 5)}`);
      expect(apply(a, b)).toEqual(b);
      const rows = sideBySide(a, b);
      expect(rows.filter((r) => r.left).map((r) => r.left!.text)).toEqual(a);
      expect(rows.filter((r) => r.right).map((r) => r.right!.text)).toEqual(b);
    }
  });

  it('finds a longest common subsequence when the table is small, and still a correct script when it is not', () => {
    const a = ['a', 'b', 'c', 'd', 'e'];
    const b = ['x', 'b', 'y', 'd', 'z'];
    expect(diffLines(a, b).filter((o) => o.kind === 'same')).toHaveLength(2);
    const big = diffLines(a, b, 1); // over the cell limit: no alignment in the middle
    expect(big.filter((o) => o.kind === 'same')).toHaveLength(0);
    expect(apply(a, b)).toEqual(b);
    expect(
      diffLines(a, b, 1)
        .filter((op) => op.kind !== 'removed')
        .map((op) => (op.kind === 'same' ? a[op.left] : b[op.right])),
    ).toEqual(b);
  });

  it('a summary replacing whole messages: everything on the left removed, the summary added', () => {
    const left = messageLines({ role: 'tool', content: 'out 1\nout 2', toolName: 'bash', toolCallId: 'c' }, 3);
    const right = messageLines({ role: 'system', content: '[Summary of earlier conversation]\nfacts' });
    expect(left[0]).toBe('── tool result #3 (bash)');
    const stats = diffStats(sideBySide(left, right));
    expect(stats).toEqual({ removed: left.length, added: right.length, same: 0 });
  });
});

describe('the session inspector page: timeline rows, sizes, paging', () => {
  const m = (position: number, message: PositionedMessage['message'], tokens = 10): PositionedMessage => ({
    position,
    message,
    tokens,
  });

  it('folds an assistant tool call with the results that answer it; other messages stay one row each', () => {
    const page = [
      m(0, { role: 'user', content: 'fix it' }),
      m(1, {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'read', arguments: '{}' },
          { id: 'b', name: 'grep', arguments: '{}' },
        ],
      }),
      m(2, { role: 'tool', content: 'A', toolCallId: 'a' }, 100),
      m(3, { role: 'tool', content: 'B', toolCallId: 'b' }, 50),
      m(4, { role: 'tool', content: 'stray', toolCallId: 'zz' }),
      m(5, { role: 'assistant', content: 'done' }),
    ];
    const rows = timelineRows(page);
    expect(rows.map((r) => [r.kind, r.from, r.to])).toEqual([
      ['message', 0, 0],
      ['tools', 1, 3],
      ['message', 4, 4],
      ['message', 5, 5],
    ]);
    expect(rows[1]!.tokens).toBe(160);
  });

  it('overlays the blocks whose edits touch a span, active first', () => {
    const block = (id: string, from: number, to: number, active: boolean) => ({
      id,
      active,
      range: { from, to },
      edits: [{ from, to, replacementMessages: 1 }],
    });
    const blocks = [block('r', 0, 9, false), block('a', 5, 5, true), block('far', 20, 30, true)];
    expect(blocksOver(blocks, 5, 6).map((b) => b.id)).toEqual(['a', 'r']);
    expect(blocksOver(blocks, 10, 19)).toEqual([]);
  });

  it('formats sizes, ratios and times', () => {
    expect(formatTokens(1234)).toBe('1,234');
    expect(formatTokens(123_456)).toBe('123k');
    expect(formatTokens(1_234_567)).toBe('1.23M');
    expect(formatPercent(0.8312)).toBe('83%');
    expect(formatPercent(0.05)).toBe('5.0%');
    expect(formatPercent(-1)).toBe('—');
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(timeAgo('2026-01-10T11:59:30Z', now)).toBe('30 s ago');
    expect(timeAgo('2026-01-10T09:00:00Z', now)).toBe('3 h ago');
    expect(timeAgo('2025-12-01T00:00:00Z', now)).toBe('2025-12-01');
    expect(preview('a\n\n  b   c', 10)).toBe('a b c');
    expect(preview('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('pages a 10,000-message session and samples its chart keeping every compaction step', () => {
    expect(pageOf(9_999, 100, 10_000)).toEqual({ index: 99, offset: 9_900, limit: 100, count: 100 });
    expect(pageAt(500, 100, 10_000).index).toBe(99);
    expect(pageAt(-1, 100, 10_000).offset).toBe(0);
    expect(pageLabel(pageAt(0, 100, 10_000), 10_000)).toBe('1–100 of 10,000');
    expect(pageLabel(pageAt(0, 100, 0), 0)).toBe('0 of 0');
    const picked = sampleIndexes(10_000, 500, [1234, 7777]);
    expect(picked[0]).toBe(0);
    expect(picked.at(-1)).toBe(9_999);
    expect(picked).toEqual(expect.arrayContaining([1233, 1234, 7776, 7777]));
    expect(picked.length).toBeLessThanOrEqual(504);
    expect(sampleIndexes(5, 500)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('the session inspector page: keyboard moves in a group', () => {
  it('steps with the arrows of its orientation, stops at the ends, jumps with Home and End', () => {
    expect(nextIndex('ArrowRight', 0, 3, 'horizontal')).toBe(1);
    expect(nextIndex('ArrowLeft', 2, 3, 'horizontal')).toBe(1);
    expect(nextIndex('ArrowRight', 2, 3, 'horizontal')).toBe(2);
    expect(nextIndex('ArrowLeft', 0, 3, 'horizontal')).toBe(0);
    expect(nextIndex('ArrowDown', 0, 3, 'vertical')).toBe(1);
    expect(nextIndex('ArrowUp', 1, 3, 'vertical')).toBe(0);
    expect(nextIndex('Home', 2, 3, 'vertical')).toBe(0);
    expect(nextIndex('End', 0, 3, 'horizontal')).toBe(2);
    expect(nextIndex('ArrowDown', 0, 3, 'both')).toBe(1);
    expect(nextIndex('ArrowLeft', 1, 3, 'both')).toBe(0);
  });

  it('leaves the other keys (and the arrows across its orientation) to the browser', () => {
    expect(nextIndex('ArrowDown', 0, 3, 'horizontal')).toBeUndefined();
    expect(nextIndex('ArrowRight', 0, 3, 'vertical')).toBeUndefined();
    expect(nextIndex('Enter', 0, 3, 'both')).toBeUndefined();
    expect(nextIndex('a', 0, 3, 'both')).toBeUndefined();
    expect(nextIndex('ArrowDown', 0, 0, 'vertical')).toBeUndefined();
  });
});

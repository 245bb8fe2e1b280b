import fc from 'fast-check';
import { ENGINE_VERSION, type CompactionBlock, type Stage } from '../model/block';
import type { ChatMessage } from '../model/message';
import { assistant, system, user } from '../testing/fixtures';
import {
  applyBlockToEntries,
  applyNewBlockToView,
  assertLaminar,
  buildEffectiveEntries,
  isLaminarFamily,
  maximalEdits,
  OverlayError,
} from '.';

const len = (m: ChatMessage) => m.content.length;
const originals = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`)));
const tokens = originals.map(len);
const block = (id: string, stage: Stage, edits: [number, number, string][]): CompactionBlock => ({
  id,
  sessionId: 's',
  stage,
  range: { from: edits[0]![0], to: edits[edits.length - 1]![1] },
  edits: edits.map(([from, to, text]) => ({ from, to, replacement: [system(text)] })),
  tokensBefore: 10,
  tokensAfter: 1,
  tokensSaved: 9,
  basedOnPosition: 9,
  engineVersion: ENGINE_VERSION,
});
const view = (active: CompactionBlock[]) =>
  buildEffectiveEntries(originals, tokens, active, len).map((e) => e.message.content);

describe('overlay', () => {
  it('shows the originals when no block is active', () => {
    expect(view([])).toEqual(originals.map((m) => m.content));
  });

  it('applies disjoint edits and hides an edit nested in a later one', () => {
    const first = block('b1', 'summary', [[0, 3, 'S1']]);
    const prune = block('b2', 'prune', [
      [5, 5, 'P5'],
      [7, 7, 'P7'],
    ]);
    expect(view([first, prune])).toEqual(['S1', 'u4', 'P5', 'u6', 'P7', 'u8', 'a9']);
    const second = block('b3', 'summary', [[0, 5, 'S2']]); // absorbs the first summary and one prune edit
    expect(view([first, prune, second])).toEqual(['S2', 'u6', 'P7', 'u8', 'a9']);
    // Reverting the second summary shows exactly the view before it.
    expect(view([first, prune])).toEqual(['S1', 'u4', 'P5', 'u6', 'P7', 'u8', 'a9']);
  });

  it('lets the later of two same-range edits win', () => {
    expect(view([block('x', 'prune', [[2, 2, 'old']]), block('y', 'truncate', [[2, 2, 'new']])])).toContain('new');
    expect(maximalEdits([block('x', 'prune', [[2, 2, 'old']]), block('y', 'truncate', [[2, 2, 'new']])])).toHaveLength(
      1,
    );
  });

  it('tells a laminar family of blocks in one sweep exactly as the pairwise checks do (property)', () => {
    // Blocks of one to three disjoint edits each, over a few positions so that overlaps are frequent.
    const arbBlock = (id: string) =>
      fc
        .uniqueArray(fc.integer({ min: 0, max: 24 }), { minLength: 2, maxLength: 6, selector: (x) => x })
        .map((points) => {
          const sorted = [...points].sort((a, b) => a - b);
          const edits: [number, number, string][] = [];
          for (let i = 0; i + 1 < sorted.length; i += 2) edits.push([sorted[i]!, sorted[i + 1]!, id]);
          return block(id, 'summary', edits);
        });
    let laminar = 0;
    fc.assert(
      fc.property(
        fc
          .array(fc.nat(), { minLength: 0, maxLength: 6 })
          .chain((ids) => fc.tuple(...ids.map((_, i) => arbBlock(`b${i}`)))),
        (blocks) => {
          const pairwise = blocks.every((b) => {
            try {
              assertLaminar(b, blocks);
              return true;
            } catch {
              return false;
            }
          });
          if (pairwise) laminar++;
          expect(isLaminarFamily(blocks)).toBe(pairwise);
        },
      ),
      { numRuns: 500 },
    );
    expect(laminar).toBeGreaterThan(20); // both answers were drawn often
    // Same start, same range, nested at either end: laminar; one edit crossing another's end: not.
    expect(
      isLaminarFamily([
        block('a', 'summary', [[0, 5, 'A']]),
        block('b', 'prune', [
          [0, 5, 'B'],
          [7, 7, 'C'],
        ]),
      ]),
    ).toBe(true);
    expect(isLaminarFamily([block('a', 'summary', [[2, 5, 'A']]), block('b', 'prune', [[0, 2, 'B']])])).toBe(false);
    expect(
      isLaminarFamily([
        block('a', 'summary', [[0, 9, 'A']]),
        block('b', 'summary', [[1, 4, 'B']]),
        block('c', 'prune', [[3, 6, 'C']]),
      ]),
    ).toBe(false);
  });

  it('rejects a partial overlap', () => {
    const a = block('a', 'summary', [[0, 3, 'S']]);
    expect(() => assertLaminar(block('b', 'sliding-window', [[2, 5, 'M']]), [a])).toThrow(OverlayError);
    expect(() => assertLaminar(block('b', 'sliding-window', [[0, 5, 'M']]), [a])).not.toThrow();
    expect(() => assertLaminar(block('b', 'sliding-window', [[4, 5, 'M']]), [a])).not.toThrow();
    expect(() =>
      assertLaminar(
        block('c', 'prune', [
          [1, 2, 'x'],
          [2, 3, 'y'],
        ]),
        [],
      ),
    ).toThrow(/own edits overlap/);
  });

  it('applies a block to a view the same way as a full rebuild', () => {
    const first = block('b1', 'summary', [[0, 3, 'S1']]);
    const base = buildEffectiveEntries(originals, tokens, [first], len);
    const second = block('b3', 'sliding-window', [[0, 7, 'M']]);
    expect(applyBlockToEntries(base, second, len)).toEqual(
      buildEffectiveEntries(originals, tokens, [first, second], len),
    );
    expect(() => applyBlockToEntries(base, block('bad', 'prune', [[2, 5, 'x']]), len)).toThrow(OverlayError);
  });
});

describe('incremental BlockCreated (applyNewBlockToView)', () => {
  const build = (active: CompactionBlock[]) => buildEffectiveEntries(originals, tokens, active, len);
  const sum = (es: { tokens: number }[]) => es.reduce((a, e) => a + e.tokens, 0);

  it('equals the rebuild for blocks computed on the current view, with the token delta', () => {
    const chain = [
      block('b1', 'prune', [
        [1, 1, 'P1'],
        [5, 5, 'P5'],
      ]),
      block('b2', 'summary', [[0, 3, 'S0-3']]),
      block('b3', 'truncate', [[5, 5, 'T5']]),
      block('b4', 'summary', [[0, 6, 'S0-6']]),
      block('b5', 'keep-within-budget', [[7, 8, 'K']]),
    ];
    let entries = build([]);
    for (let k = 0; k < chain.length; k++) {
      const r = applyNewBlockToView(entries, chain[k]!, len)!;
      expect(r).not.toBeNull();
      expect(sum(r.entries)).toBe(sum(entries) + r.tokenDelta);
      entries = r.entries;
      expect(entries).toEqual(build(chain.slice(0, k + 1)));
    }
  });

  it('declines (null) what needs the full check: a cut entry, an edit hidden inside one, overlapping own edits', () => {
    const entries = build([block('b1', 'summary', [[2, 5, 'S']])]);
    expect(applyNewBlockToView(entries, block('x', 'prune', [[4, 7, 'X']]), len)).toBeNull();
    expect(applyNewBlockToView(entries, block('y', 'prune', [[3, 3, 'Y']]), len)).toBeNull();
    expect(
      applyNewBlockToView(
        entries,
        block('z', 'prune', [
          [6, 7, 'Z'],
          [7, 8, 'Z'],
        ]),
        len,
      ),
    ).toBeNull();
  });
});

import fc from 'fast-check';
import { ENGINE_VERSION, type BlockEdit, type CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { append, calls, compact, result, startSession, text, toolCall, user, assistant } from '../testing/fixtures';
import { buildEffectiveEntries, assertLaminar, blockStructureViolations } from '.';

/** A session of agent turns with tool results of random sizes, compacted as it grows: the decider's own blocks. */
const arbTurns = fc.array(
  fc.record({
    ask: fc.integer({ min: 5, max: 300 }),
    results: fc.array(fc.integer({ min: 10, max: 9000 }), { minLength: 0, maxLength: 4 }),
    parallel: fc.boolean(),
    reply: fc.integer({ min: 5, max: 300 }),
  }),
  { minLength: 1, maxLength: 12 },
);

type Turns = { ask: number; results: number[]; parallel: boolean; reply: number }[];

function deciderBlocks(turns: Turns, window: number) {
  const r = startSession('s', {
    provider: 'openai',
    contextWindow: window,
    maxOutputTokens: 500,
    policy: { summaries: 'off' },
  });
  let id = 0;
  const blocks: CompactionBlock[] = [];
  const collect = (events: ReturnType<typeof compact>) => {
    for (const e of events) if (e.type === 'BlockCreated') blocks.push(e.data.block);
  };
  for (const t of turns) {
    append(r, user(text(t.ask, id)));
    collect(compact(r));
    const ids = t.results.map(() => `c${id++}`);
    if (t.parallel && ids.length > 0) {
      append(r, calls('', ...ids.map((c) => toolCall(c, 'read', { path: `/${c}.ts` }))));
      t.results.forEach((size, k) => append(r, result(ids[k]!, text(size, k), 'read')));
      collect(compact(r));
    } else {
      t.results.forEach((size, k) => {
        append(r, calls('', toolCall(ids[k]!, 'bash', { cmd: `run ${k}` })));
        append(r, result(ids[k]!, text(size, k), 'bash'));
        collect(compact(r));
      });
    }
    append(r, assistant(text(t.reply, id)));
    collect(compact(r));
  }
  return { blocks, state: r.state };
}

const block = (edits: BlockEdit[], extra: Partial<CompactionBlock> = {}): CompactionBlock => ({
  id: 'b',
  sessionId: 's',
  stage: 'summary',
  range: { from: Math.min(...edits.map((e) => e.from)), to: Math.max(...edits.map((e) => e.to)) },
  edits,
  tokensBefore: 100,
  tokensAfter: 10,
  tokensSaved: 90,
  basedOnPosition: 1000,
  engineVersion: ENGINE_VERSION,
  ...extra,
});
const note = (content = 'summary'): ChatMessage[] => [{ role: 'user', content }];

describe('block structure: what a consumer can check on a block alone', () => {
  it('accepts every block the decider computes (property: no false refusals; the invariants property checks every stage)', () => {
    let seen = 0;
    fc.assert(
      fc.property(arbTurns, fc.integer({ min: 3000, max: 30_000 }), (turns, window) => {
        const { blocks } = deciderBlocks(turns, window);
        seen += blocks.length;
        for (const b of blocks) expect(blockStructureViolations(b)).toEqual([]);
      }),
      { numRuns: 60 },
    );
    expect(seen).toBeGreaterThan(20);
  });

  it('refuses any block whose range or edits are out of order, out of range or overlapping (property)', () => {
    const arbEdit = fc
      .record({ from: fc.integer({ min: 0, max: 40 }), len: fc.integer({ min: -3, max: 6 }) })
      .map(({ from, len }) => ({ from, to: from + len, replacement: note() }));
    fc.assert(
      fc.property(
        fc.array(arbEdit, { minLength: 1, maxLength: 5 }),
        fc.record({ from: fc.integer({ min: 0, max: 45 }), to: fc.integer({ min: 0, max: 45 }) }),
        fc.integer({ min: 0, max: 50 }),
        (edits, range, basedOn) => {
          const b = block(edits, { range, basedOnPosition: basedOn });
          const ordered = edits.every((e) => e.from <= e.to);
          const sortedDisjoint = edits.every((e, i) => i === 0 || e.from > edits[i - 1]!.to);
          const span =
            range.from === Math.min(...edits.map((e) => e.from)) && range.to === Math.max(...edits.map((e) => e.to));
          const wellFormed = ordered && sortedDisjoint && span && range.from <= range.to && range.to <= basedOn;
          expect(blockStructureViolations(b).length === 0).toBe(wellFormed);
          // What it accepts, the overlay takes: laminar on its own, and the view has every position once.
          if (wellFormed) {
            expect(() => assertLaminar(b, [])).not.toThrow();
            const originals = Array.from({ length: 60 }, (_, i) => user(`m${i}`));
            const entries = buildEffectiveEntries(
              originals,
              originals.map(() => 1),
              [b],
              () => 1,
            );
            let next = 0;
            for (const e of entries) {
              expect(e.from).toBe(next);
              next = e.to + 1;
            }
            expect(next).toBe(60);
          }
        },
      ),
    );
  });

  it('names what is wrong: a reversed range, figures that disagree, a tool result without its call', () => {
    expect(
      blockStructureViolations(
        block([{ from: 2, to: 0, replacement: note() }], { range: { from: 2, to: 0 } }),
        'data.block',
      ),
    ).toEqual(['data.block.range: from 2 is after to 0', 'data.block.edits.0: from 2 is after to 0']);
    expect(blockStructureViolations(block([{ from: 0, to: 1, replacement: note() }], { tokensSaved: 5 }))).toEqual([
      expect.stringMatching(/^block\.tokensSaved: must be tokensBefore − tokensAfter/),
    ]);
    expect(
      blockStructureViolations(
        block([{ from: 0, to: 1, replacement: [{ role: 'tool', content: 'x', toolCallId: 'nobody' }] }]),
      ),
    ).toEqual([expect.stringMatching(/^block\.edits\.0\.replacement\.0: a tool result \(toolCallId nobody\)/)]);
    // A result pruned in place (one position, one tool message) and a call answered inside the replacement pass.
    expect(
      blockStructureViolations(block([{ from: 3, to: 3, replacement: [result('c1', '[cleared]', 'read')] }])),
    ).toEqual([]);
    expect(
      blockStructureViolations(
        block([{ from: 0, to: 4, replacement: [calls('', toolCall('c1', 'read')), result('c1', 'ok', 'read')] }]),
      ),
    ).toEqual([]);
    expect(blockStructureViolations(block([{ from: 0, to: 1, replacement: note() }], { basedOnPosition: 0 }))).toEqual([
      expect.stringMatching(/^block\.range: ends at 1, after the last position the decision saw/),
    ]);
  });
});

import {
  configure,
  ENGINE_VERSION,
  findToolPairViolations,
  type ChatMessage,
  type CompactionBlock,
} from '@ctxledger/context-engine';
import type { SessionConfiguredData } from '@ctxledger/contracts';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { MessageDocument } from '../read-models/messages/message.document';
import fc from 'fast-check';
import { historyView, statsView, usableBlocks, type LoadedSession } from './session-view';

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');

function loaded(config: SessionConfiguredData, messages: ChatMessage[], blocks: CompactionBlock[] = []): LoadedSession {
  const counter = configure({ provider: config.provider }).counter;
  return {
    session: {
      _id: 's',
      tenant: 't',
      config,
      messageCount: messages.length,
      partition: 0,
      lastOffset: messages.length,
      createdAt: '',
      updatedAt: '',
    },
    messages: messages.map((message, position): MessageDocument => ({
      _id: `s/${position}`,
      sessionId: 's',
      tenant: 't',
      position,
      message,
      tokens: counter.message(message),
      tokenProfile: counter.profile.provider,
      offset: position,
      time: '',
    })),
    blocks: blocks.map((block, i): BlockDocument => ({
      _id: `s/${block.id}`,
      sessionId: 's',
      tenant: 't',
      blockId: block.id,
      block,
      active: true,
      createdOffset: i,
      createdAt: '',
    })),
  };
}

/** A coding-agent session: user turns with tool calls and big tool outputs. */
function transcript(turns: number, outputWords: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `please fix bug ${t}: ${words(20, t)}` });
    out.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${t}.ts` }) }],
    });
    out.push({ role: 'tool', content: words(outputWords, t), toolCallId: `c${t}`, toolName: 'read_file' });
    out.push({ role: 'assistant', content: `fixed bug ${t}` });
  }
  return out;
}

describe('history view', () => {
  it('overlays the active blocks on the stored originals and counts tokens like the engine', () => {
    const messages = transcript(3, 50);
    const summary: CompactionBlock = {
      id: 'b1',
      sessionId: 's',
      stage: 'summary',
      range: { from: 0, to: 3 },
      edits: [{ from: 0, to: 3, replacement: [{ role: 'user', content: 'summary of turn 0' }] }],
      tokensBefore: 100,
      tokensAfter: 5,
      tokensSaved: 95,
      basedOnPosition: 11,
      engineVersion: ENGINE_VERSION,
    };
    const view = historyView(loaded({ contextWindow: 100_000 }, messages, [summary]), 'effective');
    expect(view.messages).toHaveLength(9);
    expect(view.messages[0]).toEqual({ role: 'user', content: 'summary of turn 0' });
    expect(view).toMatchObject({ fits: true, compactedOnRead: false, activeBlocks: 1 });
    expect(statsView(loaded({ contextWindow: 100_000 }, messages, [summary])).effectiveTokens).toBe(view.tokens);
    expect(historyView(loaded({ contextWindow: 100_000 }, messages, [summary]), 'full').messages).toHaveLength(12);
  });

  it('does not show a block whose messages are not all projected yet', () => {
    const messages = transcript(1, 10);
    const ahead: CompactionBlock = {
      id: 'b1',
      sessionId: 's',
      stage: 'prune',
      range: { from: 2, to: 6 },
      edits: [{ from: 2, to: 6, replacement: [] }],
      tokensBefore: 10,
      tokensAfter: 0,
      tokensSaved: 10,
      basedOnPosition: 6,
      engineVersion: ENGINE_VERSION,
    };
    const view = historyView(loaded({}, messages, [ahead]), 'effective');
    expect(view.messages).toEqual(messages);
    expect(view.activeBlocks).toBe(0);
  });

  it('never silently over: compacts on read with the cheap stages when the stored view is over the budget', () => {
    const messages = transcript(30, 400);
    const session = loaded({ contextWindow: 8000, maxOutputTokens: 1000 }, messages);
    const view = historyView(session, 'effective');
    const budget = configure({ contextWindow: 8000, maxOutputTokens: 1000 }).budget.historyBudget;
    expect(view.budget).toBe(budget);
    expect(view.compactedOnRead).toBe(true);
    expect(view.fits).toBe(true);
    expect(view.tokens).toBeLessThanOrEqual(budget);
    expect(view.onReadStages.length).toBeGreaterThan(0);
    expect(findToolPairViolations(view.messages)).toEqual([]);
    expect(view.messages.at(-1)).toEqual(messages.at(-1));
  });

  it('applies a budget override, and says why when even the cheap stages cannot fit it', () => {
    const messages = transcript(10, 100);
    const roomy = historyView(loaded({ contextWindow: 200_000 }, messages), 'effective', 1500);
    expect(roomy).toMatchObject({ budget: 1500, compactedOnRead: true, fits: true });
    const tiny = historyView(
      loaded({ contextWindow: 200_000 }, [{ role: 'user', content: words(2000, 1) }]),
      'effective',
      50,
    );
    expect(tiny.fits).toBe(false);
    expect(tiny.reason).toEqual(expect.any(String));
  });

  it('says the session cannot work when its fixed overhead fills the window', () => {
    const view = historyView(
      loaded({ contextWindow: 1000, maxOutputTokens: 500, systemPromptTokens: 600 }, transcript(1, 5)),
      'effective',
    );
    expect(view.fits).toBe(false);
    expect(view.reason).toMatch(/fixed overhead/);
  });
});

describe('stored blocks that break the overlay (a read never fails on stored data)', () => {
  const chat: ChatMessage[] = Array.from({ length: 12 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `message ${i} ${words(30, i)}`,
  }));
  const arbBlock = (id: string) =>
    fc
      .record({
        from: fc.integer({ min: 0, max: 14 }),
        to: fc.integer({ min: 0, max: 14 }),
        editFrom: fc.integer({ min: 0, max: 14 }),
        editTo: fc.integer({ min: 0, max: 14 }),
        basedOn: fc.integer({ min: 0, max: 14 }),
      })
      .map(({ from, to, editFrom, editTo, basedOn }): CompactionBlock => ({
        id,
        sessionId: 's',
        stage: 'summary',
        range: { from, to },
        edits: [{ from: editFrom, to: editTo, replacement: [{ role: 'user', content: `STORED ${id}` }] }],
        tokensBefore: 100,
        tokensAfter: 10,
        tokensSaved: 90,
        basedOnPosition: basedOn,
        engineVersion: ENGINE_VERSION,
      }));

  it('any stored blocks: stats and every view answer, leaving out exactly the blocks named as skipped (property)', () => {
    fc.assert(
      fc.property(fc.tuple(arbBlock('b0'), arbBlock('b1'), arbBlock('b2'), arbBlock('b3')), (blocks) => {
        const all = loaded({ provider: 'openai', contextWindow: 100_000 }, chat, blocks);
        const usable = usableBlocks(all.blocks, chat.length);
        const session = { ...all, blocks: usable.blocks, skippedBlocks: usable.skipped };
        const stats = statsView(session);
        expect(stats.blocks.skipped).toBe(usable.skipped.length);
        expect(stats.blocks.total).toBe(blocks.length);
        const view = historyView(session, 'effective');
        const shown = JSON.stringify(view.messages);
        for (const skip of usable.skipped) expect(shown).not.toContain(`STORED ${skip.blockId}"`);
        // Every original position is shown once, as itself or inside one replacement.
        expect(usable.blocks.length + usable.skipped.length).toBe(blocks.length);
      }),
    );
  });

  /** A block of one edit over [from, to] (a prune of one position, else a summary). */
  const block = (id: string, from: number, to: number): CompactionBlock => ({
    id,
    sessionId: 's',
    stage: from === to ? 'prune' : 'summary',
    range: { from, to },
    edits: [{ from, to, replacement: [{ role: 'user', content: id }] }],
    tokensBefore: 100,
    tokensAfter: 10,
    tokensSaved: 90,
    basedOnPosition: 11,
    engineVersion: ENGINE_VERSION,
  });

  it('names the reason: a reversed range, a partial overlap with an active block', () => {
    const reversed = { ...block('reversed', 0, 1), range: { from: 2, to: 0 } };
    const all = loaded({}, chat, [block('a', 0, 3), reversed, block('crossing', 2, 5), block('inner', 1, 2)]);
    const { blocks, skipped } = usableBlocks(all.blocks, chat.length);
    expect(blocks.map((b) => b.blockId)).toEqual(['a', 'inner']);
    expect(skipped).toEqual([
      { blockId: 'reversed', reason: expect.stringMatching(/^block\.range: from 2 is after to 0/) },
      { blockId: 'crossing', reason: expect.stringMatching(/partially overlaps block a/) },
    ]);
  });

  it('keeps every block of a long laminar history, and leaves out only a crossing one added to it', () => {
    // Each position pruned, then summaries that each absorb the last (nested), the way a long session stores them.
    const history = [
      ...chat.map((_, k) => block(`p${k}`, k, k)),
      ...chat.slice(1).map((_, k) => block(`s${k + 1}`, 0, k + 1)),
    ];
    const all = loaded({}, chat, history);
    const reverted = all.blocks.find((d) => d.blockId === 's7')!;
    Object.assign(reverted, { active: false, revertedOffset: all.blocks.length });
    const usable = usableBlocks(all.blocks, chat.length);
    expect(usable.skipped).toEqual([]);
    expect(usable.blocks.map((d) => d.blockId)).toEqual(history.map((b) => b.id));

    const crossing = loaded({}, chat, [...history, block('crossing', 5, 8)]);
    const withCrossing = usableBlocks(crossing.blocks, chat.length);
    expect(withCrossing.skipped).toEqual([
      { blockId: 'crossing', reason: expect.stringMatching(/^block crossing edit \[5, 8\] partially overlaps/) },
    ]);
    expect(withCrossing.blocks.map((d) => d.blockId)).toEqual(history.map((b) => b.id));
  });
});

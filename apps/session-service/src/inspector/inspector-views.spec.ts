import { configure, effectiveTotal, rawTotal, type ChatMessage, type SessionConfig } from '@ctxledger/context-engine';
import { append, compact, startSession, text } from '@ctxledger/context-engine/testing/fixtures';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { MessageDocument } from '../read-models/messages/message.document';
import { historyView, statsView, type LoadedSession } from '../queries/session-view';
import { blockDetail, effectivePage, messagesPage, tokenSeries, wireMessage } from './inspector-views';

const CONFIG: SessionConfig = { provider: 'anthropic', contextWindow: 6000, maxOutputTokens: 1000 };

/** A coding session with big tool outputs: the engine compacts it several times as it grows. */
function session(turns: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `step ${t}: ${text(200, t)}` });
    out.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${t}.ts` }) }],
    });
    out.push({ role: 'tool', content: `file ${t}\n${text(3000, t)}`, toolCallId: `c${t}`, toolName: 'read_file' });
    out.push({ role: 'assistant', content: `done with step ${t}` });
  }
  return out;
}

/** Replays the messages through the engine (deciding after each) and records what it saw at every position. */
function replay(messages: ChatMessage[]) {
  const r = startSession('s', CONFIG);
  const effectiveAt: number[] = [];
  const rawAt: number[] = [];
  const createdAt = new Map<string, number>();
  for (const m of messages) {
    append(r, m);
    for (const e of compact(r)) if (e.type === 'BlockCreated') createdAt.set(e.data.block.id, createdAt.size);
    effectiveAt.push(effectiveTotal(r.state));
    rawAt.push(rawTotal(r.state));
  }
  return { state: r.state, effectiveAt, rawAt, order: [...createdAt.keys()] };
}

function loaded(
  messages: ChatMessage[],
  state: ReturnType<typeof replay>['state'],
  order: string[],
  reverted: string[] = [],
) {
  const counter = configure(CONFIG).counter;
  return {
    session: {
      _id: 's',
      tenant: 't',
      config: CONFIG,
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
    blocks: order.map((id, i): BlockDocument => ({
      _id: `s/${id}`,
      sessionId: 's',
      tenant: 't',
      blockId: id,
      block: state.blocks.get(id)!,
      active: !reverted.includes(id),
      createdOffset: i,
      createdAt: `2026-01-01T00:00:0${i % 10}Z`,
      ...(reverted.includes(id) && { revertedOffset: 100 + i, revertedAt: '2026-01-02T00:00:00Z' }),
    })),
  } as LoadedSession;
}

describe('inspector views', () => {
  const messages = session(12);
  const run = replay(messages);

  it('the engine compacted the session (the views below have blocks to show)', () => {
    expect(run.order.length).toBeGreaterThan(1);
  });

  it('tokens over time: raw and effective at each position are what the engine had then', () => {
    const series = tokenSeries(loaded(messages, run.state, run.order));
    expect(series.positions).toBe(messages.length);
    expect(series.raw).toEqual(run.rawAt);
    expect(series.effective).toEqual(run.effectiveAt);
    expect(series.budget).toBe(configure(CONFIG).budget.historyBudget);
    expect(series.markers.map((m) => m.blockId)).toEqual(run.order);
    expect(series.markers.every((m) => m.active && m.tokensSaved > 0)).toBe(true);
  });

  it('the last effective point is the stats and history total, also after a revert; a revert raises the line', () => {
    const before = loaded(messages, run.state, run.order);
    const revertedId = run.order.at(-1)!; // the latest block is never hidden by another
    const after = loaded(messages, run.state, run.order, [revertedId]);
    for (const l of [before, after]) {
      const series = tokenSeries(l);
      expect(series.effective.at(-1)).toBe(statsView(l).effectiveTokens);
      expect(series.effective.at(-1)).toBe(effectivePage(l, 'generic', 0, 10).tokens);
    }
    const a = tokenSeries(before);
    const b = tokenSeries(after);
    expect(b.markers.find((m) => m.blockId === revertedId)?.active).toBe(false);
    expect(b.effective.at(-1)!).toBeGreaterThan(a.effective.at(-1)!);
    expect(b.raw).toEqual(a.raw);
  });

  it('the effective page is the history view, entry by entry, with spans, tokens and the wire shape', () => {
    const l = loaded(messages, run.state, run.order);
    const all = effectivePage(l, 'openai', 0, 10_000);
    const view = historyView(l, 'effective');
    expect(all.entries.map((e) => e.message)).toEqual(view.messages);
    expect(all.tokens).toBe(view.tokens);
    const replaced = all.entries.filter((e) => e.blockId !== undefined);
    expect(replaced.length).toBeGreaterThan(0);
    expect(replaced.every((e) => run.order.includes(e.blockId!) && e.stage !== undefined)).toBe(true);
    const tool = all.entries.find((e) => e.message.role === 'tool')!;
    expect(tool.wire).toEqual({ role: 'tool', content: tool.message.content, tool_call_id: tool.message.toolCallId });

    const page = effectivePage(l, 'anthropic', 2, 3);
    expect(page.entries.map((e) => e.index)).toEqual([2, 3, 4]);
    expect(page.total).toBe(all.total);
    expect(page.wireMessageCount).toBeLessThanOrEqual(all.total);
  });

  it('a wire message alone: an Anthropic tool result is a user message with a tool_result block', () => {
    expect(wireMessage({ role: 'tool', content: 'ok', toolCallId: 'c1' }, 'anthropic')).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }],
    });
    expect(wireMessage({ role: 'assistant', content: 'hi' }, 'anthropic')).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('a block in detail: each edit with its replacement and the tokens of the originals it hides', () => {
    const l = loaded(messages, run.state, run.order);
    const doc = l.blocks[0]!;
    const detail = blockDetail(l, doc);
    expect(detail).toMatchObject({ id: doc.blockId, stage: doc.block.stage, active: true, applicable: true });
    expect(detail.edits).toHaveLength(doc.block.edits.length);
    const e = detail.edits[0]!;
    const counter = configure(CONFIG).counter;
    let hidden = 0;
    for (let p = e.from; p <= e.to; p++) hidden += counter.message(messages[p]!);
    expect(e.originalTokens).toBe(hidden);
    expect(e.replacement).toEqual(doc.block.edits[0]!.replacement);
  });

  it('pages of originals', () => {
    const l = loaded(messages, run.state, run.order);
    const page = messagesPage(l, 40, 100);
    expect(page.total).toBe(48);
    expect(page.messages.map((m) => m.position)).toEqual([40, 41, 42, 43, 44, 45, 46, 47]);
    expect(page.messages[2]!.message).toEqual(messages[42]);
  });
});

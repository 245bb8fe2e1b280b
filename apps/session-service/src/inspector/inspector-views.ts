import { toEngineConfig } from '@ctxledger/contracts';
import {
  buildEffectiveEntries,
  configure,
  renderHistory,
  type ChatMessage,
  type CompactionBlock,
  type Stage,
} from '@ctxledger/context-engine';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { LoadedSession } from '../queries/session-view';

/**
 * Pure views of one loaded session for the inspector (/ui): pages of its originals and of its effective
 * history, one block with what it replaced, and its tokens over time. The same overlay and the same token
 * counts as the history and stats endpoints (`historyView`, `statsView`).
 */

export type WireFormat = 'openai' | 'anthropic' | 'generic';

/** A block is shown once every message it covers is projected (as in the history and stats views). */
const covered = (doc: BlockDocument, messageCount: number) => doc.block.range.to < messageCount;

/** The session's counter and the tokens of each original under it (recounted if the provider changed). */
export function countedOriginals(loaded: LoadedSession) {
  const engine = configure(toEngineConfig(loaded.session.config));
  const { counter } = engine;
  const originals = loaded.messages.map((m) => m.message);
  const tokens = loaded.messages.map((m) =>
    m.tokenProfile === counter.profile.provider ? m.tokens : counter.message(m.message),
  );
  const framing = (n: number) => (n > 0 ? counter.perConversation : 0);
  return { engine, counter, originals, tokens, framing };
}

/** The active blocks whose messages are all projected, in creation order (the order the overlay applies them). */
export function activeBlocks(loaded: LoadedSession): CompactionBlock[] {
  const n = loaded.messages.length;
  return loaded.blocks.filter((b) => b.active && covered(b, n)).map((b) => b.block as CompactionBlock);
}

export interface OriginalRow {
  readonly position: number;
  readonly message: ChatMessage;
  readonly tokens: number;
}

export function messagesPage(loaded: LoadedSession, offset: number, limit: number) {
  const { originals, tokens } = countedOriginals(loaded);
  const rows: OriginalRow[] = [];
  for (let p = offset; p < Math.min(originals.length, offset + limit); p++) {
    rows.push({ position: p, message: originals[p]!, tokens: tokens[p]! });
  }
  return { sessionId: loaded.session._id, total: originals.length, offset, limit, messages: rows };
}

/** One message in a provider's wire shape, alone (Anthropic merges neighbours of one role into one message). */
export function wireMessage(message: ChatMessage, format: WireFormat): unknown {
  if (format === 'anthropic') {
    if (message.role === 'system') return { system: message.content };
    const rendered = renderHistory([message], 'anthropic');
    return rendered.messages[rendered.insertedLeadingUser ? 1 : 0] ?? null;
  }
  return (renderHistory([message], format) as readonly unknown[])[0] ?? null;
}

export interface EffectiveRow {
  readonly index: number;
  /** The original positions the entry stands for (from = to for an original). */
  readonly from: number;
  readonly to: number;
  /** Set when the entry is a block's replacement. */
  readonly blockId?: string;
  readonly stage?: Stage;
  readonly tokens: number;
  readonly message: ChatMessage;
  readonly wire: unknown;
}

/**
 * A page of the effective history (the originals with the active blocks overlaid), each entry with its
 * tokens and its wire shape in `format`; totals over the whole history.
 */
export function effectivePage(loaded: LoadedSession, format: WireFormat, offset: number, limit: number) {
  const { engine, counter, originals, tokens, framing } = countedOriginals(loaded);
  const entries = buildEffectiveEntries(originals, tokens, activeBlocks(loaded), (m) => counter.message(m));
  const total = entries.reduce((a, e) => a + e.tokens, 0) + framing(entries.length);
  const rows: EffectiveRow[] = entries.slice(offset, offset + limit).map((e, i) => ({
    index: offset + i,
    from: e.from,
    to: e.to,
    ...(e.blockId !== undefined && { blockId: e.blockId, stage: e.stage }),
    tokens: e.tokens,
    message: e.message,
    wire: wireMessage(e.message, format),
  }));
  const rendered = renderHistory(
    entries.map((e) => e.message),
    format,
    { system: loaded.session.config.systemPrompt },
  );
  return {
    sessionId: loaded.session._id,
    format,
    total: entries.length,
    offset,
    limit,
    /** Messages the provider receives (Anthropic merges neighbours of one role; a system prompt counts). */
    wireMessageCount: Array.isArray(rendered) ? rendered.length : rendered.messages.length,
    tokens: total,
    budget: engine.budget.historyBudget,
    fits: !engine.budget.unusableReason && total <= engine.budget.historyBudget,
    entries: rows,
  };
}

/** One block with each edit's replacement and the tokens of the originals it hides. */
export function blockDetail(loaded: LoadedSession, doc: BlockDocument) {
  const { counter, tokens } = countedOriginals(loaded);
  const n = loaded.messages.length;
  const sum = (from: number, to: number) => {
    let s = 0;
    for (let p = from; p <= Math.min(to, n - 1); p++) s += tokens[p]!;
    return s;
  };
  const b = doc.block;
  return {
    sessionId: loaded.session._id,
    id: doc.blockId,
    stage: b.stage,
    range: b.range,
    tokensBefore: b.tokensBefore,
    tokensAfter: b.tokensAfter,
    tokensSaved: b.tokensSaved,
    basedOnPosition: b.basedOnPosition,
    engineVersion: b.engineVersion,
    active: doc.active,
    applicable: covered(doc, n),
    createdAt: doc.createdAt,
    ...(doc.revertedAt !== undefined && { revertedAt: doc.revertedAt }),
    edits: b.edits.map((e) => ({
      from: e.from,
      to: e.to,
      originalMessages: e.to - e.from + 1,
      originalTokens: sum(e.from, e.to),
      replacement: e.replacement,
      replacementTokens: e.replacement.reduce((a, m) => a + counter.message(m), 0),
    })),
  };
}

export interface TokenMarker {
  readonly blockId: string;
  readonly stage: Stage;
  /** The position from which the block is part of the history: it has seen that far and covers up to it. */
  readonly position: number;
  readonly tokensSaved: number;
  readonly active: boolean;
}

/**
 * Tokens over time, by original position p: `raw[p]` is the history of messages 0..p in full, `effective[p]`
 * the same with the blocks overlaid that had been made by then (made from a view at or before p) and are
 * active now — so a revert shows at once. The last effective point is the effective history's total.
 */
export function tokenSeries(loaded: LoadedSession) {
  const { engine, counter, originals, tokens, framing } = countedOriginals(loaded);
  const n = originals.length;
  const lastPosition = n - 1;
  // The position from which each block counts: it covers its range and was decided at basedOnPosition.
  const at = (b: CompactionBlock) => Math.min(lastPosition, Math.max(b.basedOnPosition, b.range.to));
  const active = activeBlocks(loaded);
  // Applied in creation order; a block never applies before one made before it.
  const applyAt: number[] = [];
  active.forEach((b, i) => applyAt.push(Math.max(at(b), i > 0 ? applyAt[i - 1]! : 0)));

  const raw: number[] = new Array<number>(n);
  const effective: number[] = new Array<number>(n);
  let rawSum = 0;
  let effSum = 0;
  let applied = 0;
  for (let p = 0; p < n; p++) {
    rawSum += tokens[p]!;
    let k = applied;
    while (k < active.length && applyAt[k]! <= p) k++;
    if (k !== applied) {
      applied = k;
      const entries = buildEffectiveEntries(
        originals.slice(0, p + 1),
        tokens.slice(0, p + 1),
        active.slice(0, k),
        (m) => counter.message(m),
      );
      effSum = entries.reduce((a, e) => a + e.tokens, 0);
      effective[p] = effSum + framing(entries.length);
    } else {
      effSum += tokens[p]!;
      effective[p] = effSum + framing(1);
    }
    raw[p] = rawSum + framing(p + 1);
  }
  const markers: TokenMarker[] = loaded.blocks
    .filter((d) => covered(d, n))
    .map((d) => ({
      blockId: d.blockId,
      stage: d.block.stage,
      position: at(d.block as CompactionBlock),
      tokensSaved: d.block.tokensSaved,
      active: d.active,
    }));
  return {
    sessionId: loaded.session._id,
    positions: n,
    raw,
    effective,
    budget: engine.budget.historyBudget,
    threshold: engine.budget.thresholdTokens,
    markers,
  };
}

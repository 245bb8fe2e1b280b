/**
 * How the page shows messages: text forms for the diff, folding of tool calls with their results, the blocks
 * overlaid on a position, sizes and times. Pure (no DOM).
 */

export interface UiToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface UiMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly toolCalls?: readonly UiToolCall[];
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly isError?: boolean;
}

export interface PositionedMessage {
  readonly position: number;
  readonly message: UiMessage;
  readonly tokens: number;
}

/** What GET …/blocks lists of a block. */
export interface BlockSummary {
  readonly id: string;
  readonly stage: string;
  readonly range: { readonly from: number; readonly to: number };
  readonly edits: readonly { readonly from: number; readonly to: number; readonly replacementMessages: number }[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly tokensSaved: number;
  readonly basedOnPosition: number;
  readonly engineVersion: string;
  readonly active: boolean;
  readonly applicable: boolean;
  readonly createdAt: string;
  readonly revertedAt?: string;
}

/** A message as lines of text: a header line (role, tool, position), then its content and tool calls. */
export function messageLines(m: UiMessage, position?: number): string[] {
  const where = position === undefined ? '' : ` #${position}`;
  const header =
    m.role === 'tool'
      ? `── tool result${where}${m.toolName ? ` (${m.toolName})` : ''}${m.isError ? ' [error]' : ''}`
      : `── ${m.role}${where}`;
  const lines = [header];
  if (m.content !== '') lines.push(...m.content.split('\n'));
  for (const c of m.toolCalls ?? []) lines.push(`→ ${c.name}(${c.arguments})`);
  return lines;
}

/** Lines of several messages, one after the other. */
export function messagesLines(messages: readonly { message: UiMessage; position?: number }[]): string[] {
  return messages.flatMap((m) => messageLines(m.message, m.position));
}

/** A row of the timeline: one message, or an assistant's tool calls folded with the results that follow them. */
export interface TimelineRow {
  readonly key: string;
  readonly kind: 'message' | 'tools';
  /** The messages of the row, in order (one, or the call and its results). */
  readonly items: readonly PositionedMessage[];
  readonly from: number;
  readonly to: number;
  readonly tokens: number;
}

/**
 * Groups a page of originals into rows: an assistant message with tool calls and the tool results answering
 * them right after it are one folded row; everything else one row per message.
 */
export function timelineRows(page: readonly PositionedMessage[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  for (let i = 0; i < page.length; i++) {
    const m = page[i]!;
    const calls = m.message.role === 'assistant' ? (m.message.toolCalls ?? []) : [];
    if (calls.length === 0) {
      rows.push({
        key: `m${m.position}`,
        kind: 'message',
        items: [m],
        from: m.position,
        to: m.position,
        tokens: m.tokens,
      });
      continue;
    }
    const ids = new Set(calls.map((c) => c.id));
    const items = [m];
    while (i + 1 < page.length && page[i + 1]!.message.role === 'tool') {
      const next = page[i + 1]!;
      if (next.message.toolCallId !== undefined && !ids.has(next.message.toolCallId)) break;
      items.push(next);
      i++;
    }
    const last = items[items.length - 1]!;
    rows.push({
      key: `t${m.position}`,
      kind: 'tools',
      items,
      from: m.position,
      to: last.position,
      tokens: items.reduce((a, x) => a + x.tokens, 0),
    });
  }
  return rows;
}

/** The blocks covering any of positions [from, to], active first, then by creation. */
export function blocksOver<B extends Pick<BlockSummary, 'range' | 'active' | 'edits'>>(
  blocks: readonly B[],
  from: number,
  to: number,
): B[] {
  return blocks
    .filter((b) => b.edits.some((e) => e.from <= to && from <= e.to))
    .sort((x, y) => Number(y.active) - Number(x.active));
}

/** A one-line preview of text, at most `max` characters. */
export function preview(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** 1234 → "1,234"; 123456 → "123k"; 1234567 → "1.23M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '∞';
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (abs >= 100_000) return `${Math.round(n / 1000)}k`;
  return n.toLocaleString('en-US');
}

export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio) || ratio < 0) return '—';
  return `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago" (from `now`); the ISO date past a week. */
export function timeAgo(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.round(s / 86_400)} d ago`;
  return iso.slice(0, 10);
}

/** What each stage does, for a person reading a block (the engine's README in one line each). */
export const STAGE_REASONS: Readonly<Record<string, string>> = {
  truncate: 'a huge tool output (over the size limit or its share of the budget) was cut to its head and tail',
  prune: 'old tool outputs (outside the newest, protected ones) were replaced by a placeholder',
  dedupe:
    'a file was read again later: the earlier read of the same file (and range) became a pointer to the later one',
  'split-turn':
    'one turn with many tool calls overflowed on its own: its older steps were condensed, the newest pairs kept',
  summary: 'old turns were summarized by the summarizer (a model, or the offline digest)',
  digest: 'old turns were replaced by a deterministic digest of their working state',
  'sliding-window': 'the oldest turns after the head were dropped (a marker says how many) to get under the target',
  'keep-within-budget':
    'last resort: the pinned head and the newest whole turns that fit were kept, one marker for the rest',
  emergency: 'the agent reported a provider overflow: the history was compacted at once to fit',
};

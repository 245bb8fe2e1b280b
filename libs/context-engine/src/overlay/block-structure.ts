import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';

/**
 * The shape every block the decider computes has, checked on the block alone (no session needed), so a
 * consumer can refuse a block before it reaches the overlay:
 * - its range is ordered and is exactly the span of its edits (min from, max to), within what the decision saw
 *   (`range.to <= basedOnPosition`);
 * - its edits are ordered, disjoint, each one ordered;
 * - its token figures agree (`tokensSaved = tokensBefore − tokensAfter > 0`);
 * - its replacements pair their tools: a tool result in a replacement answers a call made earlier in the same
 *   replacement, or stands alone for the single position it replaces (a result cut, pruned or deduplicated in
 *   place); a call's id appears once.
 * Returns one `<path>.<field>: <reason>` per problem; empty for a well-formed block.
 */
export function blockStructureViolations(block: CompactionBlock, path = 'block'): string[] {
  const out: string[] = [];
  const { range, edits } = block;
  const int = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!int(range?.from) || !int(range?.to)) return [`${path}.range: from and to must be integers >= 0`];
  if (range.from > range.to) out.push(`${path}.range: from ${range.from} is after to ${range.to}`);
  if (!Number.isSafeInteger(block.basedOnPosition) || range.to > block.basedOnPosition) {
    out.push(
      `${path}.range: ends at ${range.to}, after the last position the decision saw (basedOnPosition ${block.basedOnPosition})`,
    );
  }
  if (!Array.isArray(edits) || edits.length === 0) return [...out, `${path}.edits: must not be empty`];
  let previousTo = -1;
  let minFrom = Number.POSITIVE_INFINITY;
  let maxTo = -1;
  edits.forEach((edit, i) => {
    const at = `${path}.edits.${i}`;
    if (!int(edit.from) || !int(edit.to)) {
      out.push(`${at}: from and to must be integers >= 0`);
      return;
    }
    if (edit.from > edit.to) out.push(`${at}: from ${edit.from} is after to ${edit.to}`);
    if (edit.from < range.from || edit.to > range.to) {
      out.push(`${at}: [${edit.from}, ${edit.to}] is outside the block's range [${range.from}, ${range.to}]`);
    }
    if (edit.from <= previousTo) {
      out.push(
        `${at}: [${edit.from}, ${edit.to}] overlaps or precedes the edit before it (which ends at ${previousTo})`,
      );
    }
    previousTo = Math.max(previousTo, edit.to);
    minFrom = Math.min(minFrom, edit.from);
    maxTo = Math.max(maxTo, edit.to);
    out.push(...replacementViolations(edit.replacement ?? [], edit.from === edit.to, `${at}.replacement`));
  });
  if (out.length === 0 && (minFrom !== range.from || maxTo !== range.to)) {
    out.push(`${path}.range: [${range.from}, ${range.to}] is not the span of its edits [${minFrom}, ${maxTo}]`);
  }
  if (!(block.tokensSaved > 0) || block.tokensSaved !== block.tokensBefore - block.tokensAfter) {
    out.push(
      `${path}.tokensSaved: must be tokensBefore − tokensAfter and above 0 ` +
        `(${block.tokensBefore} − ${block.tokensAfter} ≠ ${block.tokensSaved})`,
    );
  }
  return out;
}

function replacementViolations(replacement: readonly ChatMessage[], single: boolean, path: string): string[] {
  const out: string[] = [];
  const calls = new Set<string>();
  replacement.forEach((m, i) => {
    for (const call of m.role === 'assistant' ? (m.toolCalls ?? []) : []) {
      if (calls.has(call.id)) out.push(`${path}.${i}.toolCalls: the call id ${call.id} appears twice`);
      calls.add(call.id);
    }
    if (m.role !== 'tool') return;
    const alone = single && replacement.length === 1;
    if (!alone && (m.toolCallId === undefined || !calls.has(m.toolCallId))) {
      out.push(
        `${path}.${i}: a tool result (toolCallId ${m.toolCallId ?? 'none'}) whose call is not in the replacement ` +
          'must stand alone for the single position it replaces',
      );
    }
  });
  return out;
}

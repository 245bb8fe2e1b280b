import type { BlockEdit, CompactionBlock, Stage } from '../model/block';
import type { ChatMessage } from '../model/message';

/**
 * The overlay: originals + active blocks → the effective history. Edits form a laminar family (any two
 * are nested or disjoint), so the effective history is the originals with the maximal active edits applied;
 * an edit contained in a later one is hidden by it, and reverting the later one shows it again.
 */
export interface EffectiveEntry {
  readonly message: ChatMessage;
  /** The span of original positions this entry stands for (from = to = position for an original). */
  readonly from: number;
  readonly to: number;
  /** Undefined for an original message; else the block and edit that produced it. */
  readonly blockId?: string;
  readonly stage?: Stage;
  readonly tokens: number;
}

export const isOriginal = (e: EffectiveEntry): boolean => e.blockId === undefined;

export class OverlayError extends Error {}

const overlaps = (a: { from: number; to: number }, b: { from: number; to: number }) => a.from <= b.to && b.from <= a.to;
const contains = (outer: { from: number; to: number }, inner: { from: number; to: number }) =>
  outer.from <= inner.from && inner.to <= outer.to;

/** Throws unless every edit of `block` is nested in or contains or is disjoint from each active edit, and its own edits are disjoint. */
export function assertLaminar(
  block: Pick<CompactionBlock, 'id' | 'edits'>,
  active: readonly Pick<CompactionBlock, 'id' | 'edits'>[],
): void {
  const own = [...block.edits].sort((a, b) => a.from - b.from);
  for (let i = 0; i < own.length; i++) {
    const e = own[i]!;
    if (!(e.from <= e.to) || e.from < 0)
      throw new OverlayError(`block ${block.id}: bad edit range [${e.from}, ${e.to}]`);
    if (i > 0 && own[i - 1]!.to >= e.from)
      throw new OverlayError(`block ${block.id}: its own edits overlap at ${e.from}`);
  }
  for (const other of active) {
    if (other.id === block.id) continue;
    for (const e of block.edits) {
      for (const o of other.edits) {
        if (overlaps(e, o) && !contains(e, o) && !contains(o, e)) {
          throw new OverlayError(
            `block ${block.id} edit [${e.from}, ${e.to}] partially overlaps block ${other.id} edit [${o.from}, ${o.to}]`,
          );
        }
      }
    }
  }
}

/**
 * Whether the edits of `blocks` all together form a laminar family (any two nested or disjoint), in one sort and
 * one sweep: O(E log E) for E edits, where checking each block against the others with `assertLaminar` is
 * O(E²). Blocks' own edits must be disjoint (`blockStructureViolations` checks it). When the family is laminar,
 * `assertLaminar` passes for every block against any subset of the others, so a reader can skip those checks.
 */
export function isLaminarFamily(blocks: readonly Pick<CompactionBlock, 'edits'>[]): boolean {
  const edits: BlockEdit[] = [];
  for (const block of blocks) for (const edit of block.edits) edits.push(edit);
  // By start, widest first: each edit starts inside every edit still open, so it must end inside the innermost.
  edits.sort((a, b) => a.from - b.from || b.to - a.to);
  const open: number[] = []; // ends of the edits containing the current start, innermost last
  for (const e of edits) {
    if (!(e.from <= e.to) || e.from < 0) return false;
    while (open.length > 0 && open[open.length - 1]! < e.from) open.pop();
    if (open.length > 0 && e.to > open[open.length - 1]!) return false;
    open.push(e.to);
  }
  return true;
}

interface RankedEdit {
  readonly edit: BlockEdit;
  readonly block: CompactionBlock;
  readonly rank: number;
}

/** The edits that are not hidden by a later active edit containing them, sorted by position. */
export function maximalEdits(activeInOrder: readonly CompactionBlock[]): RankedEdit[] {
  const all: RankedEdit[] = [];
  activeInOrder.forEach((block, rank) => block.edits.forEach((edit) => all.push({ edit, block, rank })));
  // Widest first, then latest first: a laminar family makes a single sweep enough.
  all.sort((a, b) => a.edit.from - b.edit.from || b.edit.to - a.edit.to || b.rank - a.rank);
  const out: RankedEdit[] = [];
  let coverTo = -1;
  for (const r of all) {
    if (r.edit.from <= coverTo) continue; // nested inside an earlier-kept wider edit
    out.push(r);
    coverTo = r.edit.to;
  }
  return out;
}

/** The effective history of `originals` under `activeInOrder` (creation order), with per-entry tokens. */
export function buildEffectiveEntries(
  originals: readonly ChatMessage[],
  originalTokens: readonly number[],
  activeInOrder: readonly CompactionBlock[],
  count: (m: ChatMessage) => number,
): EffectiveEntry[] {
  const edits = maximalEdits(activeInOrder);
  const out: EffectiveEntry[] = [];
  let pos = 0;
  for (const { edit, block } of edits) {
    for (; pos < edit.from && pos < originals.length; pos++)
      out.push({ message: originals[pos]!, from: pos, to: pos, tokens: originalTokens[pos]! });
    for (const m of edit.replacement)
      out.push({ message: m, from: edit.from, to: edit.to, blockId: block.id, stage: block.stage, tokens: count(m) });
    pos = Math.max(pos, edit.to + 1);
  }
  for (; pos < originals.length; pos++)
    out.push({ message: originals[pos]!, from: pos, to: pos, tokens: originalTokens[pos]! });
  return out;
}

/**
 * Apply a block's edits to a view (used while chaining stages inside one decision). Every edit must cover
 * whole entries of the view: entries fully inside [from, to] are replaced, the others kept.
 */
export function applyBlockToEntries(
  entries: readonly EffectiveEntry[],
  block: CompactionBlock,
  count: (m: ChatMessage) => number,
): EffectiveEntry[] {
  const edits = [...block.edits].sort((a, b) => a.from - b.from);
  const out: EffectiveEntry[] = [];
  let k = 0;
  let emitted = -1;
  for (const e of entries) {
    while (k < edits.length && edits[k]!.to < e.from) k++;
    const edit = edits[k];
    if (edit && e.from >= edit.from && e.to <= edit.to) {
      if (emitted !== k) {
        emitted = k;
        for (const m of edit.replacement)
          out.push({
            message: m,
            from: edit.from,
            to: edit.to,
            blockId: block.id,
            stage: block.stage,
            tokens: count(m),
          });
      }
      continue;
    }
    if (edit && overlaps(e, edit))
      throw new OverlayError(`block ${block.id} edit [${edit.from}, ${edit.to}] cuts entry [${e.from}, ${e.to}]`);
    out.push(e);
  }
  return out;
}

/** Index of the first entry whose span ends at or after `pos` (entries are in position order). */
function firstEndingAtOrAfter(entries: readonly EffectiveEntry[], pos: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.to < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `evolve(BlockCreated)` without a rebuild: the new block applied to the current effective view, in
 * O(view + edits × log view) instead of O(originals + every active edit). It succeeds only when every edit
 * starts at an entry's first position and ends at an entry's last one, covering whole entries — the shape
 * of every block the decider computes on the current view. Such an edit is then nested in or disjoint from
 * each visible (maximal) active edit, hence from every hidden one too (each hidden edit lies inside a
 * visible one), so the laminar check is implied. Anything else (an edit hidden inside a synthetic entry,
 * one covering no entry, one that cuts an entry or overlaps a sibling) returns null: the caller then runs
 * the full check and rebuild, which keep the exact semantics of `buildEffectiveEntries`.
 */
export function applyNewBlockToView(
  entries: readonly EffectiveEntry[],
  block: CompactionBlock,
  count: (m: ChatMessage) => number,
): { entries: EffectiveEntry[]; tokenDelta: number } | null {
  const edits = [...block.edits].sort((a, b) => a.from - b.from);
  const out: EffectiveEntry[] = [];
  let delta = 0;
  let copied = 0;
  let lastTo = -1;
  for (const edit of edits) {
    if (!(edit.from <= edit.to) || edit.from <= lastTo) return null;
    lastTo = edit.to;
    const i = firstEndingAtOrAfter(entries, edit.from);
    if (i < copied || i >= entries.length || entries[i]!.from !== edit.from) return null;
    let j = i;
    while (j < entries.length && entries[j]!.to <= edit.to) j++;
    // entries[i..j-1] lie in the edit; the last must end exactly at edit.to (else a gap or a cut).
    if (j === i || entries[j - 1]!.to !== edit.to || (j < entries.length && entries[j]!.from <= edit.to)) return null;
    for (let k = copied; k < i; k++) out.push(entries[k]!);
    for (let k = i; k < j; k++) delta -= entries[k]!.tokens;
    for (const m of edit.replacement) {
      const tokens = count(m);
      delta += tokens;
      out.push({ message: m, from: edit.from, to: edit.to, blockId: block.id, stage: block.stage, tokens });
    }
    copied = j;
  }
  for (let k = copied; k < entries.length; k++) out.push(entries[k]!);
  return { entries: out, tokenDelta: delta };
}

/** Sum of entry tokens. */
export const entriesTokens = (entries: readonly EffectiveEntry[]): number => entries.reduce((s, e) => s + e.tokens, 0);

/** The span of original positions covered by entries [i, j] of a view. */
export const spanOf = (entries: readonly EffectiveEntry[], i: number, j: number) => ({
  from: entries[i]!.from,
  to: entries[j]!.to,
});

export { blockStructureViolations } from './block-structure';

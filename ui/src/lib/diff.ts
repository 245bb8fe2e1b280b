/**
 * A line diff for the block view: what a block replaced (left) beside what replaced it (right). Pure (no DOM),
 * so it is unit tested with the rest of the project.
 */

export type DiffOp =
  { kind: 'same'; left: number; right: number } | { kind: 'removed'; left: number } | { kind: 'added'; right: number };

/** One row of the side-by-side view: a line on either side (or both, when they are equal). */
export interface SideBySideRow {
  readonly left?: { readonly line: number; readonly text: string; readonly changed: boolean };
  readonly right?: { readonly line: number; readonly text: string; readonly changed: boolean };
}

/** Cells of the LCS table at most; over it, the middle is shown as removed-then-added (no alignment). */
export const MAX_LCS_CELLS = 4_000_000;

/**
 * Line operations turning `a` into `b`: the common prefix and suffix, and between them a longest common
 * subsequence when the table is small enough (else everything between is removed then added).
 */
export function diffLines(a: readonly string[], b: readonly string[], maxCells = MAX_LCS_CELLS): DiffOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: DiffOp[] = [];
  for (let i = 0; i < start; i++) ops.push({ kind: 'same', left: i, right: i });
  const n = endA - start;
  const m = endB - start;
  if (n > 0 && m > 0 && n * m <= maxCells) {
    // lcs[i][j]: LCS length of a[start+i..endA) and b[start+j..endB), one flat array.
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] =
          a[start + i] === b[start + j]
            ? lcs[(i + 1) * w + j + 1]! + 1
            : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) {
        ops.push({ kind: 'same', left: start + i++, right: start + j++ });
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
        ops.push({ kind: 'removed', left: start + i++ });
      } else {
        ops.push({ kind: 'added', right: start + j++ });
      }
    }
    for (; i < n; i++) ops.push({ kind: 'removed', left: start + i });
    for (; j < m; j++) ops.push({ kind: 'added', right: start + j });
  } else {
    for (let i = start; i < endA; i++) ops.push({ kind: 'removed', left: i });
    for (let j = start; j < endB; j++) ops.push({ kind: 'added', right: j });
  }
  for (let k = 0; k < a.length - endA; k++) ops.push({ kind: 'same', left: endA + k, right: endB + k });
  return ops;
}

/**
 * Rows for two columns: equal lines side by side; between two equal lines, the removed lines on the left
 * beside the added lines on the right.
 */
export function sideBySide(a: readonly string[], b: readonly string[], maxCells = MAX_LCS_CELLS): SideBySideRow[] {
  const rows: SideBySideRow[] = [];
  let removed: number[] = [];
  let added: number[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const l = removed[k];
      const r = added[k];
      rows.push({
        ...(l !== undefined && { left: { line: l, text: a[l]!, changed: true } }),
        ...(r !== undefined && { right: { line: r, text: b[r]!, changed: true } }),
      });
    }
    removed = [];
    added = [];
  };
  for (const op of diffLines(a, b, maxCells)) {
    if (op.kind === 'removed') removed.push(op.left);
    else if (op.kind === 'added') added.push(op.right);
    else {
      flush();
      rows.push({
        left: { line: op.left, text: a[op.left]!, changed: false },
        right: { line: op.right, text: b[op.right]!, changed: false },
      });
    }
  }
  flush();
  return rows;
}

/** How many lines each side has that the other does not. */
export function diffStats(rows: readonly SideBySideRow[]): { removed: number; added: number; same: number } {
  let removed = 0;
  let added = 0;
  let same = 0;
  for (const r of rows) {
    if (r.left?.changed) removed++;
    if (r.right?.changed) added++;
    if (r.left && !r.left.changed) same++;
  }
  return { removed, added, same };
}

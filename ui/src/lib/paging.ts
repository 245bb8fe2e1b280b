/** Page arithmetic for the paged lists (10,000-message sessions are shown a page at a time). Pure. */

export interface Page {
  readonly index: number;
  readonly offset: number;
  readonly limit: number;
  readonly count: number;
}

/** Pages of `size` over `total` items; the page that holds `item`. */
export function pageOf(item: number, size: number, total: number): Page {
  const count = Math.max(1, Math.ceil(total / size));
  const index = Math.min(count - 1, Math.max(0, Math.floor(item / size)));
  return { index, offset: index * size, limit: size, count };
}

export function pageAt(index: number, size: number, total: number): Page {
  return pageOf(Math.max(0, index) * size, size, total);
}

/** "41–80 of 1,234" */
export function pageLabel(page: Page, total: number): string {
  if (total === 0) return '0 of 0';
  const last = Math.min(total, page.offset + page.limit);
  return `${(page.offset + 1).toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`;
}

/**
 * Evenly spaced indexes of a long series, at most `max`, always keeping the first, the last and `keep` (the
 * compactions), so a chart of 10,000 positions draws quickly and still shows every step.
 */
export function sampleIndexes(length: number, max: number, keep: readonly number[] = []): number[] {
  if (length <= max) return Array.from({ length }, (_, i) => i);
  const picked = new Set<number>();
  const step = (length - 1) / (max - 1);
  for (let k = 0; k < max; k++) picked.add(Math.round(k * step));
  for (const p of keep) {
    if (p >= 0 && p < length) {
      picked.add(p);
      if (p > 0) picked.add(p - 1); // the step down shows as a step, not a slope
    }
  }
  return [...picked].sort((a, b) => a - b);
}

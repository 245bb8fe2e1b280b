/** Keyboard moves inside a group of items (tabs, the block ruler, the block list, message rows). Pure. */

export type Orientation = 'horizontal' | 'vertical' | 'both';

/**
 * The index focus moves to when `key` is pressed on item `index` of `count`, or undefined when the key does
 * not move within the group (it is left to the browser). Arrows of the group's orientation step (stopping at
 * the ends), Home and End go to the first and the last item.
 */
export function nextIndex(key: string, index: number, count: number, orientation: Orientation): number | undefined {
  if (count <= 0) return undefined;
  const back =
    (orientation !== 'vertical' && key === 'ArrowLeft') || (orientation !== 'horizontal' && key === 'ArrowUp');
  const forward =
    (orientation !== 'vertical' && key === 'ArrowRight') || (orientation !== 'horizontal' && key === 'ArrowDown');
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (back) return Math.max(0, index - 1);
  if (forward) return Math.min(count - 1, index + 1);
  return undefined;
}

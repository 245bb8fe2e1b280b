import { nextIndex, type Orientation } from './lib/keys';

/**
 * A keydown handler for a group: moves the focus among the elements of `container` matching `selector`
 * (the event's target or its ancestor being the current one); `onMove` is told the element focused.
 */
export function rovingKeydown(selector: string, orientation: Orientation, onMove?: (el: HTMLElement) => void) {
  return (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const container = e.currentTarget as HTMLElement;
    const items = [...container.querySelectorAll<HTMLElement>(selector)];
    const current = (e.target as HTMLElement).closest<HTMLElement>(selector);
    const index = current ? items.indexOf(current) : -1;
    if (index < 0) return;
    const next = nextIndex(e.key, index, items.length, orientation);
    if (next === undefined) return;
    e.preventDefault();
    const el = items[next]!;
    el.focus();
    onMove?.(el);
  };
}

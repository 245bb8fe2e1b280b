import type { SessionEvent } from '../model/events';

/** The text `evolve` keeps for a refusal (the stats' reason, and the refuse-once check of `decide`). */
export const refusalText = (reason: string, detail: string): string => `compaction refused (${reason}): ${detail}`;

/** The text `evolve` keeps for a compaction that no stage could make progress on. */
export const NO_PROGRESS_TEXT =
  'no stage could shrink the history further (the protected messages alone exceed the budget)';

/** Why the last of these events did nothing: a refusal or a no-progress pass (the texts `evolve` keeps). */
export function lastNoOpText(events: readonly SessionEvent[]): string | undefined {
  let text: string | undefined;
  for (const e of events) {
    if (e.type === 'CompactionRefused') text = refusalText(e.data.reason, e.data.detail);
    else if (e.type === 'CompactionSkipped' && e.data.reason === 'no-progress') text = NO_PROGRESS_TEXT;
  }
  return text;
}

/**
 * The engine over the real transcripts of ../shared/data (beside the repository, as in CI; a missing file fails): with the
 * history budget forced to 0.5 and 0.25 of each session's own size, every session fits or says why, no
 * result is orphaned, and the last user message / last reply / conversational floor stay verbatim.
 */
import { sharedSessions } from '../../../../test/support/shared-data';
import { isConversational } from '../model/message';
import { isOriginal } from '../overlay';
import { replayAll } from '../testing/fixtures';
import { counterFor, estimateMessagesTokens } from '../tokens';
import { auditToolPairs } from '../turns';
import { effectiveHistory, recount, sessionStats } from '.';

const sessions = sharedSessions();

describe.each([0.5, 0.25])('shared data at budget ratio %s', (ratio) => {
  it('every session fits or says why; no orphans; the protected messages stay', () => {
    let fits = 0;
    for (const s of sessions) {
      const provider = s.source.startsWith('swe-agent') ? 'openai' : 'anthropic';
      const full = estimateMessagesTokens(s.messages, counterFor({ provider }));
      const budget = Math.max(1000, Math.floor(full * ratio));
      const r = replayAll(s.id, { provider, contextWindow: budget, maxOutputTokens: 0 }, s.messages, 'fail');
      const stats = sessionStats(r.state);
      if (stats.fits) fits++;
      // Not fitting is only allowed when what compaction may not touch is over the budget, and it says so.
      else expect(stats.reason).toMatch(/alone exceed/);
      const view = effectiveHistory(r.state);
      const audit = auditToolPairs(view);
      expect(audit.orphanResults).toEqual([]);
      expect(audit.duplicateResults).toEqual([]);
      const shown = new Set(r.state.entries.filter(isOriginal).map((e) => e.from));
      const lastUser = s.messages.map((m) => m.role).lastIndexOf('user');
      expect(shown.has(lastUser)).toBe(true);
      const floor = s.messages.flatMap((m, i) => (isConversational(m) ? [i] : [])).slice(-6);
      for (const p of floor) expect(shown.has(p)).toBe(true);
      expect(r.state.effectiveTokens).toBe(recount(r.state).effectiveTokens);
      // One block per id: a second BlockCreated with an id already used would be dropped by evolve as a
      // redelivery, while the services published it (with other content) under the same event id.
      const ids = r.events.flatMap((e) => (e.type === 'BlockCreated' ? [e.data.block.id] : []));
      expect(ids.length).toBe(new Set(ids).size);
    }
    // The others are single turns whose pinned system prompt + task + newest exchange alone exceed the budget.
    expect(fits).toBeGreaterThanOrEqual(ratio === 0.5 ? 20 : 10);
  });
});

/** The terminal summary of a replay report: one row per session, then the totals. */
import Table from 'cli-table3';
import type { ReplayReport, SessionReport } from './replay';

const shortId = (id: string, max = 48): string =>
  id.length <= max ? id : `${id.slice(0, 20)}…${id.slice(-(max - 21))}`;
const k = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n));
const pct = (after: number, before: number): string => (before > 0 ? `${Math.round((100 * after) / before)}%` : '-');
const stagesOf = (s: Pick<SessionReport, 'stages'>): string =>
  Object.entries(s.stages)
    .filter(([, v]) => (v ?? 0) > 0)
    .map(([name, v]) => `${name} ${k(v!)}`)
    .join(', ');

export function summaryTable(report: ReplayReport): string {
  const table = new Table({
    head: [
      'session',
      'msgs',
      'tokens before → after',
      'budget',
      'fits',
      'orphans',
      'floor',
      'blocks',
      'saved by stage',
    ],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'right', 'right', 'center', 'right', 'center', 'right', 'left'],
  });
  for (const s of report.sessions) {
    table.push([
      shortId(s.id),
      `${s.messagesBefore} → ${s.messagesAfter}`,
      `${k(s.tokensBefore)} → ${k(s.tokensAfter)} (${pct(s.tokensAfter, s.tokensBefore)})`,
      k(s.budget),
      s.fits ? 'yes' : 'NO',
      String(s.orphans),
      s.floorKept ? 'kept' : 'LOST',
      String(s.blocks.length),
      stagesOf(s),
    ]);
  }
  const t = report.totals;
  table.push([
    `TOTAL (${t.sessions} sessions${t.badLines ? `, ${t.badLines} bad lines` : ''}${t.engineErrors ? `, ${t.engineErrors} engine errors` : ''})`,
    `${t.messagesBefore} → ${t.messagesAfter}`,
    `${k(t.tokensBefore)} → ${k(t.tokensAfter)} (${pct(t.tokensAfter, t.tokensBefore)})`,
    k(t.budget),
    `${t.fits}/${t.sessions}`,
    String(t.orphans),
    `${t.floorKept}/${t.sessions}`,
    String(t.blocks),
    stagesOf(t),
  ]);
  const notFitting = report.sessions
    .filter((s) => !s.fits)
    .map((s) => `  ${shortId(s.id)}: ${s.reason ?? '?'}${s.diagnosis ? ` — ${s.diagnosis}` : ''}`);
  return [table.toString(), ...(notFitting.length ? ['not fitting:', ...notFitting] : [])].join('\n');
}

/** The terminal summary of a replay report: one row per session, then the totals. */
import Table from 'cli-table3';
import type { CostSummary, ReplayReport, SessionCost, SessionReport } from './replay';

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
  return [table.toString(), ...(notFitting.length ? ['not fitting:', ...notFitting] : []), costTable(report)].join(
    '\n',
  );
}

const x = (ratio: number): string => `${ratio.toFixed(2)}×`;
const turns = (t: SessionReport['turnsBetweenCompactions']): string =>
  t.min === null ? '-' : `${t.min} / ${Number.isInteger(t.median) ? t.median : t.median!.toFixed(1)}`;

/**
 * Prompt-cache-aware input cost: per session, per source and in total, the billed input tokens (base-price
 * equivalents, ./cost.ts) of all model calls without and with compaction, and their ratio.
 */
export function costTable(report: ReplayReport): string {
  const table = new Table({
    head: [
      'session (input cost, prompt cache)',
      'pricing',
      'calls',
      'compactions',
      'calls between (min / med)',
      'cache-invalidating',
      'billed without',
      'billed with (+summaries)',
      'with / without',
    ],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  });
  const row = (label: string, pricing: string, c: CostSummary | SessionCost, compactions: number, between: string) => [
    label,
    pricing,
    String(c.calls),
    String(compactions),
    between,
    String(c.cacheInvalidatingCompactions),
    k(Math.round(c.withoutCompaction.billed)),
    `${k(Math.round(c.withCompaction.billed))}${c.summaryInputTokens ? ` (+${k(c.summaryInputTokens)})` : ''}`,
    x(c.ratio),
  ];
  const steps = (s: SessionReport) => s.turnsBetweenCompactions.at.length;
  for (const s of report.sessions)
    table.push(row(shortId(s.id), s.cost.pricing, s.cost, steps(s), turns(s.turnsBetweenCompactions)));
  const t = report.totals;
  const sources = Object.entries(t.bySource);
  if (sources.length > 1) {
    for (const [source, v] of sources) {
      const list = report.sessions.filter((s) => (s.source ?? '(none)') === source);
      const mins = list.flatMap((s) => (s.turnsBetweenCompactions.min === null ? [] : [s.turnsBetweenCompactions.min]));
      const compactions = list.reduce((a, s) => a + steps(s), 0);
      table.push(
        row(
          `${shortId(source)} (${v.sessions})`,
          '',
          v.cost,
          compactions,
          mins.length ? `min ${Math.min(...mins)}` : '-',
        ),
      );
    }
  }
  table.push(
    row(
      `TOTAL (${t.sessions} sessions)`,
      'own',
      t.cost,
      report.sessions.reduce((a, s) => a + steps(s), 0),
      t.minTurnsBetweenCompactions === null ? '-' : `min ${t.minTurnsBetweenCompactions}`,
    ),
  );
  const priced = Object.entries(t.cost.byPricing)
    .map(([p, v]) => `${p} ${x(v.ratio)}`)
    .join(', ');
  return [
    table.toString(),
    `net cheaper after cache: ${x(t.cost.ratio)} the input cost without compaction (all sessions priced as ${priced});`,
    `  billed = base-input-token equivalents (cache reads and writes at each provider's multipliers, tools/replay/cost.ts);`,
    `  "without" replays the raw transcript as if the window were unlimited: ${t.cost.callsOverBudgetWithout} of its ${t.cost.calls} calls exceed the history budget;`,
    `  a call = an assistant message; compactions = messages after which one or more ran; (+N) = summarizer input tokens.`,
  ].join('\n');
}

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/** The observability artefacts of deploy/ and what the tests need to read from them. */
export const deployDir = resolve(__dirname, '..');
export const ALERTS_FILE = resolve(deployDir, 'prometheus/alerts.yml');
export const DASHBOARD_FILE = resolve(deployDir, 'grafana/dashboards/context-ledger.json');

export interface AlertRule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
}

export function alertRules(file = ALERTS_FILE): AlertRule[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: AlertRule[] }> };
  return doc.groups.flatMap((g) => g.rules);
}

export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { type: string; uid: string };
  readonly gridPos: { h: number; w: number; x: number; y: number };
  readonly targets?: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: DashboardPanel[];
}

export function dashboard(file = DASHBOARD_FILE): Dashboard {
  return JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
}

/** Every PromQL expression of the dashboard, with Grafana's variables replaced by values Prometheus accepts. */
export function dashboardExpressions(board: Dashboard = dashboard()): Array<{ panel: string; expr: string }> {
  return board.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: `${p.title} (${t.refId})`, expr: grafanaToPromQL(t.expr) })),
  );
}

export function grafanaToPromQL(expr: string, range = '1h'): string {
  return expr
    .replace(/\$__rate_interval|\$__interval|\$\{__rate_interval\}|\$\{__interval\}/g, '1m')
    .replace(/\$__range|\$\{__range\}/g, range);
}

/**
 * The metric names an expression reads. Ours all start with ctxledger_, the process ones with process_ or
 * nodejs_ (prom-client's default metrics); `up` is Prometheus's own. Label values never match: ours contain
 * dots or dashes (topics, groups, services), and none starts with one of these prefixes and an underscore.
 */
export function metricNamesIn(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/(?<![\w"$.])((?:ctxledger|process|nodejs)_[a-zA-Z0-9_]+|up)\b(?!\s*\()/g)) {
    names.add(m[1]);
  }
  return [...names].sort();
}

/** Series names a prom-client metric exposes: histograms add _bucket, _sum and _count. */
export function exposedNames(metric: { name: string; type: string }): string[] {
  if (metric.type === 'histogram') return [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`];
  if (metric.type === 'summary') return [metric.name, `${metric.name}_sum`, `${metric.name}_count`];
  return [metric.name];
}

/** Series names of a Prometheus text exposition (`# TYPE` lines), as a scrape of /metrics exposes them. */
export function namesInExposition(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)/.exec(line);
    if (m) names.push(...exposedNames({ name: m[1], type: m[2] }));
  }
  return names;
}

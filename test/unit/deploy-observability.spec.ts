import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ConsumerMetrics, createMetricsRegistry } from '@ctxledger/observability';
import { topicNames } from '@ctxledger/contracts';
import { HttpMetricsInterceptor } from '../../libs/observability/src/http-metrics.interceptor';
import { CompactionMetrics } from '../../apps/compaction-service/src/compaction/compaction.metrics';
import { SummarizerMetrics } from '../../apps/summarizer-service/src/summarization/summarizer.metrics';
import { ProjectionMetrics } from '../../apps/session-service/src/projector/projection.metrics';
import {
  ALERTS_FILE,
  alertRules,
  dashboard,
  DASHBOARD_FILE,
  dashboardExpressions,
  deployDir,
  exposedNames,
  metricNamesIn,
  type Dashboard,
} from '../../deploy/tools/observability-artefacts';

const prometheusDir = resolve(deployDir, 'prometheus');

/** Runs promtool; returns its exit status and output (never throws). */
function promtool(...args: string[]): { status: number; output: string } {
  const r = spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

/** The services' registries as the apps build them (same classes), without starting anything. */
function serviceRegistries(): Record<string, Registry> {
  const common = (service: string) => {
    const registry = createMetricsRegistry(service);
    new ConsumerMetrics(registry);
    new HttpMetricsInterceptor(registry);
    return registry;
  };
  const session = common('session-service');
  const settings = { brokers: [], clientId: 't', topicPrefix: 'ctxledger', topics: topicNames('ctxledger') };
  new ProjectionMetrics(session, {} as never, settings as never, { get: () => undefined } as never);
  const compaction = common('compaction-service');
  new CompactionMetrics(compaction);
  const summarizer = common('summarizer-service');
  new SummarizerMetrics(summarizer);
  return { 'session-service': session, 'compaction-service': compaction, 'summarizer-service': summarizer };
}

function availableNames(): Set<string> {
  const names = new Set<string>(['up']); // Prometheus's own series of every target
  for (const registry of Object.values(serviceRegistries())) {
    for (const metric of registry.getMetricsAsArray() as unknown as Array<{ name: string; type: string }>) {
      for (const n of exposedNames(metric)) names.add(n);
    }
  }
  return names;
}

/** Names an expression reads that no service exposes. */
function unknownNames(exprs: Array<{ where: string; expr: string }>, available: Set<string>): string[] {
  return exprs.flatMap(({ where, expr }) =>
    metricNamesIn(expr)
      .filter((n) => !available.has(n))
      .map((n) => `${where}: ${n}`),
  );
}

/** The dashboard's expressions as recording rules, so that promtool parses every one of them. */
function dashboardAsRules(board: Dashboard): string {
  return stringify({
    groups: [
      {
        name: 'dashboard',
        rules: dashboardExpressions(board).map((e, i) => ({ record: `dashboard:expr_${i}`, expr: e.expr })),
      },
    ],
  });
}

describe('deploy: Prometheus config, alert rules and the Grafana dashboard', () => {
  let work: string;

  beforeAll(() => {
    // promtool comes with the Debian package "prometheus"; installed when missing (as root), like kcat.
    execFileSync(resolve(deployDir, 'local/ensure-prometheus'), { stdio: 'inherit' });
    work = mkdtempSync(join(tmpdir(), 'ctxledger-deploy-'));
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Copies a scrape config next to a copy of the rules, with rule_files pointing at it. */
  function localConfig(name: string, edit: (text: string) => string = (t) => t): string {
    const dir = mkdtempSync(join(work, 'cfg-'));
    copyFileSync(ALERTS_FILE, join(dir, 'alerts.yml'));
    const text = readFileSync(join(prometheusDir, name), 'utf8').replace('/etc/prometheus/alerts.yml', 'alerts.yml');
    writeFileSync(join(dir, name), edit(text));
    return join(dir, name);
  }

  it('promtool check config accepts prometheus.yml (compose)', () => {
    const r = promtool('check', 'config', localConfig('prometheus.yml'));
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('prometheus-kubernetes.yml: promtool accepts it, its pod discovery keeps the pods the manifests define', () => {
    // Debian's Prometheus is built without Kubernetes service discovery ("field kubernetes_sd_configs not
    // found"): promtool checks everything else with the discovery block swapped for a static one, and the
    // block itself is checked against the manifests below.
    const text = readFileSync(join(prometheusDir, 'prometheus-kubernetes.yml'), 'utf8');
    const config = parse(text);
    const [job] = config.scrape_configs;
    const sd = job.kubernetes_sd_configs;
    expect(sd).toEqual([{ role: 'pod', namespaces: { names: ['context-ledger'] } }]);
    const swapped = {
      ...config,
      scrape_configs: [{ ...job, kubernetes_sd_configs: undefined, static_configs: [{ targets: ['x:1'] }] }],
    };
    const r = promtool(
      'check',
      'config',
      localConfig('prometheus-kubernetes.yml', () =>
        stringify(swapped).replace('/etc/prometheus/alerts.yml', 'alerts.yml'),
      ),
    );
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
    const keep = job.relabel_configs.filter((c: any) => c.action === 'keep');
    expect(keep).toEqual([
      {
        source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_part_of'],
        regex: 'context-ledger',
        action: 'keep',
      },
      { source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: 'http', action: 'keep' },
    ]);
    for (const app of ['session-service', 'compaction-service', 'summarizer-service']) {
      const [deployment] = parseAllDocuments(readFileSync(resolve(deployDir, `k8s/${app}.yaml`), 'utf8')).map((d) =>
        d.toJS(),
      );
      expect(deployment.metadata.namespace).toBe('context-ledger');
      expect(deployment.spec.template.metadata.labels['app.kubernetes.io/part-of']).toBe('context-ledger');
      expect(deployment.spec.template.spec.containers[0].ports.map((p: any) => p.name)).toEqual(['http']);
    }
  });

  it('promtool check config rejects a broken scrape config (the check can fail)', () => {
    const r = promtool(
      'check',
      'config',
      localConfig('prometheus.yml', (t) => t.replace('scrape_interval: 15s', 'scrape_interval: fifteen')),
    );
    expect(r.status).not.toBe(0);
  });

  it('the compose scrape config scrapes the three services on their ports', () => {
    const config = parse(readFileSync(join(prometheusDir, 'prometheus.yml'), 'utf8'));
    const targets = config.scrape_configs.flatMap((s: any) => s.static_configs.flatMap((c: any) => c.targets));
    expect(targets.sort()).toEqual(['compaction-service:3001', 'session-service:3000', 'summarizer-service:3002']);
  });

  it('promtool check rules accepts the alert rules, which cover the alerts the issue asks for', () => {
    const r = promtool('check', 'rules', ALERTS_FILE);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
    const exprs = alertRules()
      .map((r) => r.expr)
      .join('\n');
    for (const metric of [
      'ctxledger_consumer_lag_records', // consumer lag growing
      'ctxledger_events_dead_lettered_total', // dead-letter rate
      'ctxledger_summarizer_requests_total', // summarizer failure rate
      'ctxledger_sessions_over_budget', // sessions over budget
      'ctxledger_projection_lag_seconds', // projection lag
    ])
      expect(exprs).toContain(metric);
  });

  it('promtool check rules rejects a rule with broken PromQL (the check can fail)', () => {
    const broken = join(work, 'broken-alerts.yml');
    writeFileSync(
      broken,
      readFileSync(ALERTS_FILE, 'utf8').replace(
        'sum(ctxledger_sessions_over_budget) > 0',
        'sum(ctxledger_sessions_over_budget > 0',
      ),
    );
    expect(promtool('check', 'rules', broken).status).not.toBe(0);
  });

  it('promtool test rules: every alert fires on its scenario and stays quiet below its threshold', () => {
    const r = promtool('test', 'rules', join(prometheusDir, 'alerts.test.yml'));
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
    const tests = readFileSync(join(prometheusDir, 'alerts.test.yml'), 'utf8');
    for (const rule of alertRules()) expect(tests).toContain(`alertname: ${rule.alert}`);
  });

  it('promtool test rules fails when a rule no longer does what its test expects (the test can fail)', () => {
    const dir = mkdtempSync(join(work, 'rules-'));
    writeFileSync(
      join(dir, 'alerts.yml'),
      readFileSync(ALERTS_FILE, 'utf8').replace(
        '/ sum(rate(ctxledger_summarizer_requests_total[10m])) > 0.1',
        '/ sum(rate(ctxledger_summarizer_requests_total[10m])) > 0.5',
      ),
    );
    copyFileSync(join(prometheusDir, 'alerts.test.yml'), join(dir, 'alerts.test.yml'));
    const r = promtool('test', 'rules', join(dir, 'alerts.test.yml'));
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('CtxledgerSummarizerFailureRate');
  });

  it('every dashboard expression is valid PromQL (promtool parses them as recording rules)', () => {
    const file = join(work, 'dashboard-rules.yml');
    writeFileSync(file, dashboardAsRules(dashboard()));
    const r = promtool('check', 'rules', file);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('a dashboard expression with broken PromQL is rejected (the check can fail)', () => {
    const board = dashboard();
    const broken: Dashboard = {
      ...board,
      panels: [
        ...board.panels,
        {
          ...board.panels[1],
          targets: [{ refId: 'A', expr: 'sum(rate(ctxledger_tokens_saved_total[$__rate_interval])' }],
        },
      ],
    };
    const file = join(work, 'broken-dashboard-rules.yml');
    writeFileSync(file, dashboardAsRules(broken));
    expect(promtool('check', 'rules', file).status).not.toBe(0);
  });

  it('the dashboard shows tokens saved by stage and as a ratio, compactions, lag, latency and errors', () => {
    const board = dashboard();
    const exprs = dashboardExpressions(board).map((e) => e.expr);
    const has = (re: RegExp) => exprs.some((e) => re.test(e));
    expect(has(/sum by \(stage\) \(rate\(ctxledger_tokens_saved_total/)).toBe(true);
    expect(has(/ctxledger_history_tokens\{view="effective"\}\) \/ sum\(ctxledger_history_tokens\{view="full"\}/)).toBe(
      true,
    );
    expect(has(/ctxledger_compactions_total/)).toBe(true);
    expect(has(/ctxledger_blocks_created_total/)).toBe(true);
    expect(has(/ctxledger_consumer_lag_records/)).toBe(true);
    expect(has(/ctxledger_projection_lag_/)).toBe(true);
    expect(has(/histogram_quantile\(.*ctxledger_http_request_duration_seconds_bucket/)).toBe(true);
    expect(has(/ctxledger_events_dead_lettered_total/)).toBe(true);
    expect(has(/status=~"5\.\."/)).toBe(true);
  });

  it('the dashboard is well formed: unique panel ids and refIds, inside the 24-column grid, on the provisioned datasource', () => {
    const board = dashboard();
    const datasource = parse(
      readFileSync(resolve(deployDir, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8'),
    ).datasources[0];
    const ids = board.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(board.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    for (const p of board.panels) {
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      expect(p.datasource).toEqual({ type: 'prometheus', uid: datasource.uid });
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(refIds.length).toBeGreaterThan(0);
      expect(new Set(refIds).size).toBe(refIds.length);
    }
    // The provisioning points at the folder compose mounts the dashboards into.
    const provider = parse(
      readFileSync(resolve(deployDir, 'grafana/provisioning/dashboards/context-ledger.yml'), 'utf8'),
    ).providers[0];
    const compose = readFileSync(resolve(deployDir, 'compose/compose.yaml'), 'utf8');
    expect(compose).toContain(`../grafana/dashboards:${provider.options.path}:ro`);
    expect(readFileSync(DASHBOARD_FILE, 'utf8')).not.toMatch(/\$\{DS_/); // no import-time inputs left
  });

  it('every metric the rules and the dashboard read exists in the services registries', () => {
    const available = availableNames();
    expect(available).toContain('ctxledger_tokens_saved_total');
    expect(available).toContain('ctxledger_http_request_duration_seconds_bucket');
    const used = [
      ...alertRules().map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
      ...dashboardExpressions().map((e) => ({ where: `panel ${e.panel}`, expr: e.expr })),
    ];
    expect(used.flatMap(({ expr }) => metricNamesIn(expr)).length).toBeGreaterThan(30);
    expect(unknownNames(used, available)).toEqual([]);
  });

  it('a rule on a metric no service has is reported (the check can fail)', () => {
    const available = availableNames();
    expect(
      unknownNames([{ where: 'alert X', expr: 'rate(ctxledger_tokens_lost_total[5m]) > 0 and up == 0' }], available),
    ).toEqual(['alert X: ctxledger_tokens_lost_total']);
    // Histograms only exist with their suffixes.
    expect(unknownNames([{ where: 'p', expr: 'ctxledger_compaction_duration_seconds' }], available)).toHaveLength(1);
  });

  it('metricNamesIn finds metric names, not label values, functions or keywords', () => {
    expect(
      metricNamesIn(
        'sum by (group) (rate(ctxledger_a_total{topic="ctxledger.x", app="nodejs_x"}[5m])) / up{job="ctxledger"} + process_cpu_seconds_total',
      ),
    ).toEqual(['ctxledger_a_total', 'process_cpu_seconds_total', 'up']);
  });
});

describe('deploy: the consumer lag gauge', () => {
  it('reports each watched group lag by topic at scrape time, and nothing for a group whose broker does not answer', async () => {
    const registry = new Registry();
    const metrics = new ConsumerMetrics(registry);
    metrics.watchLag('g1', async () => ({ 'ctxledger.session-events': 42 }));
    metrics.watchLag('g2', async () => Promise.reject(new Error('broker down')));
    const text = await registry.metrics();
    expect(text).toContain('ctxledger_consumer_lag_records{group="g1",topic="ctxledger.session-events"} 42');
    expect(text).not.toContain('group="g2"');
  });
});

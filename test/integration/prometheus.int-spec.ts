import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Partitioners, type Producer } from 'kafkajs';
import { stringify } from 'yaml';
import {
  ALERTS_FILE,
  alertRules,
  dashboardExpressions,
  metricNamesIn,
  namesInExposition,
} from '../../deploy/tools/observability-artefacts';
import { testKafka } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { transcript, transcriptEvents } from '../support/transcripts';
import { eventually } from '../support/eventually';

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}

describe('Prometheus (a real server) scraping the running services', () => {
  const prefix = unique('prom').replace(/-/g, '_');
  const env = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: testStack().mongoUri.replace(/\/[^/]*$/, `/${prefix}`),
    SUMMARY_TIMEOUT_MS: '20000',
  };
  const job = `ctxledger-${prefix}`;
  const services: Record<string, RunningService> = {};
  let prometheus: ChildProcess | undefined;
  let prometheusExited: Promise<void> | undefined;
  let prometheusOutput = '';
  let prometheusUrl = '';
  let work = '';
  let producer: Producer | undefined;

  const query = async (
    promql: string,
  ): Promise<{ status: string; data?: { result: PromVector[] }; error?: string }> => {
    const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    return (await res.json()) as { status: string; data?: { result: PromVector[] }; error?: string };
  };
  const scalar = async (promql: string): Promise<number | undefined> => {
    const r = await query(promql);
    const v = r.data?.result[0]?.value[1];
    return v === undefined ? undefined : Number(v);
  };

  beforeAll(async () => {
    services.compaction = await startService('compaction-service', env);
    [services.session, services.summarizer] = await Promise.all([
      startService('session-service', env),
      startService('summarizer-service', env),
    ]);

    // The rules of deploy/prometheus, a scrape config for the services this test started, every second.
    work = mkdtempSync(join(tmpdir(), 'ctxledger-prometheus-'));
    copyFileSync(ALERTS_FILE, join(work, 'alerts.yml'));
    const target = (s: RunningService) => new URL(s.url).host;
    writeFileSync(
      join(work, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: ['alerts.yml'],
        scrape_configs: [
          {
            job_name: job,
            metrics_path: '/metrics',
            static_configs: Object.values(services).map((s) => ({ targets: [target(s)], labels: { app: s.name } })),
          },
        ],
      }),
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(work, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(work, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--web.enable-lifecycle',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (c: Buffer) => (prometheusOutput += c.toString()));
    prometheus.stderr!.on('data', (c: Buffer) => (prometheusOutput += c.toString()));
    const child = prometheus;
    prometheusExited = new Promise((done) => child.once('exit', () => done()));
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${prometheusOutput}`);
        return (await fetch(`${prometheusUrl}/-/ready`)).status;
      },
      (status) => status === 200,
      'prometheus to be ready',
      30_000,
    );

    producer = testKafka('prometheus-test').producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
  }, 240_000);

  afterAll(async () => {
    await producer?.disconnect();
    if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) prometheus.kill('SIGTERM');
    await prometheusExited;
    await Promise.all(Object.values(services).map((s) => s.stop()));
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('every metric the rules and the dashboard read is on the running services /metrics', async () => {
    const exposed = new Set<string>(['up']);
    for (const s of Object.values(services)) {
      for (const name of namesInExposition(await (await fetch(`${s.url}/metrics`)).text())) exposed.add(name);
    }
    const used = new Set([
      ...alertRules().flatMap((r) => metricNamesIn(r.expr)),
      ...dashboardExpressions().flatMap((e) => metricNamesIn(e.expr)),
    ]);
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((n) => !exposed.has(n))).toEqual([]);
  });

  it('after a transcript is replayed, PromQL for tokens saved returns the sum of the blocks savings', async () => {
    const session = transcript('pi-coding-agent:d703a1a9');
    const sessionId = unique('prom');
    const events = transcriptEvents(session, sessionId, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      maxOutputTokens: 64_000,
    });
    // The documented JSON, keyed by session (murmur2, as the services partition).
    await producer!.send({
      topic: `${prefix}.session-events`,
      messages: events.map((e) => ({ key: sessionId, value: JSON.stringify(e) })),
    });

    // The blocks as the read model has them, once the compaction service is quiet and all are projected.
    const api = async (path: string) => (await (await fetch(`${services.session.url}/v1${path}`)).json()) as any;
    const blocks = async () => {
      const history = await api(`/sessions/${sessionId}/history`);
      const listed = await api(`/sessions/${sessionId}/blocks`);
      const metrics = await (await fetch(`${services.compaction.url}/metrics`)).text();
      const created = metrics
        .split('\n')
        .filter((l) => l.startsWith('ctxledger_blocks_created_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
      return { history, blocks: (listed.blocks ?? []) as Array<{ stage: string; tokensSaved: number }>, created };
    };
    // Summaries arrive asynchronously and add blocks: read the blocks and Prometheus together until they agree.
    const sameEntries = (x: Map<string, number>, y: Map<string, number>) =>
      JSON.stringify([...x].sort()) === JSON.stringify([...y].sort());
    const byStageOf = (list: Array<{ stage: string; tokensSaved: number }>) => {
      const sums = new Map<string, number>();
      for (const b of list) sums.set(b.stage, (sums.get(b.stage) ?? 0) + b.tokensSaved);
      return sums;
    };
    const agreed = await eventually(
      async () => {
        const b = await blocks();
        const total = await scalar(`sum(ctxledger_tokens_saved_total{job="${job}"})`);
        const byStage = await query(`sum by (stage) (ctxledger_tokens_saved_total{job="${job}"})`);
        const scraped = new Map(
          (byStage.data?.result ?? [])
            .filter((r) => Number(r.value[1]) > 0)
            .map((r) => [r.metric.stage, Number(r.value[1])] as [string, number]),
        );
        return { ...b, expected: b.blocks.reduce((sum, x) => sum + x.tokensSaved, 0), total, scraped };
      },
      (a) =>
        a.history?.originalMessageCount === session.messages.length &&
        a.history.fits === true &&
        a.blocks.length > 0 &&
        a.blocks.length === a.created &&
        a.total === a.expected &&
        sameEntries(a.scraped, byStageOf(a.blocks)),
      'sum(ctxledger_tokens_saved_total) in Prometheus to equal the savings of every projected block',
      90_000,
    );
    expect(agreed.expected).toBeGreaterThan(0);
    expect(agreed.total).toBe(agreed.expected);
    // The same split by stage.
    expect(agreed.scraped).toEqual(byStageOf(agreed.blocks));
    // The dashboard's ratio panel has a value between 0 and 1 (the session is held by the compaction service).
    const ratio = await scalar(
      `1 - sum(ctxledger_history_tokens{job="${job}",view="effective"}) / sum(ctxledger_history_tokens{job="${job}",view="full"})`,
    );
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(1);
    // The consumer lag of the compaction group reaches Prometheus (and is 0 once everything is consumed).
    await eventually(
      () => scalar(`max(ctxledger_consumer_lag_records{job="${job}",group="${prefix}.compaction"})`),
      (v) => v === 0,
      'the compaction group lag to be 0',
      30_000,
    );
  });

  it('the server loaded every alert rule and evaluates them without errors; every dashboard query runs', async () => {
    const rules = await eventually(
      async () =>
        (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as {
          data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
        },
      (r) => r.data?.groups.flatMap((g) => g.rules).every((rule) => rule.health === 'ok') ?? false,
      'every rule evaluated',
      30_000,
    );
    const loaded = rules.data.groups.flatMap((g) => g.rules);
    expect(loaded.map((r) => r.name).sort()).toEqual(
      alertRules()
        .map((r) => r.alert)
        .sort(),
    );
    const failures: string[] = [];
    for (const { panel, expr } of dashboardExpressions()) {
      const r = await query(expr);
      if (r.status !== 'success') failures.push(`${panel}: ${r.error}`);
    }
    expect(failures).toEqual([]);
  });
});

import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.registry';

/** Measures a consumer group's lag: records not yet committed, by topic (high watermark − committed offset). */
export type LagProbe = () => Promise<Readonly<Record<string, number>>>;

/** Every consumer's records by topic and outcome, its dead letters and its lag: the same metrics in every service. */
@Injectable()
export class ConsumerMetrics {
  private readonly consumed: Counter<'topic' | 'outcome'>;
  private readonly deadLettered: Counter<'topic'>;
  private readonly lagProbes = new Map<string, LagProbe>();

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.consumed = new Counter({
      name: 'ctxledger_events_consumed_total',
      help: 'Records consumed, by topic and outcome (processed, dead-lettered, retried, forwarded, misplaced)',
      labelNames: ['topic', 'outcome'],
      registers: [registry],
    });
    this.deadLettered = new Counter({
      name: 'ctxledger_events_dead_lettered_total',
      help: 'Records sent to the dead-letter topic, by source topic',
      labelNames: ['topic'],
      registers: [registry],
    });
    const probes = this.lagProbes;
    new Gauge({
      name: 'ctxledger_consumer_lag_records',
      help: 'Records of each topic not yet committed by the consumer group (measured at scrape time; absent when the broker did not answer)',
      labelNames: ['group', 'topic'],
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...probes].map(async ([group, probe]) => {
            const lag = await withTimeout(probe(), 2000).catch(() => undefined);
            for (const [topic, records] of Object.entries(lag ?? {})) this.set({ group, topic }, records);
          }),
        );
      },
    });
  }

  /** Pass as a transport's `onOutcome`. */
  readonly record = (topic: string, outcome: string): void => {
    this.consumed.inc({ topic, outcome });
    if (outcome === 'dead-lettered') this.deadLettered.inc({ topic });
  };

  /** Pass as a transport's `onLagProbe`: the group's lag is then measured at every scrape. */
  readonly watchLag = (group: string, probe: LagProbe): void => {
    this.lagProbes.set(group, probe);
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error('timeout')), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

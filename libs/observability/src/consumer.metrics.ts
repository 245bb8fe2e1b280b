import { Inject, Injectable } from '@nestjs/common';
import { Counter, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.registry';

/** Every consumer's records by topic and outcome, and its dead letters: the same metrics in every service. */
@Injectable()
export class ConsumerMetrics {
  private readonly consumed: Counter<'topic' | 'outcome'>;
  private readonly deadLettered: Counter<'topic'>;

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
  }

  /** Pass as a transport's `onOutcome`. */
  readonly record = (topic: string, outcome: string): void => {
    this.consumed.inc({ topic, outcome });
    if (outcome === 'dead-lettered') this.deadLettered.inc({ topic });
  };
}

import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Admin, Kafka } from 'kafkajs';
import { Counter, Gauge, type Registry } from 'prom-client';
import { KAFKA_CLIENT, KAFKA_SETTINGS, type KafkaSettings } from '@ctxledger/kafka';
import { METRICS_REGISTRY } from '@ctxledger/observability';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';

/** The projector's group id (shared by every instance of one deployment). */
export const projectorGroupId = (env: Pick<SessionServiceEnv, 'PROJECTOR_GROUP_ID'>, settings: KafkaSettings): string =>
  env.PROJECTOR_GROUP_ID ?? `${settings.topicPrefix}.session-projector`;

const STREAMS = ['sessionEvents', 'blocks'] as const;

/**
 * Projector metrics. Lag is measured when /metrics is scraped: events = high watermark − committed offset
 * of the projector group, summed over partitions; seconds = how long the stream has been continuously behind
 * (since the scrape at which everything then pending was done). A scrape whose measurement fails (2 s) shows no
 * lag series at all rather than the last values (alert on their absence). No session or tenant ids as labels.
 */
@Injectable()
export class ProjectionMetrics implements OnModuleDestroy {
  private readonly logger = new Logger(ProjectionMetrics.name);
  readonly compactedOnRead: Counter;
  readonly messagesAppended: Counter;
  readonly readBlocksSkipped: Counter;
  readonly toolPairRepairs: Counter<'kind'>;
  private admin?: Promise<Admin>;
  /** Per stream: since when it is behind, and the high watermarks it had to reach then. */
  private readonly behind = new Map<string, { since: number; checkpoint: number; highs: Map<number, bigint> }>();

  constructor(
    @Inject(METRICS_REGISTRY) registry: Registry,
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
    @Inject(SERVICE_ENV) env: SessionServiceEnv,
  ) {
    const registers = [registry];
    const groupId = projectorGroupId(env, settings);
    this.compactedOnRead = new Counter({
      name: 'ctxledger_history_compacted_on_read_total',
      help: 'History reads over budget that the cheap stages compacted on read (compaction still in flight)',
      registers,
    });
    this.readBlocksSkipped = new Counter({
      name: 'ctxledger_read_blocks_skipped_total',
      help:
        'Stored blocks left out of a read because they break the overlay (malformed, or partially overlapping an ' +
        'active block), counted per read; the projector dead-letters such blocks, so any is a stored document to look at',
      registers,
    });
    this.toolPairRepairs = new Counter({
      name: 'ctxledger_tool_pair_repairs_total',
      help:
        'Tool-pair problems repaired in served histories, by kind (orphan-result: a result with no call, removed; ' +
        'missing-result / pending-result: a call with no result, answered with a placeholder; duplicate-result; ' +
        'displaced-result; result-before-call; duplicate-call-id), counted per response served',
      labelNames: ['kind'],
      registers,
    });
    this.messagesAppended = new Counter({
      name: 'ctxledger_messages_appended_total',
      help: 'Messages accepted over HTTP',
      registers,
    });
    const lag = new Map<string, { events: number; seconds: number }>();
    // One measurement per scrape, shared by both gauges (the registry collects them concurrently).
    let measuring: Promise<void> | undefined;
    const refresh = () =>
      (measuring ??= withTimeout(
        (async () => {
          for (const s of STREAMS) lag.set(s, await this.measure(groupId, s));
        })(),
        2000,
      )
        .catch((error: unknown) => {
          // No figure rather than the last one: a stale "0 s behind" while the projector is stuck would be a lie.
          lag.clear();
          this.admin?.then((a) => a.disconnect()).catch(() => undefined);
          this.admin = undefined;
          this.logger.warn(`could not measure the projection lag: ${(error as Error).message}`);
        })
        .finally(() => setTimeout(() => (measuring = undefined), 100)));
    new Gauge({
      name: 'ctxledger_projection_lag_events',
      help: 'Records of each stream not yet projected into the read model',
      labelNames: ['stream'],
      registers,
      async collect() {
        await refresh();
        this.reset();
        for (const [stream, l] of lag) this.set({ stream }, l.events);
      },
    });
    new Gauge({
      name: 'ctxledger_projection_lag_seconds',
      help: 'How long each stream has been behind (0 when the read model is up to date)',
      labelNames: ['stream'],
      registers,
      async collect() {
        await refresh();
        this.reset();
        for (const [stream, l] of lag) this.set({ stream }, l.seconds);
      },
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.admin?.then((a) => a.disconnect()).catch(() => undefined);
  }

  private async measure(
    groupId: string,
    stream: (typeof STREAMS)[number],
  ): Promise<{ events: number; seconds: number }> {
    const admin = await (this.admin ??= this.connectAdmin());
    const topic = this.settings.topics[stream];
    const [watermarks, committed] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
    let events = 0n;
    let caughtUpWithCheckpoint = true;
    const highs = new Map<number, bigint>();
    const state = this.behind.get(stream);
    for (const w of watermarks) {
      const high = BigInt(w.high);
      const at = done.get(w.partition) ?? -1n;
      const from = at < 0n ? BigInt(w.low) : at;
      if (high > from) events += high - from;
      highs.set(w.partition, high);
      if (from < (state?.highs.get(w.partition) ?? 0n)) caughtUpWithCheckpoint = false;
    }
    const now = Date.now();
    if (events === 0n) {
      this.behind.delete(stream);
      return { events: 0, seconds: 0 };
    }
    if (!state) {
      this.behind.set(stream, { since: now, checkpoint: now, highs });
      return { events: Number(events), seconds: 0 };
    }
    // Everything pending at the checkpoint is projected: what is pending now arrived after it.
    if (caughtUpWithCheckpoint) this.behind.set(stream, { since: state.checkpoint, checkpoint: now, highs });
    return { events: Number(events), seconds: (now - this.behind.get(stream)!.since) / 1000 };
  }

  private async connectAdmin(): Promise<Admin> {
    const admin = this.kafka.admin();
    await admin.connect();
    return admin;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, fail) => (timer = setTimeout(() => fail(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

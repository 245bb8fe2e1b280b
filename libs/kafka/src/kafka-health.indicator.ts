import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaClientConfig, type KafkaSettings } from './kafka-settings';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import { consumersOf, type ConsumerStatus } from './transport/consumer-status';

/**
 * Kafka is up for a service when
 * 1. every consumer the service runs (its KafkaEventTransports, on the service's Kafka client) is running: not
 *    crashed and being restarted — known without asking the broker, so that answer is immediate;
 * 2. a broker answers a metadata request (DescribeCluster) within the timeout;
 * 3. no consumer has an assigned partition that is behind while nothing was committed on it for `stallMs`;
 * 4. no consumer went a session timeout without its group confirming it (a heartbeat answered, a join): the
 *    coordinator no longer holds it as a member, so it consumes nothing while kafkajs still calls it running.
 *
 * The brokers are asked through a client of its own that tries each seed broker without waiting: the service's
 * client retries a refused connection 8 times with backoff (seconds), so a stopped broker took the whole health
 * timeout to be reported; and one try alone would call a cluster down when the seed broker it picked is stopped.
 */
@Injectable()
export class KafkaHealthIndicator {
  private readonly probeClient: Kafka;

  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
    @Inject(KAFKA_SETTINGS) settings: KafkaSettings,
  ) {
    this.probeClient = new Kafka({
      ...kafkaClientConfig(settings),
      clientId: `${settings.clientId}-health`,
      // What the probe finds is the answer of /health; its failures are not worth log lines of their own.
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      // Each retry of the first connection tries the next seed broker: one try per broker (twice over), at once.
      retry: { retries: 2 * (settings.brokers.length - 1), initialRetryTime: 10, maxRetryTime: 50 },
    });
  }

  async isHealthy(key: string, timeoutMs: number, stallMs = 60_000) {
    const indicator = this.health.check(key);
    const consumers = consumersOf(this.kafka);
    const known = consumers.map((c) => c.consumerStatus());
    const down = known.filter((c) => c.state !== 'running');
    if (down.length > 0) {
      return indicator.down({ message: describe(down), consumers: known });
    }
    const admin = this.probeClient.admin();
    let timer: NodeJS.Timeout | undefined;
    const deadline = Date.now() + timeoutMs;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      const cluster = await Promise.race([admin.connect().then(() => admin.describeCluster()), timeout]);
      clearTimeout(timer);
      const checked = await Promise.race([
        Promise.all(consumers.map((c) => c.checkConsumer(stallMs))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the consumers' lag was not measured within ${timeoutMs} ms`)),
            Math.max(0, deadline - Date.now()),
          );
        }),
      ]);
      const unwell = checked.filter(
        (c) => c.state !== 'running' || (c.stalled?.length ?? 0) > 0 || c.unconfirmedSince !== undefined,
      );
      const details = { brokers: cluster.brokers.length, controller: cluster.controller, consumers: checked };
      return unwell.length > 0 ? indicator.down({ message: describe(unwell), ...details }) : indicator.up(details);
    } catch (error) {
      return indicator.down({ message: (error as Error).message, ...(known.length > 0 && { consumers: known }) });
    } finally {
      clearTimeout(timer);
      admin.disconnect().catch(() => undefined);
    }
  }
}

function describe(statuses: readonly ConsumerStatus[]): string {
  return statuses
    .map((c) =>
      c.state !== 'running'
        ? `consumer of ${c.groupId} is ${c.state} since ${c.since}${c.lastError ? ` (${c.lastError})` : ''}`
        : c.unconfirmedSince !== undefined
          ? `consumer of ${c.groupId} is not confirmed by its group since ${c.unconfirmedSince} (rejoining)`
          : `consumer of ${c.groupId} makes no progress on ${c.stalled!.join(', ')}`,
    )
    .join('; ');
}

import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Kafka } from 'kafkajs';
import { KAFKA_CLIENT } from './kafka.tokens';

/**
 * Kafka is up when a broker answers a metadata request (DescribeCluster) within the timeout.
 * A short-lived admin client with no retries is used so a dead broker is reported quickly.
 */
@Injectable()
export class KafkaHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
  ) {}

  async isHealthy(key: string, timeoutMs: number) {
    const indicator = this.health.check(key);
    const admin = this.kafka.admin({ retry: { retries: 0 } });
    let timer: NodeJS.Timeout | undefined;
    try {
      const cluster = await Promise.race([
        admin.connect().then(() => admin.describeCluster()),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return indicator.up({ brokers: cluster.brokers.length, controller: cluster.controller });
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
      admin.disconnect().catch(() => undefined);
    }
  }
}
